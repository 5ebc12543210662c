/**
 * `GET /metrics`: off (404) unless INDIEWEB_METRICS_TOKEN is set, 401 without
 * that bearer, and then Prometheus text whose counters follow what the server
 * did: tokens issued and refused, Micropub operations, uploads and bytes,
 * webmentions received and processed, the job queue, outbound fetches and
 * requests by route pattern.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { jsonGrant, refresh } from '../helpers/grants.js';
import { addAlice, CLIENT_ID, postToken, REDIRECT_URI } from '../helpers/indieauth.js';
import { filePart, multipart, randomPng } from '../helpers/media.js';
import { accepted, drain, PRIVATE_OK, startSourceServer, type SourceServer } from '../helpers/webmention.js';

const METRICS_TOKEN = 'metrics-token-that-is-long-enough-for-the-setting';

interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** The samples of a Prometheus text exposition. */
function samples(text: string): Sample[] {
  const found: Sample[] = [];
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (match === null) continue;
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[pair[1]!] = pair[2]!;
    found.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return found;
}

/** The value of one series (0 when it is absent, as Prometheus counters start). */
function valueOf(text: string, name: string, labels: Record<string, string> = {}): number {
  const sample = samples(text).find(
    (candidate) => candidate.name === name && Object.entries(labels).every(([key, value]) => candidate.labels[key] === value),
  );
  return sample?.value ?? 0;
}

async function scrape(t: TestApp): Promise<string> {
  const response = await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  expect(response.statusCode).toBe(200);
  return response.body;
}

describe('GET /metrics while INDIEWEB_METRICS_TOKEN is unset', () => {
  it('404: metrics are off', async () => {
    const t = await buildTestApp();
    try {
      const response = await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
      expect(response.statusCode).toBe(404);
      expect(t.app.indieweb.metrics).toBeNull();
    } finally {
      await t.close();
    }
  });
});

