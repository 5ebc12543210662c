/**
 * A small round-robin reverse proxy on loopback (node:http), standing in for
 * the load balancer in front of several instances: every request goes to
 * the next upstream in turn, with `X-Forwarded-For`, `-Proto` and `-Host` set
 * as the nginx and Caddy examples of docs/deployment.md set them, and the
 * answer streamed back unchanged.
 * @module
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { freePort, listenOnLoopback } from './net.js';

export interface ProxiedRequest {
  readonly method: string;
  readonly path: string;
  /** Index of the upstream that answered it. */
  readonly upstream: number;
  /** Status sent back (502 when the upstream could not be reached). */
  status: number | null;
}

export interface RoundRobinProxy {
  /** `http://127.0.0.1:<port>`: the public base URL of the instances behind it. */
  readonly origin: string;
  readonly port: number;
  /** Upstream origins (`http://127.0.0.1:<port>`), set once they listen. */
  setUpstreams(origins: readonly string[]): void;
  /** Every request passed on, in order. */
  readonly requests: readonly ProxiedRequest[];
  close(): Promise<void>;
}

/** Starts the proxy on a free port; upstreams come later (the instances need its URL as their base URL first). */
export async function startRoundRobinProxy(): Promise<RoundRobinProxy> {
  let upstreams: URL[] = [];
  let next = 0;
  const requests: ProxiedRequest[] = [];
  const sockets = new Set<Socket>();
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;

  function forward(request: IncomingMessage, response: ServerResponse) {
    const index = next++ % Math.max(upstreams.length, 1);
    const upstream = upstreams[index];
    const record: ProxiedRequest = { method: request.method ?? 'GET', path: request.url ?? '/', upstream: index, status: null };
    requests.push(record);
    const fail = () => {
      record.status = 502;
      if (!response.headersSent) response.writeHead(502, { 'content-type': 'text/plain' }).end('bad gateway\n');
      else response.destroy();
    };
    if (upstream === undefined) return fail();
    const headers = { ...request.headers };
    const client = request.socket.remoteAddress ?? '127.0.0.1';
    // set, not appended: the edge proxy replaces what a client claims (docs/deployment.md)
    headers['x-forwarded-for'] = client;
    headers['x-forwarded-proto'] = 'http';
    headers['x-forwarded-host'] = request.headers.host ?? `127.0.0.1:${port}`;
    const outgoing = http.request(
      { host: upstream.hostname, port: upstream.port, method: request.method, path: request.url, headers, agent: false },
      (answer) => {
        record.status = answer.statusCode ?? null;
        response.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
        answer.pipe(response);
        answer.on('error', () => response.destroy());
      },
    );
    outgoing.on('error', fail);
    request.on('error', () => outgoing.destroy());
    response.on('close', () => {
      if (!response.writableFinished) outgoing.destroy();
    });
    request.pipe(outgoing);
  }

  const server = http.createServer(forward);
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('clientError', (_error, socket) => socket.destroy());
  await listenOnLoopback(server, port);
  return {
    origin,
    port,
    setUpstreams(origins) {
      upstreams = origins.map((value) => new URL(value));
    },
    requests,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
