/**
 * The per-account read token of the webmention.io-compatible API: made and
 * rotated in the admin and by `indiestack webmention token`, stored only as
 * its SHA-256, and a rotated token stops working at once.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser, getAdmin, submitAdmin, unescapeHtml } from '../../helpers/admin.js';
import { buildTestApp, TEST_SECRET, type CookieJar, type TestApp } from '../../helpers/app.js';
import { runCli } from '../../helpers/cli.js';

const SETTINGS = '/webmention-settings/';

describe('webmention API read token', () => {
  let t: TestApp;
  let jar: CookieJar;
  let cwd: string;
  const cli = (args: string[], env: Record<string, string> = {}) =>
    runCli(['webmention', 'token', ...args], { cwd, env: { INDIEWEB_DATABASE_URL: t.database.url, INDIEWEB_SECRET: TEST_SECRET, ...env } });
  const status = async (token: string) =>
    (await t.app.inject({ method: 'GET', url: `/indieweb/webmention/api/mentions.jf2?token=${token}` })).statusCode;
  const shownToken = async () => {
    const page = await getAdmin(t, jar, SETTINGS);
    expect(page.statusCode).toBe(200);
    return /<code class="token">([^<]+)<\/code>/.exec(page.body)?.[1];
  };

  beforeAll(async () => {
    cwd = mkdtempSync(path.join(os.tmpdir(), 'indiestack-wm-token-'));
    t = await buildTestApp();
    ({ jar } = await addUser(t, 'alice'));
    await addUser(t, 'bob');
  });
  afterAll(async () => {
    await t?.close();
    rmSync(cwd, { recursive: true, force: true });
  });

  it('admin: no token at first; "Make a token" shows one that opens the API, and only its SHA-256 is stored', async () => {
    const first = await getAdmin(t, jar, SETTINGS);
    expect(first.body).toContain('no API token yet');
    const made = await submitAdmin(t, jar, SETTINGS, `${SETTINGS}rotate-token`, {});
    expect(made.statusCode).toBe(303);
    const token = await shownToken();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await status(token!)).toBe(200);
    const rows = await t.database.db.selectFrom('indieweb_webmention_account').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(token);
    expect(rows.map((row) => row.read_token_hash)).toContain(createHash('sha256').update(token!).digest('base64url'));
  });

  it('CLI: prints the same token alone on stdout; --rotate prints a new one and the old one is refused at once', async () => {
    const shown = await shownToken();
    const printed = await cli(['--user', 'alice']);
    expect(printed.code).toBe(0);
    expect(printed.stdout).toBe(`${shown}\n`);

    const rotated = await cli(['--user', 'alice', '--rotate']);
    expect(rotated.code).toBe(0);
    const fresh = rotated.stdout.trim();
    expect(rotated.stdout).toBe(`${fresh}\n`);
    expect(fresh).not.toBe(shown);
    expect(await status(shown!)).toBe(401);
    expect(await status(fresh)).toBe(200);
    expect(await shownToken()).toBe(fresh);
  });

  it('CLI: makes a token on first use; an unknown user or another server secret is one line on stderr and exit 1', async () => {
    const bob = await cli(['--user', 'bob']);
    expect(bob.code).toBe(0);
    expect(await status(bob.stdout.trim())).toBe(200);

    const unknown = await cli(['--user', 'nobody']);
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr.trim().split('\n')).toHaveLength(1);

    const otherSecret = await cli(['--user', 'bob'], { INDIEWEB_SECRET: 'another-secret-that-is-long-enough-for-this' });
    expect(otherSecret.code).toBe(1);
    expect(otherSecret.stdout).toBe('');
    expect(otherSecret.stderr).toMatch(/--rotate/);
  });

  it("admin: rotating makes a new token and the old one stops working; one account's token never opens another's", async () => {
    const before = await shownToken();
    await submitAdmin(t, jar, SETTINGS, `${SETTINGS}rotate-token`, {});
    const after = await shownToken();
    expect(after).not.toBe(before);
    expect(await status(before!)).toBe(401);
    expect(await status(after!)).toBe(200);
    const page = await getAdmin(t, jar, SETTINGS);
    expect(unescapeHtml(page.body)).toContain(`/indieweb/webmention/api/mentions.jf2?token=${after}`);
  });
});
