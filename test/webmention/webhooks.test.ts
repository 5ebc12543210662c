/**
 * Webhooks: a real receiver on loopback gets webmention.io's webhook JSON for
 * verified, updated and deleted mentions, signed with HMAC-SHA256 over the
 * body; failures are retried through the job queue and logged; "send again"
 * and the test button queue deliveries; private addresses need the setting.
 */
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser, getAdmin, submitAdmin } from '../helpers/admin.js';
import { buildTestApp, type CookieJar, type TestApp } from '../helpers/app.js';
import { listenOnLoopback } from '../helpers/net.js';
import { accepted, drain, linkingPage, PRIVATE_OK, startSourceServer, type SourceServer } from '../helpers/webmention.js';

const POST = 'https://alice.example/2026/hello/';
const SETTINGS = '/webmention-settings/';

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

describe('webhooks', () => {
  let t: TestApp;
  let source: SourceServer;
  let jar: CookieJar;
  let userId: string;
  let receiver: http.Server;
  let hookUrl: string;
  const received: Received[] = [];
  let answer = 200;

  beforeAll(async () => {
    t = await buildTestApp({ env: PRIVATE_OK });
    source = await startSourceServer();
    const alice = await addUser(t, 'alice');
    jar = alice.jar;
    userId = alice.user.id;
    receiver = http.createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      request.on('end', () => {
        received.push({ headers: request.headers, body });
        response.writeHead(answer).end();
      });
    });
    await listenOnLoopback(receiver, 0);
    hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  });
  afterAll(async () => {
    await t?.close();
    await source?.close();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  it('the settings page saves the URL and shows a secret', async () => {
    expect((await submitAdmin(t, jar, SETTINGS, `${SETTINGS}webhook`, { url: hookUrl })).statusCode).toBe(303);
    const page = await getAdmin(t, jar, SETTINGS);
    expect(page.body).toContain(`value="${hookUrl}"`);
    expect(page.body).toMatch(/<code class="webhook-secret">[A-Za-z0-9_-]{43}<\/code>/);
  });

  it('a verified mention is POSTed as webmention.io does, signed with HMAC-SHA256 over the body', async () => {
    source.set('/reply', `<article class="h-entry"><a class="p-author h-card" href="/ann">Ann</a><a class="u-in-reply-to" href="${POST}">re</a><p class="e-content">Hi</p></article>`);
    await accepted(t, source.url('/reply'), POST);
    await drain(t);
    expect(received).toHaveLength(1);
    const { headers, body } = received[0]!;
    const { secret } = (await t.app.indieweb.webhooks.settingsOf(userId))!;
    const json = JSON.parse(body);
    expect(json).toMatchObject({ secret, source: source.url('/reply'), target: POST, private: false, post: { type: 'entry', 'wm-property': 'in-reply-to', 'in-reply-to': POST, author: { name: 'Ann' } } });
    expect(headers['content-type']).toBe('application/json');
    expect(headers['x-indiestack-signature']).toBe(`sha256=${createHmac('sha256', secret).update(body).digest('hex')}`);
  });

  it('reprocessing a mention still linking is an update; a source that answers 410 is a deletion', async () => {
    const [mention] = (await t.app.indieweb.webmention.list({ status: 'verified' })).items;
    await t.app.indieweb.webmention.reprocess(mention!.id);
    await drain(t);
    expect(JSON.parse(received.at(-1)!.body)).toMatchObject({ source: source.url('/reply'), post: { type: 'entry' } });
    source.set('/reply', { status: 410, body: 'gone' });
    await t.app.indieweb.webmention.reprocess(mention!.id);
    await drain(t);
    const deleted = JSON.parse(received.at(-1)!.body);
    expect(deleted).toMatchObject({ source: source.url('/reply'), target: POST, deleted: true });
    expect(deleted.post).toBeUndefined();
    expect(received).toHaveLength(3);
  });

  it('a failing receiver is retried with backoff; the log shows status, attempts and the last error; send again delivers', async () => {
    answer = 500;
    t.clock.advance(5);
    expect((await submitAdmin(t, jar, SETTINGS, `${SETTINGS}webhook-test`, {})).statusCode).toBe(303);
    await drain(t);
    let [latest] = await t.app.indieweb.webhooks.list(userId);
    expect(latest).toMatchObject({ event: 'test', status: 'failed', attempts: 1, httpStatus: 500, lastError: 'answered 500' });
    // the retry waits for its backoff
    t.clock.advance(31);
    await drain(t);
    [latest] = await t.app.indieweb.webhooks.list(userId);
    expect(latest!.attempts).toBe(2);
    const page = await getAdmin(t, jar, SETTINGS);
    expect(page.body).toContain('answered 500');

    answer = 200;
    expect((await submitAdmin(t, jar, SETTINGS, `${SETTINGS}send-again`, { id: latest!.id })).statusCode).toBe(303);
    await drain(t);
    [latest] = await t.app.indieweb.webhooks.list(userId);
    expect(latest).toMatchObject({ status: 'delivered', httpStatus: 200, attempts: 3 });
  });

  it('400 for a webhook URL that is not http(s); 404 for another account\'s delivery', async () => {
    const bad = await submitAdmin(t, jar, SETTINGS, `${SETTINGS}webhook`, { url: 'javascript:alert(1)' });
    expect(bad.statusCode).toBe(400);
    const bob = await addUser(t, 'bob');
    const [aliceDelivery] = await t.app.indieweb.webhooks.list(userId);
    const foreign = await submitAdmin(t, bob.jar, SETTINGS, `${SETTINGS}send-again`, { id: aliceDelivery!.id });
    expect(foreign.statusCode).toBe(404);
  });
});

describe('webhooks without INDIEWEB_ALLOW_PRIVATE_NETWORKS', () => {
  it('a webhook on a loopback address is refused by the outbound guard and logged as failed', async () => {
    const t = await buildTestApp();
    try {
      const { user } = await addUser(t, 'carol');
      await t.app.indieweb.webhooks.setUrl(user.id, 'http://127.0.0.1:9/hook');
      await t.app.indieweb.webhooks.sendTest(user.id);
      await drain(t);
      const [delivery] = await t.app.indieweb.webhooks.list(user.id);
      expect(delivery).toMatchObject({ status: 'failed', httpStatus: null });
      expect(delivery!.lastError).toMatch(/refus/i);
    } finally {
      await t.close();
    }
  });
});
