/**
 * Which requests `indiestack_http_requests_total` counts, and that each is
 * counted once: in plugin mode every route of indiestack's own (under
 * /indieweb/, the RFC 8414 metadata at the host's root, the entry pages) and
 * none of the host's; standalone, those and the server's own routes and
 * unmatched paths.
 */
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indieweb } from '../../src/app/plugin.js';
import { loadConfig } from '../../src/config/env.js';
import { profileUrlKey } from '../../src/core/url.js';
import { addMetricsRoute } from '../../src/operations/metrics/http.js';
import { createUsersRepository } from '../../src/storage/repositories/users.js';
import { buildTestApp, TEST_SECRET, type TestApp } from '../helpers/app.js';
import { openTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { CLIENT_ID } from '../helpers/indieauth.js';
import { BASE_URL, createViaJson, HOST } from '../helpers/micropub.js';

const METRICS_TOKEN = 'metrics-token-that-is-long-enough-for-the-setting';

/** `route status` → count, from indiestack_http_requests_total of a scrape (GET only). */
async function requestCounts(app: FastifyInstance): Promise<Map<string, number>> {
  const response = await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}`, host: HOST } });
  expect(response.statusCode).toBe(200);
  const counts = new Map<string, number>();
  for (const match of response.body.matchAll(/^indiestack_http_requests_total\{method="GET",route="([^"]*)",status="(\d+)"\} (\d+)$/gm))
    counts.set(`${match[1]} ${match[2]}`, Number(match[3]));
  return counts;
}

/** Requests each path `times` times. */
async function visit(app: FastifyInstance, paths: readonly string[], times = 2): Promise<void> {
  for (let i = 0; i < times; i++) for (const path of paths) await app.inject({ method: 'GET', url: path, headers: { host: HOST } });
}

describe('plugin mode: what indiestack_http_requests_total counts', () => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let entryPath: string;

  beforeAll(async () => {
    database = await openTestDatabase('sqlite');
    app = Fastify();
    app.get('/about', async () => 'the host page');
    const config = loadConfig({
      env: { INDIEWEB_BASE_URL: BASE_URL, INDIEWEB_MICROPUB_HANDLER: 'database', INDIEWEB_METRICS_TOKEN: METRICS_TOKEN },
    });
    await app.register(indieweb, { database, config, secret: TEST_SECRET, worker: false, entryPages: true });
    addMetricsRoute(app, { metrics: app.indieweb.metrics!, token: config.metricsToken! });
    await app.ready();
    const me = 'https://alice.example/';
    await createUsersRepository(database.db).insert({
      id: randomUUID(),
      name: 'alice',
      passwordHash: 'x',
      profileUrls: [{ url: me, key: profileUrlKey(me)! }],
      now: new Date().toISOString(),
    });
    const user = (await app.indieweb.users!.findByName('alice'))!;
    const { token } = await app.indieweb.tokens.issue({ userId: user.id, clientId: CLIENT_ID, me, scope: 'create', expiresIn: 3600 });
    entryPath = new URL(await createViaJson(app, token, { name: ['Hosted'], content: ['In plugin mode'] })).pathname;
  });

  afterAll(async () => {
    await app?.close();
    await database?.dispose();
  });

  it("counts each of indiestack's routes once, by pattern: /indieweb/*, the metadata at the root, the entry pages and their feeds", async () => {
    const before = await requestCounts(app);
    await visit(app, ['/indieweb/metadata', '/.well-known/oauth-authorization-server', '/alice/', entryPath, '/alice/feed.atom']);
    const after = await requestCounts(app);
    const grew = (key: string) => (after.get(key) ?? 0) - (before.get(key) ?? 0);
    expect(grew('/indieweb/metadata 200')).toBe(2);
    expect(grew('/.well-known/oauth-authorization-server 200')).toBe(2);
    const pages = [...after.keys()].filter(
      (key) => !key.startsWith('/indieweb/') && !key.startsWith('/.well-known/') && key.endsWith(' 200'),
    );
    // the home page, the entry and the feed: each pattern counted twice, never the raw URL
    expect(pages.map(grew).reduce((sum, n) => sum + n, 0)).toBe(6);
    expect(grew('/:user/feed.atom 200')).toBe(2);
    expect([...after.keys()].some((key) => key.includes('Hosted') || key.includes('/alice/'))).toBe(false);
  });

  it("leaves the host's own routes, its 404s and the scrapes to the host", async () => {
    await visit(app, ['/about', '/no-such-page']);
    const counts = await requestCounts(app);
    expect(
      [...counts.keys()].filter((key) => key.startsWith('/about') || key.startsWith('unmatched') || key.startsWith('/metrics')),
    ).toEqual([]);
  });
});

describe('standalone: what indiestack_http_requests_total counts', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ env: { INDIEWEB_METRICS_TOKEN: METRICS_TOKEN, INDIEWEB_BASE_URL: BASE_URL } });
  });
  afterAll(async () => t?.close());

  it("counts each request once: indiestack's routes, the server's own (/healthz) and unmatched paths", async () => {
    const before = await requestCounts(t.app);
    await visit(t.app, ['/indieweb/metadata', '/.well-known/oauth-authorization-server', '/healthz', '/no-such-page']);
    const after = await requestCounts(t.app);
    const grew = (key: string) => (after.get(key) ?? 0) - (before.get(key) ?? 0);
    expect(grew('/indieweb/metadata 200')).toBe(2);
    expect(grew('/.well-known/oauth-authorization-server 200')).toBe(2);
    expect(grew('/healthz 200')).toBe(2);
    expect(grew('unmatched 404')).toBe(2);
  });
});
