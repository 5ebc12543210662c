import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Base64Url } from '../../src/core/crypto.js';
import { createDatabase } from '../../src/storage/connect.js';
import { createTokensRepository } from '../../src/storage/repositories/tokens.js';
import { createUsersRepository } from '../../src/storage/repositories/users.js';
import { verifyPassword } from '../../src/accounts/passwords.js';
import { DIALECTS, freshLocation } from '../helpers/databases.js';
import { lastLine, runCli } from '../helpers/cli.js';

for (const dialect of DIALECTS) {
  describe(`indiestack CLI on ${dialect}`, () => {
    let cwd: string;
    let env: Record<string, string>;
    let fresh: Awaited<ReturnType<typeof freshLocation>>;
    const cli = (args: string[], input?: string) => runCli(args, { cwd, env, ...(input === undefined ? {} : { input }) });
    const withDb = async <T>(work: (db: ReturnType<typeof createDatabase>) => Promise<T>): Promise<T> => {
      const handle = createDatabase(fresh.location);
      try {
        return await work(handle);
      } finally {
        await handle.close();
      }
    };

    beforeAll(async () => {
      cwd = mkdtempSync(path.join(os.tmpdir(), 'indiestack-cli-'));
      fresh = await freshLocation(dialect);
      env = { INDIEWEB_DATABASE_URL: fresh.url };
    });
    afterAll(async () => {
      await fresh.drop();
      rmSync(cwd, { recursive: true, force: true });
    });

    it('migrate creates the schema and says so', async () => {
      const result = await cli(['migrate']);
      expect(result).toMatchObject({ code: 0, stderr: '' });
      expect(result.stdout).toBe(`database is up to date (${dialect})\n`);
    });

    it('user add stores a scrypt hash of the password read from stdin', async () => {
      const result = await cli(
        ['user', 'add', 'alice', '--me', 'https://alice.example', '--me', 'https://alice.example/about', '--password-stdin'],
        'a long password\n',
      );
      expect(result).toMatchObject({ code: 0, stderr: '' });
      expect(result.stdout).toBe('added user alice (https://alice.example/, https://alice.example/about)\n');
      const stored = await withDb((h) => createUsersRepository(h.db).findCredentials('alice'));
      expect(stored?.passwordHash).toMatch(/^scrypt\$/);
      expect(stored?.passwordHash).not.toContain('a long password');
      expect(await verifyPassword('a long password', stored!.passwordHash)).toBe(true);
    });

    it('user add refuses a duplicate name with one line and exit 1, changing nothing', async () => {
      const result = await cli(['user', 'add', 'alice', '--me', 'https://other.example/', '--password-stdin'], 'another password\n');
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe('indiestack: user "alice" already exists\n');
      expect(await withDb((h) => createUsersRepository(h.db).findTakenProfileUrlKeys(['https://other.example/']))).toEqual([]);
    });

    it.each([
      [['--me', 'ftp://bob.example/'], 'indiestack: "ftp://bob.example/" is not an http(s) profile URL without fragment or userinfo\n'],
      [
        ['--me', 'https://bob.example/#me'],
        'indiestack: "https://bob.example/#me" is not an http(s) profile URL without fragment or userinfo\n',
      ],
      [['--me', 'https://ALICE.example/'], 'indiestack: profile URL https://alice.example/ already belongs to another user\n'],
    ])('user add refuses %j with one line and exit 1', async (flags, message) => {
      const result = await cli(['user', 'add', 'bob', ...flags, '--password-stdin'], 'bob password\n');
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(message);
      expect(await withDb((h) => createUsersRepository(h.db).findByName('bob'))).toBeNull();
    });

    it('user add without a password and without a terminal fails with a hint', async () => {
      const result = await cli(['user', 'add', 'bob', '--me', 'https://bob.example/']);
      expect(result.code).toBe(1);
      expect(result.stderr).toBe('indiestack: no password given: pass --password-stdin or run in a terminal\n');
    });

    it('user add refuses a short password', async () => {
      const result = await cli(['user', 'add', 'bob', '--me', 'https://bob.example/', '--password-stdin'], 'short\n');
      expect(result.code).toBe(1);
      expect(result.stderr).toBe('indiestack: the password must have at least 8 characters\n');
    });

    it('an unknown flag is one error line and a non-zero exit', async () => {
      const result = await cli(['user', 'list', '--bogus']);
      expect(result.code).not.toBe(0);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toContain("unknown option '--bogus'");
    });

    it('user list, disable and enable', async () => {
      expect((await cli(['user', 'disable', 'alice'])).stdout).toBe('disabled user alice\n');
      const listed = await cli(['user', 'list']);
      expect(listed.stdout).toMatch(
        /^NAME\s+STATUS\s+PROFILE URLS\nalice\s+disabled\s+https:\/\/alice\.example\/ https:\/\/alice\.example\/about\n$/,
      );
      expect((await cli(['user', 'enable', 'alice'])).stdout).toBe('enabled user alice\n');
      expect((await cli(['user', 'list'])).stdout).toContain('alice  active');
      const missing = await cli(['user', 'disable', 'nobody']);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toBe('indiestack: no user named "nobody"\n');
    });

    it('user disable ends sessions and tokens for good: enabling again revives neither (issue 23 #10)', async () => {
      const issued = await cli(['token', 'issue', '--user', 'alice', '--client-id', 'https://disable.example/', '--scope', 'create']);
      expect(issued.code).toBe(0);
      const epochBefore = (await withDb((h) => createUsersRepository(h.db).findByName('alice')))!.sessionEpoch;
      expect((await cli(['user', 'disable', 'alice'])).code).toBe(0);
      expect((await cli(['user', 'enable', 'alice'])).code).toBe(0);
      expect((await withDb((h) => createUsersRepository(h.db).findByName('alice')))!.sessionEpoch).toBeGreaterThan(epochBefore);
      const row = (await cli(['token', 'list', '--user', 'alice'])).stdout
        .split('\n')
        .find((line) => line.includes('https://disable.example/'));
      expect(row).toMatch(/revoked/);
    });

    it('user passwd replaces the password', async () => {
      const result = await cli(['user', 'passwd', 'alice', '--password-stdin'], 'a newer password\n');
      expect(result).toMatchObject({ code: 0, stdout: 'changed the password of alice\n' });
      const stored = await withDb((h) => createUsersRepository(h.db).findCredentials('alice'));
      expect(await verifyPassword('a newer password', stored!.passwordHash)).toBe(true);
      expect(await verifyPassword('a long password', stored!.passwordHash)).toBe(false);
    });

    it('token issue prints the token alone on stdout and what it issued on stderr; only its SHA-256 is stored', async () => {
      const result = await cli([
        'token',
        'issue',
        '--user',
        'alice',
        '--client-id',
        'https://app.example/',
        '--scope',
        'create  update create xyz-custom',
      ]);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/^[A-Za-z0-9_-]{43}\n$/);
      expect(result.stderr).toMatch(
        /^indiestack: warning: "xyz-custom" is not a scope indiestack knows; it is stored as given\nissued token \S+ for alice \(client https:\/\/app\.example\/, scope "create update xyz-custom", expires \S+\)\n$/,
      );
      const token = lastLine(result.stdout);
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const record = await withDb((h) => createTokensRepository(h.db).findByHash(sha256Base64Url(token)));
      expect(record).toMatchObject({
        clientId: 'https://app.example/',
        me: 'https://alice.example/',
        scope: 'create update xyz-custom',
        revokedAt: null,
      });
      const lifetime = (Date.parse(record!.expiresAt!) - Date.parse(record!.createdAt)) / 1000;
      expect(lifetime).toBe(86_400);
      const hashes = await withDb((h) => h.db.selectFrom('indieweb_token').select(['token_hash']).execute());
      expect(hashes.map((row) => row.token_hash)).not.toContain(token);
    });

    it('token issue honours --expires-in, --no-expiry and --me', async () => {
      const short = await cli([
        'token',
        'issue',
        '--user',
        'alice',
        '--client-id',
        'https://app.example/',
        '--scope',
        'media',
        '--expires-in',
        '60',
      ]);
      const shortRecord = await withDb((h) => createTokensRepository(h.db).findByHash(sha256Base64Url(lastLine(short.stdout))));
      expect((Date.parse(shortRecord!.expiresAt!) - Date.parse(shortRecord!.createdAt)) / 1000).toBe(60);
      const forever = await cli([
        'token',
        'issue',
        '--user',
        'alice',
        '--client-id',
        'https://app.example/',
        '--scope',
        'media',
        '--no-expiry',
        '--me',
        'https://ALICE.example/about',
      ]);
      const foreverRecord = await withDb((h) => createTokensRepository(h.db).findByHash(sha256Base64Url(lastLine(forever.stdout))));
      expect(foreverRecord).toMatchObject({ expiresAt: null, me: 'https://alice.example/about' });
    });

    it.each([
      [['--user', 'nobody', '--client-id', 'https://app.example/', '--scope', 'create'], 'indiestack: no user named "nobody"\n'],
      [['--user', 'alice', '--client-id', 'not a url', '--scope', 'create'], 'indiestack: invalid client_id\n'],
      [
        ['--user', 'alice', '--client-id', 'https://app.example/', '--scope', 'create', '--me', 'https://mallory.example/'],
        'indiestack: "https://mallory.example/" is not a profile URL of alice\n',
      ],
      [
        ['--user', 'alice', '--client-id', 'https://app.example/', '--scope', 'create,update'],
        'indiestack: --scope takes space-separated names, not a comma-separated list: --scope "create update"\n',
      ],
    ])('token issue refuses %j with one line and exit 1', async (flags, message) => {
      const result = await cli(['token', 'issue', ...flags]);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe(message);
    });

    it('token issue warns about a misspelled scope and suggests the right one', async () => {
      const result = await cli(['token', 'issue', '--user', 'alice', '--client-id', 'https://app.example/', '--scope', 'craete media']);
      expect(result.code).toBe(0);
      expect(result.stderr.split('\n')[0]).toBe(
        'indiestack: warning: "craete" is not a scope indiestack knows (did you mean create?); it is stored as given',
      );
    });

    it.each([[['--expires-in', '0']], [['--expires-in', 'soon']], [['--expires-in', '60', '--no-expiry']]])(
      'token issue refuses %j with one line and a non-zero exit',
      async (flags) => {
        const result = await cli([
          'token',
          'issue',
          '--user',
          'alice',
          '--client-id',
          'https://app.example/',
          '--scope',
          'create',
          ...flags,
        ]);
        expect(result.code).not.toBe(0);
        expect(result.stderr.trim().split('\n')).toHaveLength(1);
      },
    );

    it('token list shows ids and never the tokens; token revoke revokes by id', async () => {
      const issued = await cli(['token', 'issue', '--user', 'alice', '--client-id', 'https://revoke.example/', '--scope', 'create']);
      const token = lastLine(issued.stdout);
      const id = /issued token (\S+)/.exec(issued.stderr)?.[1];
      const listed = await cli(['token', 'list', '--user', 'alice']);
      expect(listed.stdout.split('\n')[0]).toMatch(/^ID\s+USER\s+CLIENT\s+SCOPE\s+ISSUED\s+EXPIRES\s+LAST USED\s+STATUS$/);
      expect(listed.stdout).toContain(id);
      expect(listed.stdout).not.toContain(token);
      expect((await cli(['token', 'revoke', id!])).stdout).toBe(`revoked token ${id}\n`);
      const after = await cli(['token', 'list']);
      expect(after.stdout.split('\n').find((line) => line.startsWith(id!))).toMatch(/revoked$/);
      const record = await withDb((h) => createTokensRepository(h.db).findByHash(sha256Base64Url(token)));
      expect(record?.revokedAt).not.toBeNull();
      const missing = await cli(['token', 'revoke', 'no-such-id']);
      expect(missing).toMatchObject({ code: 1, stderr: 'indiestack: no token with id "no-such-id"\n' });
      const unknownUser = await cli(['token', 'list', '--user', 'nobody']);
      expect(unknownUser).toMatchObject({ code: 1, stderr: 'indiestack: no user named "nobody"\n' });
    });
  });
}

