/**
 * Issue 28 class 1, the sending side: endpoint discovery and
 * `send_webmentions`' reading of a source page run in the parse pool. A
 * target page or a source page that microformats-parser and parse5 would
 * need minutes for is a failed send with a clear reason, over loopback.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOutbound, type Outbound } from '../../src/outbound/fetch.js';
import { attemptWebmention, findTargets } from '../../src/webmention/send.js';

/** 1.25 million elements nested inside each other (5.5 MB): over the 2 s budget this test gives parse5, and past the nesting bound anyway. */
const HUGE = `<!doctype html><html><body>${'<div><span><b><i><em>'.repeat(250_000)}</body></html>`;

describe('pages over the parse budget when sending', () => {
  let server: http.Server;
  let base: string;
  let outbound: Outbound;

  beforeAll(async () => {
    server = http.createServer((request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end(request.url === '/quick' ? '<link rel="webmention" href="/endpoint"><a href="https://elsewhere.example/">x</a>' : HUGE);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // a 2 s parse budget instead of the default 5: each page over it burns a worker's core for the whole budget
    outbound = createOutbound({ allowPrivateNetworks: true, timeoutMs: 10_000, maxBytes: 8 * 1024 * 1024, parseTimeoutMs: 2_000 });
  });
  afterAll(async () => {
    await outbound.close();
    server.close();
  });

  it('discovery on a target page over the budget: a failed send saying so, not retried', async () => {
    const attempt = await attemptWebmention(outbound, 'https://me.example/post', `${base}/huge`);
    expect(attempt.retry).toBe(false);
    expect(attempt.result).toMatchObject({ status: 'failed' });
    // over the time budget here; on a faster machine the shape bound (nesting over 512) may stop it first: either is a clear reason
    expect((attempt.result as { error?: string }).error).toMatch(
      /^discovery failed: target page could not be read: (the page took longer than 2000 ms to read|source page nests elements deeper than 512 levels)$/,
    );
  }, 20_000);

  it('send_webmentions on a source page over the budget: an error saying so; a normal page still gives its targets', async () => {
    await expect(findTargets(outbound, `${base}/huge`)).rejects.toThrow(
      /^source page could not be read: (the page took longer than 2000 ms to read|source page nests elements deeper than 512 levels)$/,
    );
    // a normal page after it, with a budget that also covers starting the worker that replaces the stopped one
    const roomy = createOutbound({ allowPrivateNetworks: true, timeoutMs: 10_000, parseTimeoutMs: 30_000 });
    try {
      expect(await findTargets(roomy, `${base}/quick`)).toEqual(['https://elsewhere.example/']);
    } finally {
      await roomy.close();
    }
  }, 20_000);
});
