/**
 * Webhooks: a real receiver on loopback gets webmention.io's webhook JSON for
 * verified, updated and deleted mentions, signed the Standard Webhooks way
 * (issue 28 F17: webhook-id, webhook-timestamp, webhook-signature over
 * `id.timestamp.body`, checked here with the `standardwebhooks` package as an
 * independent verifier); the body carries the secret only for a webhook marked
 * webmention.io-compatible; http:// URLs are refused except to loopback;
 * failures are retried through the job queue and logged; "send again" and the
 * test button queue deliveries; private addresses need the setting. On SQLite
 * and PostgreSQL (the flag is a column of migration 0014).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { addUser, getAdmin, submitAdmin } from '../helpers/admin.js';
import { buildTestApp, type CookieJar, type TestApp } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';
import { listenOnLoopback } from '../helpers/net.js';
import { accepted, drain, linkingPage, PRIVATE_OK, startSourceServer, type SourceServer } from '../helpers/webmention.js';

const POST = 'https://alice.example/2026/hello/';
const SETTINGS = '/webmention-settings/';

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** The body as the receiver got it, verified by the Standard Webhooks package (throws when the signature or timestamp is wrong). */
function verified(secret: string, { headers, body }: Received): Record<string, unknown> {
  return new Webhook(secret).verify(body, {
    'webhook-id': String(headers['webhook-id']),
    'webhook-timestamp': String(headers['webhook-timestamp']),
    'webhook-signature': String(headers['webhook-signature']),
  }) as Record<string, unknown>;
}