describe('GET /metrics', () => {
  let t: TestApp;
  let sources: SourceServer;

  beforeAll(async () => {
    sources = await startSourceServer();
    t = await buildTestApp({ env: { INDIEWEB_METRICS_TOKEN: METRICS_TOKEN, ...PRIVATE_OK } });
  });
  afterAll(async () => {
    await t.close();
    await sources.close();
  });

  it.each([
    ['no Authorization header', {}],
    ['a wrong token', { authorization: `Bearer ${METRICS_TOKEN.slice(0, -1)}x` }],
    ['a longer token', { authorization: `Bearer ${METRICS_TOKEN}x` }],
    ['Basic credentials', { authorization: `Basic ${Buffer.from(`metrics:${METRICS_TOKEN}`).toString('base64')}` }],
  ])('401 with WWW-Authenticate: Bearer for %s, and no metric in the body', async (_case, headers) => {
    const response = await t.app.inject({ method: 'GET', url: '/metrics', headers });
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Bearer realm="metrics"');
    expect(response.body).not.toContain('indiestack_');
    expect(response.body).not.toContain(METRICS_TOKEN);
  });

  it('200 Prometheus text with process metrics and every indiestack metric declared', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `bearer ${METRICS_TOKEN}` } });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(response.headers['cache-control']).toBe('no-store');
    for (const name of [
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_eventloop_lag_seconds',
      'indiestack_http_requests_total',
      'indiestack_http_request_duration_seconds',
      'indiestack_tokens_issued_total',
      'indiestack_tokens_refused_total',
      'indiestack_micropub_operations_total',
      'indiestack_media_uploads_total',
      'indiestack_media_upload_bytes_total',
      'indiestack_webmentions_received_total',
      'indiestack_webmentions_processed_total',
      'indiestack_webmentions',
      'indiestack_jobs_queued',
      'indiestack_jobs_oldest_age_seconds',
      'indiestack_outbound_fetches_total',
    ]) {
      expect(response.body).toContain(`# TYPE ${name} `);
    }
  });

  it('counts tokens issued and refused, Micropub creates and uploads with their bytes', async () => {
    const before = await scrape(t);
    const jar = await addAlice(t);
    const grant = await jsonGrant(t, jar, 'create media');
    expect((await refresh(t, grant.refresh_token)).statusCode).toBe(200);
    expect(
      (await postToken(t, { grant_type: 'authorization_code', code: 'not-a-code', client_id: CLIENT_ID, redirect_uri: REDIRECT_URI }))
        .statusCode,
    ).toBe(400);
    expect((await t.app.inject({ method: 'GET', url: '/indieweb/micropub/?q=config' })).statusCode).toBe(401);
    expect(
      (await t.app.inject({ method: 'GET', url: '/indieweb/micropub/?q=config', headers: { authorization: 'Bearer unknown-token' } }))
        .statusCode,
    ).toBe(401);
    const created = await t.app.inject({
      method: 'POST',
      url: '/indieweb/micropub/',
      headers: { authorization: `Bearer ${grant.access_token}`, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'h=entry&content=counted',
    });
    expect(created.statusCode).toBe(201);
    const file = randomPng(3000);
    const body = multipart([filePart(file)]);
    const uploaded = await t.app.inject({
      method: 'POST',
      url: '/indieweb/media/',
      headers: { authorization: `Bearer ${grant.access_token}`, 'content-type': body.contentType },
      payload: body.body,
    });
    expect(uploaded.statusCode).toBe(201);

    const after = await scrape(t);
    const delta = (name: string, labels: Record<string, string> = {}) => valueOf(after, name, labels) - valueOf(before, name, labels);
    expect(delta('indiestack_tokens_issued_total', { grant_type: 'authorization_code' })).toBe(1);
    expect(delta('indiestack_tokens_issued_total', { grant_type: 'refresh_token' })).toBe(1);
    expect(delta('indiestack_tokens_refused_total', { where: 'token_endpoint', reason: 'invalid_grant' })).toBe(1);
    expect(delta('indiestack_tokens_refused_total', { where: 'resource', reason: 'missing' })).toBe(1);
    expect(delta('indiestack_tokens_refused_total', { where: 'resource', reason: 'not_accepted' })).toBe(1);
    expect(delta('indiestack_micropub_operations_total', { operation: 'create' })).toBe(1);
    expect(delta('indiestack_media_uploads_total')).toBe(1);
    expect(delta('indiestack_media_upload_bytes_total')).toBe(file.length);
    expect(delta('indiestack_http_requests_total', { method: 'POST', route: '/indieweb/micropub/', status: '201' })).toBe(1);
    expect(delta('indiestack_http_requests_total', { method: 'GET', route: '/indieweb/micropub/', status: '401' })).toBe(2);
    expect(delta('indiestack_http_request_duration_seconds_count', { method: 'POST', route: '/indieweb/media/' })).toBe(1);
  });

  it('counts webmentions received and processed, the queue with its age, and outbound fetches; routes by pattern, never by raw URL', async () => {
    const target = 'https://alice.example/notes/counted/';
    sources.set('/counted', `<!DOCTYPE html><div class="h-entry"><p class="e-content"><a href="${target}">a mention</a></p></div>`);
    const before = await scrape(t);
    const id = await accepted(t, sources.url('/counted'), target);
    // the worker is off: the job waits, and the manual clock ages it
    t.clock.advance(90);
    const queued = await scrape(t);
    expect(valueOf(queued, 'indiestack_webmentions_received_total') - valueOf(before, 'indiestack_webmentions_received_total')).toBe(1);
    expect(valueOf(queued, 'indiestack_webmentions', { status: 'pending' })).toBe(1);
    expect(valueOf(queued, 'indiestack_jobs_queued')).toBe(1);
    expect(valueOf(queued, 'indiestack_jobs_oldest_age_seconds')).toBe(90);

    expect(await drain(t)).toBe(1);
    const status = await t.app.inject({ method: 'GET', url: `/indieweb/webmention/${id}`, headers: { accept: 'application/json' } });
    expect(status.json()).toMatchObject({ status: 'verified' });
    const done = await scrape(t);
    expect(valueOf(done, 'indiestack_webmentions_processed_total', { outcome: 'verified' })).toBe(1);
    expect(valueOf(done, 'indiestack_webmentions', { status: 'pending' })).toBe(0);
    expect(valueOf(done, 'indiestack_webmentions', { status: 'verified' })).toBe(1);
    expect(valueOf(done, 'indiestack_jobs_queued')).toBe(0);
    expect(valueOf(done, 'indiestack_jobs_oldest_age_seconds')).toBe(0);
    expect(valueOf(done, 'indiestack_outbound_fetches_total', { outcome: '2xx' })).toBe(1);
    expect(valueOf(done, 'indiestack_http_requests_total', { method: 'GET', route: '/indieweb/webmention/:id', status: '200' })).toBe(1);
    expect(done).not.toContain(id);
    // a path no route matches is one series, whatever the path
    await t.app.inject({ method: 'GET', url: '/indieweb/no-such-page-1' });
    await t.app.inject({ method: 'GET', url: '/indieweb/no-such-page-2' });
    const unmatched = await scrape(t);
    expect(unmatched).not.toContain('no-such-page');
    expect(valueOf(unmatched, 'indiestack_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' })).toBe(2);
  });
});

describe('metrics of two apps in one process', () => {
  const apps: TestApp[] = [];
  afterEach(async () => {
    for (const app of apps.splice(0)) await app.close();
  });

  it('are kept apart: each instance has its own registry', async () => {
    const first = await buildTestApp({ env: { INDIEWEB_METRICS_TOKEN: METRICS_TOKEN } });
    apps.push(first);
    const second = await buildTestApp({ env: { INDIEWEB_METRICS_TOKEN: METRICS_TOKEN } });
    apps.push(second);
    await first.app.inject({ method: 'GET', url: '/indieweb/micropub/' });
    expect(valueOf(await scrape(first), 'indiestack_tokens_refused_total', { where: 'resource', reason: 'missing' })).toBe(1);
    expect(valueOf(await scrape(second), 'indiestack_tokens_refused_total', { where: 'resource', reason: 'missing' })).toBe(0);
  });
});
