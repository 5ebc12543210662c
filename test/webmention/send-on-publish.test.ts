/**
 * Sending webmentions on publish, end to end: entries created, updated and
 * deleted through the Micropub endpoint (database handler), real receivers on
 * loopback (target pages advertising an endpoint, an endpoint recording what
 * it got, one failing first), the job queue drained by hand, the deploy
 * signal and the delay, and the admin's Sent webmentions page.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DialectName } from '../../src/storage/connect.js';
import { buildTestApp } from '../helpers/app.js';
import { sessionFor, testUsers } from '../helpers/users.js';
import { HAS_POSTGRES } from '../helpers/databases.js';
import { listenOnLoopback } from '../helpers/net.js';
import { PRIVATE_OK } from '../helpers/webmention.js';

interface Received {
  readonly endpoint: string;
  readonly source: string;
  readonly target: string;
}

/** Target pages (`/page/NAME` advertises `/endpoint/NAME`) and endpoints recording each POST; `/endpoint/flaky` fails first. */
async function startReceivers() {
  const received: Received[] = [];
  const failFirst = new Map<string, number>([['flaky', 1]]);
  const server = http.createServer((request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const [, kind, name] = url.pathname.split('/');
    if (request.method === 'GET' && kind === 'page') {
      if (name === 'silent') return response.writeHead(200, { 'content-type': 'text/html' }).end('<p>no endpoint here</p>');
      return response
        .writeHead(200, { 'content-type': 'text/html' })
        .end(`<html><head><link rel="webmention" href="/endpoint/${name}"></head><body>${name}</body></html>`);
    }
    if (request.method === 'POST' && kind === 'endpoint') {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      request.on('end', () => {
        const fields = new URLSearchParams(body);
        const failures = failFirst.get(name ?? '') ?? 0;
        if (failures > 0) {
          failFirst.set(name!, failures - 1);
          return response.writeHead(503).end('busy');
        }
        if (name === 'refuses') return response.writeHead(400).end('no');
        received.push({ endpoint: name!, source: fields.get('source') ?? '', target: fields.get('target') ?? '' });
        response.writeHead(202).end();
      });
      return;
    }
    response.writeHead(404).end();
  });
  await listenOnLoopback(server, 0);
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    received,
    page: (name: string) => `${origin}/page/${name}`,
    /** What reached the endpoints since the last call. */
    take(): Received[] {
      return received.splice(0, received.length);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

type Receivers = Awaited<ReturnType<typeof startReceivers>>;

async function appFor(env: Record<string, string>, dialect: DialectName = 'sqlite') {
  const t = await buildTestApp({ dialect, env: { ...PRIVATE_OK, INDIEWEB_MICROPUB_HANDLER: 'database', ...env } });
  const alice = await testUsers(t).addUser({ name: 'alice', me: ['https://alice.example/'], password: 'alice password 1' });
  const token = async (scope: string) =>
    (
      await t.app.indieweb.tokens.issue({
        userId: alice.id,
        clientId: 'https://app.example/',
        me: 'https://alice.example/',
        scope,
        expiresIn: 3600,
      })
    ).token;
  const micropubToken = await token('create update delete undelete');
  const micropub = async (body: Record<string, unknown>) =>
    t.app.inject({
      method: 'POST',
      url: '/indieweb/micropub/',
      headers: { authorization: `Bearer ${micropubToken}`, 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });
  const create = async (properties: Record<string, unknown[]>) => {
    const response = await micropub({ type: ['h-entry'], properties });
    expect(response.statusCode).toBe(201);
    return response.headers.location as string;
  };
  const sent = () => t.database.db.selectFrom('indieweb_webmention_outgoing').selectAll().orderBy('target').execute();
  return { t, alice, token, micropub, create, sent };
}

const pairs = (received: readonly Received[]) => received.map((r) => `${r.endpoint} ${r.target.split('/').at(-1)}`).sort();

describe('sending webmentions on publish (database handler: on at once)', () => {
  let receivers: Receivers;
  let app: Awaited<ReturnType<typeof appFor>>;

  beforeAll(async () => {
    receivers = await startReceivers();
    app = await appFor({});
  });
  afterAll(async () => {
    await app.t.close();
    await receivers.close();
  });
  afterEach(() => receivers.take());

  it('create: each linked page gets a webmention from the entry (reply, like, content links), syndication does not', async () => {
    const url = await app.create({
      'in-reply-to': [receivers.page('reply')],
      'like-of': [{ type: ['h-cite'], properties: { url: [receivers.page('liked')] } }],
      content: [
        { html: `<p>See <a href="${receivers.page('linked')}#part">this</a> and <a href="${receivers.page('silent')}">that</a>.</p>` },
      ],
      syndication: [receivers.page('syndicated')],
    });
    expect(await app.t.app.indieweb.jobs.drain()).toBe(4);
    const got = receivers.take();
    expect(pairs(got)).toEqual(['liked liked', 'linked linked', 'reply reply']);
    expect(new Set(got.map((r) => r.source))).toEqual(new Set([url]));
    const rows = await app.sent();
    expect(rows.map((row) => [row.target.split('/').at(-1), row.status, row.http_status, row.linked])).toEqual([
      ['liked', 'sent', 202, 1],
      ['linked', 'sent', 202, 1],
      ['reply', 'sent', 202, 1],
      ['silent', 'no-endpoint', null, 1],
    ]);
  });

  it('update: current targets again, a removed target once (and not on the next update)', async () => {
    const url = await app.create({
      content: [{ html: `<a href="${receivers.page('kept')}">a</a> <a href="${receivers.page('dropped')}">b</a>` }],
    });
    await app.t.app.indieweb.jobs.drain();
    expect(pairs(receivers.take())).toEqual(['dropped dropped', 'kept kept']);

    const update = { action: 'update', url, replace: { content: [{ html: `only <a href="${receivers.page('kept')}">a</a>` }] } };
    expect((await app.micropub(update)).statusCode).toBe(204);
    await app.t.app.indieweb.jobs.drain();
    // the removed page is told too, so it can drop the mention
    expect(pairs(receivers.take())).toEqual(['dropped dropped', 'kept kept']);
    const dropped = (await app.sent()).find((row) => row.target === receivers.page('dropped'))!;
    expect([dropped.status, dropped.linked]).toEqual(['sent', 0]);

    expect((await app.micropub(update)).statusCode).toBe(204);
    await app.t.app.indieweb.jobs.drain();
    expect(pairs(receivers.take())).toEqual(['kept kept']);
  });

  it('delete: every page the entry linked to is told; a draft sends nothing', async () => {
    const url = await app.create({
      'in-reply-to': [receivers.page('gone')],
      content: ['plain text link ' + receivers.page('textual') + '.'],
    });
    await app.t.app.indieweb.jobs.drain();
    expect(pairs(receivers.take())).toEqual(['gone gone', 'textual textual']);
    expect((await app.micropub({ action: 'delete', url })).statusCode).toBe(204);
    await app.t.app.indieweb.jobs.drain();
    const got = receivers.take();
    expect(pairs(got)).toEqual(['gone gone', 'textual textual']);
    expect(got.every((r) => r.source === url)).toBe(true);

    await app.create({ 'post-status': ['draft'], 'in-reply-to': [receivers.page('secret')] });
    expect(await app.t.app.indieweb.jobs.drain()).toBe(0);
    expect((await app.sent()).some((row) => row.target === receivers.page('secret'))).toBe(false);
  });

  it('retries an endpoint that fails first (with backoff), and records a refusal without retrying', async () => {
    await app.create({ content: [{ html: `<a href="${receivers.page('flaky')}">x</a> <a href="${receivers.page('refuses')}">y</a>` }] });
    await app.t.app.indieweb.jobs.drain();
    expect(receivers.take()).toEqual([]);
    let rows = await app.sent();
    const flaky = () => rows.find((row) => row.target === receivers.page('flaky'))!;
    const refuses = () => rows.find((row) => row.target === receivers.page('refuses'))!;
    expect([flaky().status, flaky().error]).toEqual(['queued', 'endpoint answered 503 (will retry)']);
    expect([refuses().status, refuses().http_status, refuses().error]).toEqual(['failed', 400, 'endpoint answered 400']);
    // not due before the backoff
    expect(await app.t.app.indieweb.jobs.drain()).toBe(0);
    app.t.clock.advance(31);
    expect(await app.t.app.indieweb.jobs.drain()).toBe(1);
    expect(pairs(receivers.take())).toEqual(['flaky flaky']);
    rows = await app.sent();
    expect([flaky().status, Number(flaky().attempts), flaky().error]).toEqual(['sent', 2, null]);
  });

  it('shows the outcome per target on the admin page', async () => {
    const jar = await sessionFor(app.t, app.alice, 'alice password 1');
    const page = await app.t.app.inject({ method: 'GET', url: '/indieweb/admin/webmentions/sent/', headers: { cookie: jar.header() } });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(receivers.page('refuses'));
    expect(page.body).toMatch(/<td>failed<\/td>\s*<td>400<\/td>\s*<td>1<\/td>\s*<td>endpoint answered 400<\/td>/);
    expect(page.body).toContain('link removed');
    const list = await app.t.app.inject({ method: 'GET', url: '/indieweb/admin/webmentions/', headers: { cookie: jar.header() } });
    expect(list.body).toContain('/indieweb/admin/webmentions/sent/');
  });
});

describe('sending waits for the deploy signal or the delay', () => {
  let receivers: Receivers;
  beforeAll(async () => {
    receivers = await startReceivers();
  });
  afterAll(async () => receivers.close());

  it('deploy: nothing is sent until POST /indieweb/webmention/deploy with a deploy-scope token of the account', async () => {
    const app = await appFor({ INDIEWEB_WEBMENTION_SEND_ON_PUBLISH: 'deploy' });
    try {
      const url = await app.create({ 'repost-of': [receivers.page('shared')] });
      expect(await app.t.app.indieweb.jobs.drain()).toBe(0);
      expect((await app.sent()).map((row) => [row.status, row.awaiting_deploy])).toEqual([['waiting', 1]]);

      const deploy = (headers: Record<string, string>) => app.t.app.inject({ method: 'POST', url: '/indieweb/webmention/deploy', headers });
      const none = await deploy({});
      expect([none.statusCode, none.body, none.headers['www-authenticate']]).toEqual([401, 'authentication error', 'Bearer']);
      const wrongScope = await deploy({ authorization: `Bearer ${await app.token('create')}` });
      expect([wrongScope.statusCode, wrongScope.body]).toEqual([403, 'authorization error']);
      expect(await app.t.app.indieweb.jobs.drain()).toBe(0);

      // another account's signal releases nothing of alice's
      const bob = await testUsers(app.t).addUser({ name: 'bob', me: ['https://bob.example/'], password: 'bob password 1' });
      const bobs = (
        await app.t.app.indieweb.tokens.issue({
          userId: bob.id,
          clientId: 'https://ci.example/',
          me: 'https://bob.example/',
          scope: 'deploy',
          expiresIn: 3600,
        })
      ).token;
      expect((await deploy({ authorization: `Bearer ${bobs}` })).json()).toEqual({ released: 0 });

      const released = await deploy({ authorization: `Bearer ${await app.token('deploy')}` });
      expect([released.statusCode, released.json()]).toEqual([200, { released: 1 }]);
      expect(await app.t.app.indieweb.jobs.drain()).toBe(1);
      expect(receivers.take()).toEqual([{ endpoint: 'shared', source: url, target: receivers.page('shared') }]);
      // a second signal has nothing left to release
      expect((await deploy({ authorization: `Bearer ${await app.token('deploy')}` })).json()).toEqual({ released: 0 });
      expect((await app.t.app.inject({ method: 'GET', url: '/indieweb/webmention/deploy' })).statusCode).toBe(405);
    } finally {
      await app.t.close();
    }
  });

  it('delay: waiting sends go after INDIEWEB_WEBMENTION_SEND_DELAY seconds without a signal', async () => {
    const app = await appFor({ INDIEWEB_WEBMENTION_SEND_ON_PUBLISH: 'deploy', INDIEWEB_WEBMENTION_SEND_DELAY: '600' });
    try {
      await app.create({ 'bookmark-of': [receivers.page('later')] });
      expect(await app.t.app.indieweb.jobs.drain()).toBe(0);
      app.t.clock.advance(599);
      expect(await app.t.app.indieweb.jobs.drain()).toBe(0);
      app.t.clock.advance(2);
      expect(await app.t.app.indieweb.jobs.drain()).toBe(1);
      expect(pairs(receivers.take())).toEqual(['later later']);
      expect((await app.sent()).map((row) => [row.status, row.awaiting_deploy])).toEqual([['sent', 0]]);
    } finally {
      await app.t.close();
    }
  });
});

describe('sending on publish: the setting and the outbound guard', () => {
  it('auto is off for the in-memory handler: nothing is queued', async () => {
    const app = await appFor({ INDIEWEB_MICROPUB_HANDLER: 'memory' });
    try {
      await app.create({ 'in-reply-to': ['https://elsewhere.example/post'] });
      expect(await app.sent()).toEqual([]);
      expect(await app.t.app.indieweb.jobs.drain()).toBe(0);
    } finally {
      await app.t.close();
    }
  });

  it('every request goes through the outbound guard: a loopback target is refused without private networks allowed', async () => {
    const receivers = await startReceivers();
    const app = await appFor({ INDIEWEB_ALLOW_PRIVATE_NETWORKS: 'false' });
    try {
      await app.create({ 'in-reply-to': [receivers.page('private')] });
      await app.t.app.indieweb.jobs.drain();
      expect(receivers.take()).toEqual([]);
      const [row] = await app.sent();
      expect(row!.status).toBe('failed');
      expect(row!.error).toMatch(/^discovery failed: refusing to connect to 127\.0\.0\.1: not a public address$/);
    } finally {
      await app.t.close();
      await receivers.close();
    }
  });
});

describe('sending on publish reads post-status and visibility as the pages do (F14), for every handler that sends', () => {
  let receivers: Receivers;
  let contentDir: string;
  beforeAll(async () => {
    receivers = await startReceivers();
    contentDir = mkdtempSync(path.join(os.tmpdir(), 'indiestack-send-files-'));
  });
  afterAll(async () => {
    await receivers.close();
    rmSync(contentDir, { recursive: true, force: true });
  });

  /** Entries no one may be told about, as clients spell them. */
  const HIDDEN: readonly Record<string, unknown[]>[] = [
    { 'post-status': [' draft'] },
    { 'post-status': ['Draft '] },
    { 'post-status': ['DRAFT'] },
    { 'post-status': ['pending'] },
    { visibility: [' private'] },
    { visibility: ['Private'] },
    { visibility: ['protected'] },
    { visibility: [' Unlisted'] },
  ];
  const HANDLERS: readonly [string, Record<string, string>, DialectName?][] = [
    ['database', { INDIEWEB_MICROPUB_HANDLER: 'database' }],
    ['database on PostgreSQL', { INDIEWEB_MICROPUB_HANDLER: 'database' }, 'postgres'],
    ['memory', { INDIEWEB_MICROPUB_HANDLER: 'memory', INDIEWEB_WEBMENTION_SEND_ON_PUBLISH: 'on' }],
    [
      'files',
      {
        INDIEWEB_MICROPUB_HANDLER: 'files',
        INDIEWEB_WEBMENTION_SEND_ON_PUBLISH: 'on',
        INDIEWEB_FILES_GIT: 'off',
        INDIEWEB_FILES_SITE_URL: 'http://indiestack.test/sites/{user}',
      },
    ],
  ];

  for (const [handler, env, dialect] of HANDLERS) {
    it.skipIf(dialect === 'postgres' && !HAS_POSTGRES)(
      `${handler}: no webmention for a draft, private or unlisted entry in any spelling; a published one, and one published by an update, are sent`,
      async () => {
        const app = await appFor(
          { ...env, ...(handler === 'files' ? { INDIEWEB_FILES_CONTENT_DIR: mkdtempSync(path.join(contentDir, 'site-')) } : {}) },
          dialect,
        );
        try {
          for (const [index, properties] of HIDDEN.entries())
            await app.create({ ...properties, content: [`hidden ${index}`], 'in-reply-to': [receivers.page(`hidden${index}`)] });
          await app.create({
            content: ['shown'],
            'post-status': [' Published'],
            visibility: ['PUBLIC '],
            'in-reply-to': [receivers.page('shown')],
          });
          await app.t.app.indieweb.jobs.drain();
          expect(pairs(receivers.take())).toEqual(['shown shown']);
          expect((await app.sent()).map((row) => row.target)).toEqual([receivers.page('shown')]);

          // a draft published later is announced then
          const draft = await app.create({ content: ['later'], 'post-status': [' Draft'], 'like-of': [receivers.page('later')] });
          await app.t.app.indieweb.jobs.drain();
          expect(receivers.take()).toEqual([]);
          expect((await app.micropub({ action: 'update', url: draft, replace: { 'post-status': ['published'] } })).statusCode).toBe(204);
          await app.t.app.indieweb.jobs.drain();
          expect(pairs(receivers.take())).toEqual(['later later']);
        } finally {
          await app.t.close();
        }
      },
    );
  }
});
