/**
 * Why a webmention was refused or failed, in words written for its sender
 * (issue 21 item 5): the endpoint's plain-text 400s, the JSON status view.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import {
  accepted,
  drain,
  linkingPage,
  PRIVATE_OK,
  SITE,
  startSourceServer,
  statusOf,
  submit,
  unrelatedPage,
  type SourceServer,
} from '../helpers/webmention.js';

const TARGET = `${SITE}/post`;

describe('POST /indieweb/webmention/: the reason of a 400', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ env: PRIVATE_OK });
  });
  afterAll(async () => {
    await t.close();
  });

  it.each([
    ['source is missing', undefined, TARGET, 'invalid_request: source is required'],
    ['source is not http(s)', 'ftp://elsewhere.example/a', TARGET, 'invalid_request: source must be an http(s) URL'],
    [
      'target is on another site',
      'https://elsewhere.example/a',
      'https://other.example/post',
      'invalid_request: target is not on this site',
    ],
    ['source and target are the same', TARGET, TARGET, 'invalid_request: source and target are the same'],
  ])('400 invalid_request with the reason when %s', async (_label, source, target, body) => {
    const result = await submit(t, source, target);
    expect(result.statusCode).toBe(400);
    expect(result.response.body).toBe(body);
  });

  it('400 for a body Fastify refuses: a reason of ours, not the framework’s message', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/indieweb/webmention/',
      headers: { 'content-type': 'application/json' },
      payload: '{',
    });
    expect(response.statusCode).toBe(400);
    expect(response.body).toMatch(/^invalid_request: \S/);
    expect(response.body).not.toMatch(/FST_|Unexpected|JSON at position/);
  });
});

describe('GET /indieweb/webmention/<id> (JSON): the reason of a failed mention', () => {
  let t: TestApp;
  let source: SourceServer;
  beforeAll(async () => {
    t = await buildTestApp({ env: PRIVATE_OK });
    source = await startSourceServer();
  });
  afterAll(async () => {
    await t.close();
    await source.close();
  });

  it('a source that does not link to the target', async () => {
    source.set('/unrelated', unrelatedPage());
    const id = await accepted(t, source.url('/unrelated'), TARGET);
    await drain(t);
    expect(await statusOf(t, id)).toMatchObject({ status: 'failed', reason: 'source does not link to the target' });
  });

  it('a source that answers 404', async () => {
    source.set('/missing', { status: 404, body: 'gone' });
    const id = await accepted(t, source.url('/missing'), TARGET);
    await drain(t);
    expect(await statusOf(t, id)).toMatchObject({ status: 'failed', reason: 'source answered 404' });
  });

  it('a source nobody listens on: the host and the error code, not the socket’s message', async () => {
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as net.AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const id = await accepted(t, `http://127.0.0.1:${port}/post`, TARGET);
    await drain(t);
    const status = await statusOf(t, id);
    expect(status.status).toBe('failed');
    expect(status.reason).toBe(`cannot reach 127.0.0.1:${port} (ECONNREFUSED) (will retry)`);
  });

  it('no reason on a verified mention', async () => {
    source.set('/linking', linkingPage(TARGET));
    const id = await accepted(t, source.url('/linking'), TARGET);
    await drain(t);
    const status = await statusOf(t, id);
    expect(status.status).toBe('verified');
    expect(status).not.toHaveProperty('reason');
  });
});
