/**
 * Moderation of new mentions: INDIEWEB_WEBMENTION_MODERATION (`all`,
 * `first-from-domain`), approve / "approve and always allow this domain" /
 * reject in the admin and the CLI, block and allow lists by domain and URL
 * prefix (a blocked source is spam and never fetched), and the count of
 * waiting mentions in the admin navigation.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser, getAdmin, submitAdmin } from '../helpers/admin.js';
import { buildTestApp, TEST_SECRET, type CookieJar, type TestApp } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
import { accepted, drain, linkingPage, PRIVATE_OK, recordOf, startSourceServer, type SourceServer } from '../helpers/webmention.js';

const POST = 'https://alice.example/2026/hello/';

async function publicSources(t: TestApp): Promise<string[]> {
  const response = await t.app.inject({
    method: 'GET',
    url: `/indieweb/webmention/api/mentions.jf2?target=${encodeURIComponent(POST)}&sort-dir=up`,
  });
  return (response.json().children as { 'wm-source': string }[]).map((child) => new URL(child['wm-source']).pathname);
}

describe.each(['all', 'first-from-domain'] as const)('INDIEWEB_WEBMENTION_MODERATION=%s', (policy) => {
  let t: TestApp;
  let source: SourceServer;
  let other: SourceServer;
  let jar: CookieJar;
  const send = async (server: SourceServer, name: string) => {
    server.set(`/${name}`, linkingPage(POST));
    t.clock.advance(1);
    // the second server is reached as localhost: another domain to moderation
    const url = server === other ? server.url(`/${name}`).replace('127.0.0.1', 'localhost') : server.url(`/${name}`);
    const id = await accepted(t, url, POST);
    await drain(t);
    return id;
  };
  const act = (id: string, action: string) => submitAdmin(t, jar, '/webmentions/', `/webmentions/${id}/${action}`, {});

  beforeAll(async () => {
    t = await buildTestApp({ env: { ...PRIVATE_OK, INDIEWEB_WEBMENTION_MODERATION: policy } });
    source = await startSourceServer();
    other = await startSourceServer();
    ({ jar } = await addUser(t, 'alice'));
  });
  afterAll(async () => {
    await t?.close();
    await source?.close();
    await other?.close();
  });

  it('a new mention is verified but waits: not in the API, counted in the navigation, approve makes it public', async () => {
    const id = await send(source, 'first');
    expect((await recordOf(t, id)).status).toBe('verified');
    expect(await publicSources(t)).toEqual([]);
    const page = await getAdmin(t, jar, '/webmentions/');
    expect(page.body).toContain('Webmentions (1 waiting)');
    expect(page.body).toContain('Waiting for your approval');
    const held = await getAdmin(t, jar, '/webmentions/?approval=held');
    expect(held.body).toContain(`/webmentions/${id}/approve`);

    expect((await act(id, 'approve')).statusCode).toBe(303);
    expect(await publicSources(t)).toEqual(['/first']);
    expect((await getAdmin(t, jar, '/webmentions/')).body).not.toContain('waiting)');
  });

  it(
    policy === 'all'
      ? 'a later mention from the same domain waits too'
      : 'a later mention from an approved domain is public at once; another domain waits',
    async () => {
      await send(source, 'second');
      expect(await publicSources(t)).toEqual(policy === 'all' ? ['/first'] : ['/first', '/second']);
      const fromOther = await send(other, 'elsewhere');
      expect((await recordOf(t, fromOther)).approval).toBe('held');
    },
  );

  it('reject keeps a mention out for good; "approve and always allow this domain" lets the next ones through', async () => {
    const rejected = await send(other, 'rejected');
    await act(rejected, 'reject');
    expect((await recordOf(t, rejected)).approval).toBe('rejected');
    expect(await publicSources(t)).not.toContain('/rejected');

    const allowed = await send(other, 'allowed');
    await act(allowed, 'approve-allow');
    const next = await send(other, 'after-allow');
    expect((await recordOf(t, next)).approval).toBe('approved');
    expect(await publicSources(t)).toEqual(expect.arrayContaining(['/allowed', '/after-allow']));
    expect((await getAdmin(t, jar, '/webmention-settings/')).body).toContain(
      '<td data-label="Rule">allow</td><td data-label="Matches">domain</td><td data-label="Value"><code>localhost</code>',
    );
  });
});

describe('block and allow lists', () => {
  let t: TestApp;
  let source: SourceServer;
  let jar: CookieJar;
  let cwd: string;
  const cli = (args: string[]) =>
    runCli(['webmention', ...args], { cwd, env: { INDIEWEB_DATABASE_URL: t.database.url, INDIEWEB_SECRET: TEST_SECRET, ...PRIVATE_OK } });
  const addRule = (action: string, value: string) =>
    submitAdmin(t, jar, '/webmention-settings/', '/webmention-settings/add-rule', { action, value });

  beforeAll(async () => {
    cwd = mkdtempSync(path.join(os.tmpdir(), 'indiestack-wm-moderation-'));
    t = await buildTestApp({ env: PRIVATE_OK });
    source = await startSourceServer();
    ({ jar } = await addUser(t, 'alice'));
  });
  afterAll(async () => {
    await t?.close();
    await source?.close();
    rmSync(cwd, { recursive: true, force: true });
  });

  it('a source under a blocked URL prefix is recorded as spam without being fetched; other paths of the host are not', async () => {
    expect((await addRule('block', source.url('/spammer/'))).statusCode).toBe(303);
    source.set('/spammer/1', linkingPage(POST));
    source.set('/fine', linkingPage(POST));
    const blocked = await accepted(t, source.url('/spammer/1'), POST);
    const fine = await accepted(t, source.url('/fine'), POST);
    await drain(t);
    expect(await recordOf(t, blocked)).toMatchObject({ status: 'spam' });
    expect(source.hits('/spammer/1')).toBe(0);
    expect((await recordOf(t, fine)).status).toBe('verified');
  });

  it('a blocked domain (admin) covers the whole host; removing the rule lets new mentions through again', async () => {
    await addRule('block', '127.0.0.1');
    source.set('/any', linkingPage(POST));
    const id = await accepted(t, source.url('/any'), POST);
    expect((await recordOf(t, id)).status).toBe('spam');
    expect(source.hits('/any')).toBe(0);
    const page = await getAdmin(t, jar, '/webmention-settings/');
    const ruleId = (await t.app.indieweb.webmentionModeration.listAllRules()).find((rule) => rule.value === '127.0.0.1')?.id;
    expect(page.body).toContain(`name="id" value="${ruleId}"`);
    expect((await submitAdmin(t, jar, '/webmention-settings/', '/webmention-settings/remove-rule', { id: ruleId! })).statusCode).toBe(303);
    source.set('/again', linkingPage(POST));
    const again = await accepted(t, source.url('/again'), POST);
    expect((await recordOf(t, again)).status).toBe('pending');
  });

  it('400 on the settings page for a value that is neither a domain nor a URL; nothing is added', async () => {
    const response = await addRule('block', 'not a domain!');
    expect(response.statusCode).toBe(400);
    expect(response.body).toContain('neither a domain nor an http(s) URL');
  });

  it('CLI: block, allow, rules, remove-rule, approve and reject, with one-line errors', async () => {
    const [blocked, allowed, bad, unknownUser] = await Promise.all([
      cli(['block', 'spam.example']),
      cli(['allow', 'https://friend.example/notes/', '--user', 'alice']),
      cli(['block', 'javascript:alert(1)']),
      cli(['allow', 'x.example', '--user', 'nobody']),
    ]);
    expect(blocked.code).toBe(0);
    expect(blocked.stdout).toMatch(/^\S+ {2}block domain spam\.example\n$/);
    expect(allowed.stdout).toMatch(/allow prefix https:\/\/friend\.example\/notes\/\n$/);
    for (const failure of [bad, unknownUser]) {
      expect(failure.code).toBe(1);
      expect(failure.stderr.trim().split('\n')).toHaveLength(1);
    }
    const [serverWide, alices] = await Promise.all([cli(['rules']), cli(['rules', '--user', 'alice'])]);
    expect(serverWide.stdout).toContain('spam.example');
    expect(serverWide.stdout).not.toContain('friend.example');
    expect(alices.stdout).toContain('friend.example');
    const ruleId = blocked.stdout.split(' ')[0]!;
    expect((await cli(['remove-rule', ruleId])).code).toBe(0);
    expect((await cli(['rules'])).stdout).not.toContain('spam.example');

    source.set('/cli', linkingPage(POST));
    const id = await accepted(t, source.url('/cli'), POST);
    await drain(t);
    expect((await cli(['reject', id])).code).toBe(0);
    expect((await recordOf(t, id)).approval).toBe('rejected');
    expect((await cli(['approve', id])).stdout).toBe(`approved ${id}\n`);
    expect((await recordOf(t, id)).approval).toBe('approved');
    expect((await cli(['approve', 'no-such-id'])).code).toBe(1);
  });
});
