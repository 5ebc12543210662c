import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/env.js';
import { createServer } from '../../src/app/server.js';
import { createDatabase } from '../../src/storage/connect.js';
import { TEST_SECRET } from '../helpers/app.js';
import { runCli, type CliResult } from '../helpers/cli.js';

const BASE_URL = 'https://id.example';

describe('indiestack links and profile commands', () => {
  let cwd: string;
  let filename: string;
  let env: Record<string, string>;
  const cli = (args: string[], input?: string, extraEnv: Record<string, string> = {}) =>
    runCli(args, { cwd, env: { ...env, ...extraEnv }, ...(input === undefined ? {} : { input }) });
  const file = (name: string, text: string) => {
    const at = path.join(cwd, name);
    writeFileSync(at, text);
    return at;
  };
  /** The stored profile rows, read straight from the SQLite file. */
  const storedProfiles = async () => {
    const handle = createDatabase({ kind: 'sqlite', filename });
    try {
      return await handle.db.selectFrom('indieweb_profile').selectAll().execute();
    } finally {
      await handle.close();
    }
  };
  const expectOneLineFailure = (result: CliResult, start: string) => {
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.startsWith(`indiestack: ${start}`)).toBe(true);
    expect(result.stderr.endsWith('\n')).toBe(true);
    expect(result.stderr.split('\n')).toHaveLength(2);
  };

  beforeAll(async () => {
    cwd = mkdtempSync(path.join(os.tmpdir(), 'indiestack-profile-cli-'));
    filename = path.join(cwd, 'indiestack.sqlite');
    env = { INDIEWEB_DATABASE_URL: `sqlite:${filename}`, INDIEWEB_BASE_URL: BASE_URL };
    const added = await cli(['user', 'add', 'alice', '--me', 'https://alice.example/', '--password-stdin'], 'alice password 1\n');
    expect(added).toMatchObject({ code: 0, stderr: `indiestack: creating a new database at ${filename}\n` });
  });
  afterAll(() => {
    rmSync(cwd, { recursive: true, force: true });
  });

  it('links NAME prints the link tags for INDIEWEB_BASE_URL', async () => {
    const result = await cli(['links', 'alice']);
    const expected = [
      `<link rel="indieauth-metadata" href="${BASE_URL}/.well-known/oauth-authorization-server">`,
      `<link rel="authorization_endpoint" href="${BASE_URL}/indieweb/auth/">`,
      `<link rel="token_endpoint" href="${BASE_URL}/indieweb/token/">`,
      `<link rel="micropub" href="${BASE_URL}/indieweb/micropub/">`,
      `<link rel="webmention" href="${BASE_URL}/indieweb/webmention/">`,
    ].join('\n');
    expect(result).toEqual({ code: 0, stdout: `${expected}\n`, stderr: '' });
  });

  it('profile show and profile set refuse an unknown user with one line and exit 1', async () => {
    const json = file('unknown-user.json', '{"name":["Nobody"]}');
    const results = await Promise.all([cli(['profile', 'show', 'nobody']), cli(['profile', 'set', 'nobody', '--json', json])]);
    for (const result of results) {
      expectOneLineFailure(result, 'no user named "nobody"');
    }
    expect(await storedProfiles()).toEqual([]);
  });

  it('profile show prints the default h-card from the account as JSON', async () => {
    const result = await cli(['profile', 'show', 'alice']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(result.stdout)).toEqual({ name: ['alice'], url: ['https://alice.example/'] });
    expect(result.stdout.endsWith('}\n')).toBe(true);
  });

  it('profile set --json FILE saves the h-card (normalized); show and the public profile reflect it', async () => {
    const card = {
      name: [' Alice Example '],
      url: ['https://alice.example/'],
      photo: ['https://alice.example/me.jpg'],
      email: ['alice@alice.example'],
      note: ['<b>Hi</b>'],
    };
    const result = await cli(['profile', 'set', 'alice', '--json', file('card.json', JSON.stringify(card))]);
    expect(result).toEqual({ code: 0, stdout: 'saved the profile of alice\n', stderr: '' });
    const stored = { ...card, name: ['Alice Example'], email: ['mailto:alice@alice.example'] };
    const shown = await cli(['profile', 'show', 'alice']);
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.stdout)).toEqual(stored);

    const config = loadConfig({
      env: { INDIEWEB_BASE_URL: BASE_URL, INDIEWEB_SECRET: TEST_SECRET, INDIEWEB_DATABASE_URL: `sqlite:${filename}` },
      cwd,
    });
    const { app } = await createServer({ config, logger: false, worker: false });
    try {
      const response = await app.inject({ method: 'GET', url: '/indieweb/profile/alice/', headers: { accept: 'application/json' } });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({
        name: 'alice',
        h_card: stored,
        profile: { name: 'Alice Example', photo_url: 'https://alice.example/me.jpg', url: 'https://alice.example/' },
      });
    } finally {
      await app.close();
    }
  });

  it('profile set --json - reads the h-card from standard input', async () => {
    const card = { name: ['Alice from stdin'], nickname: ['al'] };
    const result = await cli(['profile', 'set', 'alice', '--json', '-'], JSON.stringify(card));
    expect(result).toEqual({ code: 0, stdout: 'saved the profile of alice\n', stderr: '' });
    expect((await storedProfiles()).map((row) => ({ name: row.name, h_card: JSON.parse(row.h_card) as unknown }))).toEqual([
      { name: 'Alice from stdin', h_card: card },
    ]);
  });

  it('profile set refuses an invalid h-card with one line "indiestack: invalid h-card: …" and exit 1, saving nothing', async () => {
    const before = await storedProfiles();
    const invalid = {
      name: ['Changed'],
      url: ['javascript:alert(1)'],
      photo: ['/relative.jpg'],
      email: ['not-an-email'],
      'Bad Name': ['x'],
      org: ['x'.repeat(2001)],
    };
    const [fromFile, notAnObject] = await Promise.all([
      cli(['profile', 'set', 'alice', '--json', file('invalid.json', JSON.stringify(invalid))]),
      cli(['profile', 'set', 'alice', '--json', '-'], '["Alice"]'),
    ]);
    for (const result of [fromFile, notAnObject]) expectOneLineFailure(result, 'invalid h-card: ');
    for (const field of ['url', 'photo', 'email', 'Bad Name', 'org']) expect(fromFile.stderr).toContain(`${field}: `);
    expect(await storedProfiles()).toEqual(before);
  });

  it('profile set refuses an unreadable file and malformed JSON with one line and exit 1, saving nothing', async () => {
    const before = await storedProfiles();
    const malformed = file('malformed.json', '{"name": ["Alice"');
    const [missing, badFile, badStdin] = await Promise.all([
      cli(['profile', 'set', 'alice', '--json', path.join(cwd, 'missing.json')]),
      cli(['profile', 'set', 'alice', '--json', malformed]),
      cli(['profile', 'set', 'alice', '--json', '-'], '{name: Alice}'),
    ]);
    expectOneLineFailure(missing, `cannot read ${path.join(cwd, 'missing.json')}: ENOENT`);
    expectOneLineFailure(badFile, `${malformed} is not valid JSON`);
    expectOneLineFailure(badStdin, '- is not valid JSON');
    expect(await storedProfiles()).toEqual(before);
  });

  it('profile set reports an invalid h-card whose names or values hold line breaks on one line', async () => {
    const result = await cli(
      ['profile', 'set', 'alice', '--json', '-'],
      JSON.stringify({ url: ['javascript:x\nalert(1)'], 'a\nb': ['x'] }),
    );
    expectOneLineFailure(result, 'invalid h-card: ');
  });
});