describe('indiestack CLI configuration errors', () => {
  let cwd: string;
  beforeAll(() => {
    cwd = mkdtempSync(path.join(os.tmpdir(), 'indiestack-cli-'));
  });
  afterAll(() => rmSync(cwd, { recursive: true, force: true }));

  it('exit 2 with one line per invalid setting, all at once, no stack trace', async () => {
    const result = await runCli(['migrate'], {
      cwd,
      env: {
        INDIEWEB_PORT: 'eighty',
        INDIEWEB_LOG_LEVEL: 'loud',
        INDIEWEB_TOKEN_EXPIRES_IN: '-1',
        INDIEWEB_MEDIA_MAX_UPLOAD_BYTES: 'lots',
      },
    });
    expect(result.code).toBe(2);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines.map((line) => line.split(':')[1]?.trim())).toEqual([
      'INDIEWEB_PORT',
      'INDIEWEB_LOG_LEVEL',
      'INDIEWEB_TOKEN_EXPIRES_IN',
      'INDIEWEB_MEDIA_MAX_UPLOAD_BYTES',
    ]);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('serve flags are validated like the settings', async () => {
    const result = await runCli(['serve', '--port', '99999', '--base-url', 'ftp://x'], { cwd });
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(2);
  });

  it('a bad flag is reported under the name of the flag, not of the variable the person did not set', async () => {
    const result = await runCli(['serve', '--port', '99999', '--base-url', 'ftp://x'], { cwd });
    expect(
      result.stderr
        .trim()
        .split('\n')
        .map((line) => line.split(':')[1]?.trim()),
    ).toEqual(['--port', '--base-url']);
  });

  it('serve refuses a base URL with a path at start, saying why (exit 2)', async () => {
    const result = await runCli(['serve', '--port', '0', '--base-url', 'https://example.com/id'], { cwd });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^indiestack: --base-url: "https:\/\/example\.com\/id" has a path; `serve` answers at the root of its host/,
    );
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('a port in use is one line that says so (exit 1)', async () => {
    const { createServer } = await import('node:net');
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as { port: number }).port;
    try {
      const result = await runCli(['serve', '--host', '127.0.0.1', '--port', String(port)], { cwd, env: { INDIEWEB_LOG_LEVEL: 'error' } });
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        `indiestack: port ${port} on 127.0.0.1 is already in use: stop what holds it, or pick another with --port (INDIEWEB_PORT)\n`,
      );
    } finally {
      holder.close();
    }
  });

  it('an unreachable database is one line and exit 1', async () => {
    const result = await runCli(['migrate'], { cwd, env: { INDIEWEB_DATABASE_URL: 'postgres://user:hunter22@127.0.0.1:1/none' } });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/^indiestack: cannot use the database postgres:\/\/user:\*\*\*@127\.0\.0\.1:1\/none: /);
    expect(result.stderr).not.toContain('hunter22');
  });
});

