/**
 * Issue 15 findings 3 and 4 against a real `indiestack serve`: broken requests
 * are answered with `Connection: close` (a keep-alive client never gets a
 * reset), slow clients get 408 within the configured timeouts, and drippers
 * do not slow anyone else down. Then SIGTERM stops the server with exit 0.
 */
import { once } from 'node:events';
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/global-setup.js';
import { startCli } from '../helpers/cli.js';

/** Sends raw bytes and collects everything until the server closes (or `ms` passes). */
function raw(port: number, bytes: string, ms = 8_000): Promise<{ text: string; closed: boolean; elapsed: number }> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ text, closed: false, elapsed: Date.now() - started });
    }, ms);
    socket.on('data', (chunk) => (text += chunk.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text, closed: true, elapsed: Date.now() - started });
    });
    socket.write(bytes);
  });
}

describe('indiestack serve under broken and slow clients', () => {
  let cwd: string;
  let child: ChildProcess;
  let port: number;
  let base: string;

  beforeAll(async () => {
    cwd = mkdtempSync(path.join(os.tmpdir(), 'indiestack-client-errors-'));
    port = await freePort();
    base = `http://127.0.0.1:${port}`;
    child = startCli(['serve', '--port', String(port)], {
      cwd,
      env: { INDIEWEB_HEADERS_TIMEOUT: '2', INDIEWEB_REQUEST_TIMEOUT: '3', INDIEWEB_LOG_LEVEL: 'warn' },
    });
    for (let attempt = 0; attempt < 200; attempt++) {
      try {
        if ((await fetch(`${base}/healthz`)).ok) break;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  });

  afterAll(async () => {
    if (child.exitCode === null) {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
    rmSync(cwd, { recursive: true, force: true });
  });

  it('a keep-alive client gets its next answer after a 431 (100 KB client_id) instead of ECONNRESET', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const get = (url: string, method = 'GET', body?: string) =>
      new Promise<{ status: number; message: string; headers: http.IncomingHttpHeaders }>((resolve, reject) => {
        const request = http.request(
          url,
          { agent, method, headers: body === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' } },
          (response) => {
            response.resume();
            response.on('end', () =>
              resolve({ status: response.statusCode!, message: response.statusMessage!, headers: response.headers }),
            );
          },
        );
        request.on('error', reject);
        request.end(body);
      });
    try {
      const huge = await get(`${base}/indieweb/auth/?client_id=${'a'.repeat(100_000)}`);
      expect([huge.status, huge.message]).toEqual([431, 'Request Header Fields Too Large']);
      expect(huge.headers.connection).toBe('close');
      const next = await get(`${base}/indieweb/token/`, 'POST', 'code=x&client_id=https%3A%2F%2Fapp.example%2F');
      expect(next.status).toBe(400);
    } finally {
      agent.destroy();
    }
  });

  it.each([
    ['bad chunked framing', 'POST /indieweb/token/ HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n'],
    ['conflicting Content-Length', 'POST /indieweb/token/ HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello'],
    ['a NUL in a header', 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Test: a\0b\r\n\r\n'],
  ])('%s: 400 plain text with Connection: close, then the socket closes', async (_name, bytes) => {
    const answer = await raw(port, bytes);
    expect(answer.text).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(answer.text.toLowerCase()).toContain('connection: close');
    expect(answer.text).not.toMatch(/at .*\.js:\d+|node_modules|Error:/);
    expect(answer.closed).toBe(true);
  });

  it('a head dripped past INDIEWEB_HEADERS_TIMEOUT and a body that stops are answered 408 and closed', async () => {
    const head = await raw(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\n', 10_000);
    expect(head.text).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(head.closed).toBe(true);
    const body = await raw(
      port,
      'POST /indieweb/token/ HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\ncode=',
      10_000,
    );
    expect(body.text).toMatch(/^HTTP\/1\.1 408 /);
    expect(body.closed).toBe(true);
  });

  it('50 drippers do not slow down everyone else', async () => {
    const drippers = Array.from({ length: 50 }, (_, index) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.on('error', () => {});
      socket.write(
        index % 2 === 0
          ? 'GET /healthz HTTP/1.1\r\nHost: x\r\n'
          : 'POST /indieweb/token/ HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n',
      );
      const timer = setInterval(() => socket.write(index % 2 === 0 ? 'X' : 'a'), 200);
      socket.on('close', () => clearInterval(timer));
      return { socket, timer };
    });
    try {
      let worst = 0;
      for (let i = 0; i < 20; i++) {
        const started = performance.now();
        expect((await fetch(`${base}/healthz`)).status).toBe(200);
        worst = Math.max(worst, performance.now() - started);
      }
      // generous: unaffected requests take milliseconds; a starved server would take seconds
      expect(worst).toBeLessThan(1_000);
    } finally {
      for (const { socket, timer } of drippers) {
        clearInterval(timer);
        socket.destroy();
      }
    }
  });

  it("a path the router cannot decode gets a short plain-text 400, not Fastify's error JSON (fuzz seed 20261125 case 40015)", async () => {
    for (const url of ['/indieweb/admin/account/password/%c0%ae%c0%ae/', '/%E0%A4%A', '/indieweb/webmention/%ff']) {
      const response = await fetch(`${base}${url}`, { method: url.startsWith('/indieweb/admin') ? 'POST' : 'GET' });
      expect(response.status).toBe(400);
      expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      const body = await response.text();
      expect(body).toBe('bad request: the path could not be read\n');
      expect(body).not.toContain('FST_ERR');
    }
  });

  it('that 400 ends the connection and says so, so a body still on its way is not read as a next request (fuzz seed 777 case 4556)', async () => {
    const answer = await raw(
      port,
      'POST /indieweb/token/introspect/%c0%ae/ HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\n1\r\nt\r\n0\r\n\r\n',
    );
    expect(answer.text).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(answer.text.toLowerCase()).toContain('connection: close');
    expect(answer.closed).toBe(true);
  });

  it("a body the parser refuses on a path without a route gets a short plain-text 400, not Fastify's error JSON (fuzz seed 20261124 case 390)", async () => {
    for (const url of ['/indieweb/micropub//constructor/prototype/', '/nowhere']) {
      const response = await fetch(`${base}${url}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '' });
      expect(response.status).toBe(400);
      expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(await response.text()).toBe('invalid_request');
    }
  });

  it('an Expect it does not understand gets 417 with Connection: close, so the body on its way is not read as a next request (fuzz seed 31337 case 8477)', async () => {
    const answer = await raw(
      port,
      'POST /indieweb/token/ HTTP/1.1\r\nHost: x\r\nExpect: something-else\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\n1\r\nt\r\n0\r\n\r\n',
    );
    expect(answer.text).toMatch(/^HTTP\/1\.1 417 /);
    expect(answer.text.toLowerCase()).toContain('connection: close');
    expect(answer.text).toContain('only "Expect: 100-continue" is understood');
    expect(answer.closed).toBe(true);
  });

  it('SIGTERM stops the server and it exits 0', async () => {
    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
  });
});