describe.each(DIALECTS)('webhooks on %s', (dialect) => {
  let t: TestApp;
  let source: SourceServer;
  let jar: CookieJar;
  let userId: string;
  let receiver: http.Server;
  let hookUrl: string;
  const received: Received[] = [];
  let answer = 200;

  beforeAll(async () => {
    t = await buildTestApp({ env: PRIVATE_OK, dialect });
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

  const secretOf = async () => (await t.app.indieweb.webhooks.settingsOf(userId))!.secret;

  it('the settings page saves the URL and shows a whsec_ secret, the compatibility box unticked', async () => {
    expect((await submitAdmin(t, jar, SETTINGS, `${SETTINGS}webhook`, { url: hookUrl })).statusCode).toBe(303);
    const page = await getAdmin(t, jar, SETTINGS);
    expect(page.body).toContain(`value="${hookUrl}"`);
    expect(page.body).toMatch(/<code class="webhook-secret">whsec_[A-Za-z0-9+/]{43}=<\/code>/);
    expect(page.body).toMatch(
      /<input type="checkbox" id="webhook-compat" name="webmention_io" value="1" aria-describedby="webhook-compat-hint">/,
    );
  });

  it('a verified mention is POSTed as webmention.io does, without the secret in the body, signed in Standard Webhooks headers', async () => {
    source.set(
      '/reply',
      `<article class="h-entry"><a class="p-author h-card" href="/ann">Ann</a><a class="u-in-reply-to" href="${POST}">re</a><p class="e-content">Hi</p></article>`,
    );
    await accepted(t, source.url('/reply'), POST);
    await drain(t);
    expect(received).toHaveLength(1);
    const delivery = received[0]!;
    const secret = await secretOf();
    const json = verified(secret, delivery);
    expect(json).toMatchObject({
      source: source.url('/reply'),
      target: POST,
      private: false,
      post: { type: 'entry', 'wm-property': 'in-reply-to', 'in-reply-to': POST, author: { name: 'Ann' } },
    });
    expect(json).not.toHaveProperty('secret');
    expect(delivery.body).not.toContain(secret.slice('whsec_'.length, 20));
    expect(delivery.headers['content-type']).toBe('application/json');
    expect(delivery.headers['webhook-id']).toBe((await t.app.indieweb.webhooks.list(userId))[0]!.id);
    expect(Math.abs(Number(delivery.headers['webhook-timestamp']) - t.clock.now().getTime() / 1000)).toBeLessThan(2);
    expect(delivery.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    // the old body-only signature is gone: it could be replayed forever
    expect(delivery.headers['x-indiestack-signature']).toBeUndefined();
  });

  it('a replay is refused by the receiver: a changed timestamp breaks the signature, and the same delivery 10 minutes later is too old', async () => {
    const delivery = received[0]!;
    const secret = await secretOf();
    const moved = String(Number(delivery.headers['webhook-timestamp']) + 60);
    expect(() => verified(secret, { ...delivery, headers: { ...delivery.headers, 'webhook-timestamp': moved } })).toThrow(
      /No matching signature found/,
    );
    vi.useFakeTimers({ now: Date.now() + 10 * 60_000, toFake: ['Date'] });
    try {
      expect(() => verified(secret, delivery)).toThrow(/Message timestamp too old/);
    } finally {
      vi.useRealTimers();
    }
  });

  it('reprocessing a mention still linking is an update; a source that answers 410 is a deletion', async () => {
    const [mention] = (await t.app.indieweb.webmention.list({ status: 'verified' })).items;
    await t.app.indieweb.webmention.reprocess(mention!.id);
    await drain(t);
    const secret = await secretOf();
    expect(verified(secret, received.at(-1)!)).toMatchObject({ source: source.url('/reply'), post: { type: 'entry' } });
    source.set('/reply', { status: 410, body: 'gone' });
    await t.app.indieweb.webmention.reprocess(mention!.id);
    await drain(t);
    const deleted = verified(secret, received.at(-1)!);
    expect(deleted).toMatchObject({ source: source.url('/reply'), target: POST, deleted: true });
    expect(deleted.post).toBeUndefined();
    expect(received).toHaveLength(3);
  });

  it('a backfed mention (from a silo poll, through receiveVerified) fires the webhook as a received one does; withdrawn, the deleted one', async () => {
    const before = received.length;
    // what syndication.poll hands the webmention service for a like on a Bluesky copy (src/syndication/backfeed.ts)
    const likeSource = 'https://bsky.app/profile/did:plc:alice/post/3copy#liked-by-did:plc:bob';
    const like = (published: string | null) =>
      t.app.indieweb.webmention.receiveVerified({
        source: likeSource,
        target: POST,
        origin: 'bluesky:target1',
        mention: {
          type: 'like',
          author: { name: 'Bob', url: 'https://bsky.app/profile/bob.test', photo: null },
          contentText: null,
          contentHtml: null,
          published,
        },
      });
    const { record } = await like('2026-11-29T10:00:00.000Z');
    await drain(t);
    const secret = await secretOf();
    expect(received).toHaveLength(before + 1);
    expect(verified(secret, received.at(-1)!)).toMatchObject({
      source: likeSource,
      target: POST,
      private: false,
      post: { type: 'entry', 'wm-property': 'like-of', 'like-of': POST, author: { name: 'Bob', url: 'https://bsky.app/profile/bob.test' } },
    });
    // the same response polled again changes nothing and sends nothing
    await like(null);
    await drain(t);
    expect(received).toHaveLength(before + 1);
    // "Check again" (admin, CLI) fetches no silo URL: the backfed like stays verified and nothing is sent
    expect(await t.app.indieweb.webmention.reprocess(record.id)).toEqual({ status: 'verified' });
    await drain(t);
    expect(received).toHaveLength(before + 1);
    // the like undone on the silo: withdrawn at the next poll, the deleted webhook
    await t.app.indieweb.webmention.withdrawVerified(record.id, 'the like was undone on bluesky');
    await drain(t);
    expect(received).toHaveLength(before + 2);
    expect(verified(secret, received.at(-1)!)).toMatchObject({ source: likeSource, target: POST, deleted: true });
  });

  it('a failing receiver is retried with backoff under the same webhook-id and a new timestamp; the log shows status, attempts and the last error; send again delivers', async () => {
    answer = 500;
    const before = received.length;
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
    const attempts = received.slice(before);
    expect(attempts).toHaveLength(3);
    expect(new Set(attempts.map((attempt) => attempt.headers['webhook-id']))).toEqual(new Set([latest!.id]));
    expect(Number(attempts[1]!.headers['webhook-timestamp'])).toBeGreaterThanOrEqual(
      Number(attempts[0]!.headers['webhook-timestamp']) + 31,
    );
    const secret = await secretOf();
    for (const attempt of attempts) expect(verified(secret, attempt)).toMatchObject({ source: 'https://example.com/a-post' });
  });

  it('marked webmention.io-compatible on the settings page: the body carries the secret first, and the headers still verify', async () => {
    expect((await submitAdmin(t, jar, SETTINGS, `${SETTINGS}webhook`, { url: hookUrl, webmention_io: '1' })).statusCode).toBe(303);
    const page = await getAdmin(t, jar, SETTINGS);
    expect(page.body).toMatch(/name="webmention_io" value="1" aria-describedby="webhook-compat-hint" checked>/);
    expect((await submitAdmin(t, jar, SETTINGS, `${SETTINGS}webhook-test`, {})).statusCode).toBe(303);
    await drain(t);
    const delivery = received.at(-1)!;
    const secret = await secretOf();
    expect(Object.keys(JSON.parse(delivery.body))[0]).toBe('secret');
    expect(verified(secret, delivery)).toMatchObject({ secret, source: 'https://example.com/a-post' });
    // unticked again: the secret leaves the body
    expect((await submitAdmin(t, jar, SETTINGS, `${SETTINGS}webhook`, { url: hookUrl })).statusCode).toBe(303);
    expect((await submitAdmin(t, jar, SETTINGS, `${SETTINGS}webhook-test`, {})).statusCode).toBe(303);
    await drain(t);
    expect(verified(secret, received.at(-1)!)).not.toHaveProperty('secret');
  });

  it("400 for a webhook URL that is not http(s), or http:// to another host; http:// to loopback and https:// are saved; 404 for another account's delivery", async () => {
    const bad = await submitAdmin(t, jar, SETTINGS, `${SETTINGS}webhook`, { url: 'javascript:alert(1)' });
    expect(bad.statusCode).toBe(400);
    for (const url of [
      'http://hooks.example/wm',
      'http://192.168.1.10/hook',
      'http://127.0.0.1.nip.io/hook',
      'http://[::ffff:7f00:1]/hook',
    ]) {
      const clear = await submitAdmin(t, jar, SETTINGS, `${SETTINGS}webhook`, { url });
      expect([url, clear.statusCode]).toEqual([url, 400]);
      expect(clear.body).toContain('the webhook URL must use https://');
    }
    expect((await t.app.indieweb.webhooks.settingsOf(userId))!.url).toBe(hookUrl);
    for (const url of ['https://hooks.example/wm', 'http://localhost:8080/hook', 'http://[::1]:8080/hook', hookUrl]) {
      expect([url, (await submitAdmin(t, jar, SETTINGS, `${SETTINGS}webhook`, { url })).statusCode]).toEqual([url, 303]);
    }
    const bob = await addUser(t, 'bob');
    const [aliceDelivery] = await t.app.indieweb.webhooks.list(userId);
    const foreign = await submitAdmin(t, bob.jar, SETTINGS, `${SETTINGS}send-again`, { id: aliceDelivery!.id });
    expect(foreign.statusCode).toBe(404);
  });

  it('an http:// webhook to another host saved before the rule is never sent in clear: the delivery fails, named, without a retry', async () => {
    const accounts = t.app.indieweb.webhooks;
    const before = received.length;
    // as an earlier version stored it
    const { createWebmentionAccountsRepository } = await import('../../src/storage/repositories/webmention-accounts.js');
    const repository = createWebmentionAccountsRepository(t.database.db);
    const current = (await repository.get(userId))!;
    await repository.setWebhook(
      userId,
      { url: 'http://hooks.example/wm', keyId: current.webhookKeyId, webmentionIo: true },
      new Date().toISOString(),
    );
    // the newest delivery in the log
    t.clock.advance(60);
    await accounts.sendTest(userId);
    await drain(t);
    t.clock.advance(3600);
    await drain(t);
    const [latest] = await accounts.list(userId);
    expect(latest).toMatchObject({ status: 'failed', attempts: 1, httpStatus: null });
    expect(latest!.lastError).toContain('must use https://');
    expect(received.length).toBe(before);
    await repository.setWebhook(userId, { url: hookUrl, keyId: current.webhookKeyId, webmentionIo: false }, new Date().toISOString());
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
