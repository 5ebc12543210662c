import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SyndicationError } from './client.js';
import { MAX_SILO_ANSWER_BYTES, siloFetch } from './silo-fetch.js';

describe('siloFetch', () => {
  let server: http.Server;
  let base: string;
  const seen: { contentType: string | undefined; body: string }[] = [];

  beforeAll(async () => {
    server = http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        seen.push({ contentType: request.headers['content-type'], body: Buffer.concat(chunks).toString('latin1') });
        if (request.url === '/redirect') return response.writeHead(302, { location: 'http://127.0.0.1:1/' }).end();
        if (request.url === '/huge') {
          response.writeHead(200, { 'content-type': 'application/json' });
          const chunk = Buffer.alloc(64 * 1024, 0x20);
          let sent = 0;
          const more = () => {
            while (sent <= MAX_SILO_ANSWER_BYTES) {
              sent += chunk.length;
              if (!response.write(chunk)) return void response.once('drain', more);
            }
            response.end();
          };
          return more();
        }
        if (request.url === '/empty') return response.writeHead(204).end();
        response.writeHead(200, { 'content-type': 'application/json', 'x-ratelimit-reset': 'soon' }).end('{"ok":true}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('answers like fetch: status, headers and body', async () => {
    const response = await siloFetch({ allowPrivateNetworks: true })(`${base}/`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-ratelimit-reset')).toBe('soon');
    expect(await response.json()).toEqual({ ok: true });
    expect((await siloFetch({ allowPrivateNetworks: true })(`${base}/empty`)).status).toBe(204);
  });

  it('refuses this machine unless INDIEWEB_ALLOW_PRIVATE_NETWORKS allows it (checked when connecting)', async () => {
    const localhost = base.replace('127.0.0.1', 'localhost');
    await expect(siloFetch({ allowPrivateNetworks: false })(`${localhost}/`)).rejects.toThrow();
    const before = seen.length;
    await expect(siloFetch({ allowPrivateNetworks: false })(`${localhost}/`, { method: 'DELETE' })).rejects.toThrow();
    expect(seen.length).toBe(before);
  });

  it('follows no redirect', async () => {
    await expect(siloFetch({ allowPrivateNetworks: true })(`${base}/redirect`)).rejects.toThrow();
  });

  it(`reads at most ${MAX_SILO_ANSWER_BYTES} bytes of an answer`, async () => {
    const error = await siloFetch({ allowPrivateNetworks: true })(`${base}/huge`).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SyndicationError);
    expect((error as SyndicationError).message).toBe(`${new URL(base).host} answered with more than ${MAX_SILO_ANSWER_BYTES} bytes`);
  });

  it('sends a FormData body as multipart with its file', async () => {
    const form = new FormData();
    form.append('description', 'a red square');
    form.append('file', new Blob([Buffer.from('PNGDATA')], { type: 'image/png' }), 'square.png');
    expect((await siloFetch({ allowPrivateNetworks: true })(`${base}/media`, { method: 'POST', body: form })).status).toBe(200);
    const last = seen.at(-1)!;
    expect(last.contentType).toMatch(/^multipart\/form-data; boundary=/);
    expect(last.body).toContain('name="description"');
    expect(last.body).toContain('a red square');
    expect(last.body).toContain('filename="square.png"');
    expect(last.body).toContain('PNGDATA');
  });
});