describe('indiestack CLI: where the data is', () => {
  let root: string;
  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'indiestack-cli-where-'));
    const added = await runCli(['user', 'add', 'alice', '--me', 'https://alice.example/', '--password-stdin', '--data-dir', 'site-data'], {
      cwd: root,
      input: 'a long password\n',
    });
    expect(added).toMatchObject({
      code: 0,
      stderr: `indiestack: creating a new database at ${path.join(root, 'site-data', 'indiestack.sqlite')}\n`,
    });
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('--data-dir (before or after the command) picks the database every command uses', async () => {
    const after = await runCli(['user', 'list', '--data-dir', 'site-data'], { cwd: root });
    expect(after).toMatchObject({ code: 0, stderr: '' });
    expect(after.stdout).toContain('alice');
    const before = await runCli(
      [
        '--data-dir',
        path.join(root, 'site-data'),
        'token',
        'issue',
        '--user',
        'alice',
        '--client-id',
        'https://app.example/',
        '--scope',
        'create',
      ],
      { cwd: os.tmpdir() },
    );
    expect(before.code).toBe(0);
    expect(before.stdout).toMatch(/^[A-Za-z0-9_-]{43}\n$/);
  });

  it('a command run where there is no database refuses, names where it looked, and creates nothing', async () => {
    const elsewhere = mkdtempSync(path.join(os.tmpdir(), 'indiestack-cli-elsewhere-'));
    try {
      for (const args of [
        ['user', 'list'],
        ['token', 'issue', '--user', 'alice', '--client-id', 'https://app.example/', '--scope', 'create'],
        ['links', 'alice'],
        ['webmention', 'list'],
      ]) {
        const result = await runCli(args, { cwd: elsewhere });
        expect(result.code).toBe(1);
        expect(result.stdout).toBe('');
        expect(result.stderr).toBe(
          `indiestack: cannot use the database ${path.join(elsewhere, 'data', 'indiestack.sqlite')}: no such file; run this where \`indiestack serve\` runs, or give --data-dir or INDIEWEB_DATABASE_URL\n`,
        );
      }
      expect(existsSync(path.join(elsewhere, 'data', 'indiestack.sqlite'))).toBe(false);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('links uses --base-url like serve does, and warns when no base URL was given', async () => {
    const given = await runCli(['links', 'alice', '--data-dir', 'site-data', '--base-url', 'https://id.example'], { cwd: root });
    expect(given).toMatchObject({ code: 0, stderr: '' });
    expect(given.stdout).toContain('<link rel="micropub" href="https://id.example/indieweb/micropub/">');
    const guessed = await runCli(['links', 'alice', '--data-dir', 'site-data'], { cwd: root });
    expect(guessed.code).toBe(0);
    expect(guessed.stderr).toBe(
      'indiestack: warning: no base URL given, these links point at http://127.0.0.1:8080; pass the public one with --base-url (or INDIEWEB_BASE_URL), as for serve\n',
    );
  });

  it('a misspelled INDIEWEB_ setting is named on stderr with a suggestion, by every command', async () => {
    const result = await runCli(['user', 'list', '--data-dir', 'site-data'], {
      cwd: root,
      env: { INDIEWEB_BASEURL: 'https://id.example' },
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('indiestack: warning: unknown setting INDIEWEB_BASEURL ignored (did you mean INDIEWEB_BASE_URL?)\n');
  });
});

describe('indiestack CLI output read by a pipe that closes early', () => {
  it('`indiestack --help | true` (the reader gone before the first write) ends quietly: no EPIPE stack trace', async () => {
    const { spawn } = await import('node:child_process');
    const { BIN, cleanEnv } = await import('../helpers/cli.js');
    const child = spawn('sh', ['-c', `"${process.execPath}" "${BIN}" --help | true`], {
      env: cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.stdout.resume();
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    expect(code).toBe(0);
    expect(stderr).toBe('');
  });
});
