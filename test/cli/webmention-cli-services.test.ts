/**
 * Issue 29: the webmention commands run the server's own services
 * (src/cli/webmention-feature.ts), so they cannot drift from the admin.
 * Before, `webmention approve` built its moderation service without the
 * webhook hook (an approval from the CLI sent no webhook), and `webmention
 * reprocess` re-implemented processing (no webhook for a mention that went
 * away, any error's message stored as the public reason). Run as the built
 * bin against the database of a running app, whose worker delivers what
 * the CLI queues, to a real receiver on loopback.
 */
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser, postAdmin, getAdmin, csrfOf } from '../helpers/admin.js';
import { buildTestApp, type CookieJar, type TestApp } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
import { listenOnLoopback } from '../helpers/net.js';
import { accepted, drain, linkingPage, PRIVATE_OK, recordOf, startSourceServer, type SourceServer } from '../helpers/webmention.js';

const POST = 'https://alice.example/2026/hello/';

describe('webmention commands through the server services (issue 29)', () => {
  let t: TestApp;
  let source: SourceServer;
  let jar: CookieJar;
  let cwd: string;
  let receiver: http.Server;
  const received: Record<string, unknown>[] = [];
  const env = { ...PRIVATE_OK, INDIEWEB_WEBMENTION_MODERATION: 'all' };
  const cli = (args: string[]) => runCli(['webmention', ...args], { cwd, env: { INDIEWEB_DATABASE_URL: t.database.url, ...env } });
  const mention = async (name: string) => {
    source.set(`/${name}`, linkingPage(POST));
    const id = await accepted(t, source.url(`/${name}`), POST);
    await drain(t);
    return id;
  };

  beforeAll(async () => {
    cwd = mkdtempSync(path.join(os.tmpdir(), 'indiestack-wm-services-'));
    t = await buildTestApp({ env });
    source = await startSourceServer();
    jar = (await addUser(t, 'alice')).jar;
    receiver = http.createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      request.on('end', () => {
        received.push(JSON.parse(body) as Record<string, unknown>);
        response.writeHead(200).end();
      });
    });
    await listenOnLoopback(receiver, 0);
    const page = await getAdmin(t, jar, '/webmention-settings/');
    const saved = await postAdmin(t, jar, '/webmention-settings/webhook', {
      _csrf: csrfOf(page),
      url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
    });
    expect(saved.statusCode).toBe(303);
  });
  afterAll(async () => {
    await t?.close();
    await source?.close();
    await new Promise((resolve) => receiver?.close(resolve));
    rmSync(cwd, { recursive: true, force: true });
  });

  it('an approval from the CLI delivers the webhook the admin approval delivers', async () => {
    const fromAdmin = await mention('admin');
    const fromCli = await mention('cli');
    expect((await recordOf(t, fromAdmin)).approval).toBe('held');
    expect((await recordOf(t, fromCli)).approval).toBe('held');
    expect(received).toHaveLength(0);

    const page = await getAdmin(t, jar, '/webmentions/');
    expect((await postAdmin(t, jar, `/webmentions/${fromAdmin}/approve`, { _csrf: csrfOf(page) })).statusCode).toBe(303);
    await drain(t);
    expect(received).toHaveLength(1);

    expect(await cli(['approve', fromCli])).toMatchObject({ code: 0, stdout: `approved ${fromCli}\n`, stderr: '' });
    // the CLI queues with the real clock; the app's clock is a manual one that started earlier
    t.clock.advance(120);
    await drain(t);
    expect(received).toHaveLength(2);
    const [admin, fromCliDelivery] = received as [Record<string, unknown>, Record<string, unknown>];
    expect(admin).toMatchObject({ source: source.url('/admin'), target: POST });
    expect(fromCliDelivery).toMatchObject({ source: source.url('/cli'), target: POST });
    expect(Object.keys(fromCliDelivery).sort()).toEqual(Object.keys(admin).sort());
  });

  it('a reprocess from the CLI that finds the source gone fails the mention with the service reason and delivers the deleted webhook', async () => {
    const id = await mention('going');
    expect(await cli(['approve', id])).toMatchObject({ code: 0 });
    t.clock.advance(120);
    await drain(t);
    const before = received.length;
    source.set('/going', { status: 410, body: 'gone' });
    const result = await cli(['reprocess', id]);
    expect(result).toMatchObject({ code: 1, stdout: `${id}  failed: source is gone (410)\n`, stderr: '' });
    expect(await recordOf(t, id)).toMatchObject({ status: 'failed', error: 'source is gone (410)' });
    t.clock.advance(120);
    await drain(t);
    expect(received).toHaveLength(before + 1);
    expect(received.at(-1)).toMatchObject({ source: source.url('/going'), target: POST, deleted: true });
  });

  it('spam and reprocess of an unknown id: one line on stderr, exit 1', async () => {
    expect(await cli(['spam', 'no-such-mention'])).toMatchObject({
      code: 1,
      stdout: '',
      stderr: 'indiestack: no webmention no-such-mention\n',
    });
    expect(await cli(['reprocess', 'no-such-mention'])).toMatchObject({
      code: 1,
      stdout: '',
      stderr: 'indiestack: no webmention no-such-mention\n',
    });
  });
});
