/**
 * Receiving-side Webmention test helpers: a loopback HTML server standing in
 * for the source site (pages, status codes, headers, redirects and held
 * responses all changeable while a test runs), and small wrappers around the
 * receiving endpoint, its status view and the job queue.
 */
import { listenOnLoopback } from './net.js';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { LightMyRequestResponse } from 'fastify';
import type { WebmentionRecord } from '../../src/storage/repositories/webmentions.js';
import { form, type TestApp } from './app.js';

/** The base URL host of {@link buildTestApp}: targets on it are ours. */
export const SITE = 'http://indiestack.test';
/** Environment every receiving test needs: the source server listens on 127.0.0.1. */
export const PRIVATE_OK = { INDIEWEB_ALLOW_PRIVATE_NETWORKS: 'true' } as const;

export interface Page {
  /** @defaultValue 200 */
  readonly status?: number;
  /** @defaultValue `{ 'content-type': 'text/html; charset=utf-8' }` (replaced, not merged, when given) */
  readonly headers?: Readonly<Record<string, string | readonly string[]>>;
  /** @defaultValue '' */
  readonly body?: string;
  /** Wait this long before answering. */
  readonly delayMs?: number;
}

export interface SourceRequest {
  readonly method: string;
  /** Path and query as requested. */
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
}

/** A held path: requests to it wait, unanswered, until {@link Hold.release}. */
export interface Hold {
  /** Resolves once `count` requests (default 1) are waiting on this hold. */
  waiting(count?: number): Promise<void>;
  /** Answers every waiting request with the page as it is now, and stops holding. */
  release(): void;
}

export interface SourceServer {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  /** Absolute URL of a path on this server. */
  url(path: string): string;
  /** Serves `page` (HTML text, or a full {@link Page}) at the exact path (query included when given). */
  set(path: string, page: string | Page): void;
  /** Answers `path` with a redirect to `to` (relative or absolute). */
  redirect(path: string, to: string, status?: number): void;
  /** `/hop/1` → `/hop/2` → … → `/hop/<hops>` → `to`: exactly `hops` redirects before `to`. */
  redirectChain(prefix: string, hops: number, to: string): string;
  /** 404 from now on. */
  remove(path: string): void;
  /** Holds requests to `path` until released. */
  hold(path: string): Hold;
  /** Every request received, in order. */
  readonly requests: SourceRequest[];
  /** How many requests reached `path` (pathname and query, as requested). */
  hits(path: string): number;
  /** Stops listening (and drops open connections): connections are refused until {@link resume}. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  resume(): Promise<void>;
  close(): Promise<void>;
}

const HTML = { 'content-type': 'text/html; charset=utf-8' } as const;

/** Starts a source site on 127.0.0.1 with a free port. */
export async function startSourceServer(): Promise<SourceServer> {
  const pages = new Map<string, Page>();
  const holds = new Map<string, { waiting: ServerResponse[]; listeners: (() => void)[] }>();
  const requests: SourceRequest[] = [];
  const sockets = new Set<Socket>();

  const send = (response: ServerResponse, page: Page | undefined) => {
    if (response.destroyed || response.writableEnded) return;
    if (page === undefined) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    response.writeHead(page.status ?? 200, (page.headers ?? HTML) as http.OutgoingHttpHeaders).end(page.body ?? '');
  };
  const pageFor = (path: string): Page | undefined => pages.get(path) ?? pages.get(path.split('?')[0] ?? path);

  const server = http.createServer((request, response) => {
    const path = request.url ?? '/';
    requests.push({ method: request.method ?? 'GET', path, headers: request.headers });
    request.resume();
    const hold = holds.get(path) ?? holds.get(path.split('?')[0] ?? path);
    if (hold !== undefined) {
      hold.waiting.push(response);
      response.on('error', () => {});
      for (const listener of hold.listeners.splice(0)) listener();
      return;
    }
    const page = pageFor(path);
    if (page?.delayMs === undefined) send(response, page);
    else setTimeout(() => send(response, page), page.delayMs);
  });
  server.keepAliveTimeout = 500;
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  const listen = (port: number) => listenOnLoopback(server, port);
  const shut = () =>
    new Promise<void>((resolve) => {
      for (const hold of holds.values()) for (const response of hold.waiting.splice(0)) response.destroy();
      server.close(() => resolve());
      server.closeAllConnections();
      for (const socket of sockets) socket.destroy();
    });

  await listen(0);
  const port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;

  return {
    origin,
    requests,
    url: (path) => new URL(path, origin).href,
    set(path, page) {
      pages.set(path, typeof page === 'string' ? { body: page } : page);
    },
    redirect(path, to, status = 302) {
      pages.set(path, { status, headers: { location: to }, body: '' });
    },
    redirectChain(prefix, hops, to) {
      for (let hop = 1; hop <= hops; hop++)
        pages.set(`${prefix}/${hop}`, { status: 302, headers: { location: hop === hops ? to : `${prefix}/${hop + 1}` } });
      return new URL(`${prefix}/1`, origin).href;
    },
    remove(path) {
      pages.delete(path);
    },
    hold(path) {
      const hold = { waiting: [] as ServerResponse[], listeners: [] as (() => void)[] };
      holds.set(path, hold);
      return {
        waiting: async (count = 1) => {
          while (hold.waiting.length < count) await new Promise<void>((resolve) => hold.listeners.push(resolve));
        },
        release: () => {
          holds.delete(path);
          for (const response of hold.waiting.splice(0)) send(response, pageFor(path));
        },
      };
    },
    hits: (path) => requests.filter((request) => request.path === path).length,
    stop: shut,
    resume: () => listen(port),
    close: shut,
  };
}

/** An HTML page with an h-entry whose content links to `target` (plus any extra markup). */
export function linkingPage(target: string, options: { content?: string; extra?: string; author?: string } = {}): string {
  return `<!doctype html>
<html><head><title>a post</title></head>
<body>
<article class="h-entry">
${options.author ?? '<a class="p-author h-card" href="/">Sam Source</a>'}
<div class="e-content">${options.content ?? `I liked <a href="${target}">this post</a>.`}</div>
</article>
${options.extra ?? ''}
</body></html>`;
}

/** An HTML page that does not link to anything of ours. */
export function unrelatedPage(text = 'nothing to see'): string {
  return `<!doctype html><html><body><article class="h-entry"><p class="e-content">${text}</p></article></body></html>`;
}

export interface Submission {
  readonly response: LightMyRequestResponse;
  readonly statusCode: number;
  /** The Location header (undefined on refusal). */
  readonly location: string | undefined;
  /** The last path segment of the Location. */
  readonly id: string;
}

/** POSTs a webmention form (`source`/`target`; undefined leaves a field out), from 127.0.0.1 unless `remoteAddress` says otherwise. */
export async function submit(
  t: Pick<TestApp, 'app'>,
  source: string | undefined,
  target: string | undefined,
  options: { remoteAddress?: string } = {},
): Promise<Submission> {
  const fields: Record<string, string> = {};
  if (source !== undefined) fields.source = source;
  if (target !== undefined) fields.target = target;
  const response = await t.app.inject({
    method: 'POST',
    url: '/indieweb/webmention/',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: form(fields),
    ...(options.remoteAddress === undefined ? {} : { remoteAddress: options.remoteAddress }),
  });
  const location = response.headers.location as string | undefined;
  return { response, statusCode: response.statusCode, location, id: location?.split('/').at(-1) ?? '' };
}

/** Submits and expects 201; returns the id. */
export async function accepted(t: Pick<TestApp, 'app'>, source: string, target: string): Promise<string> {
  const result = await submit(t, source, target);
  if (result.statusCode !== 201) throw new Error(`expected 201, got ${result.statusCode}: ${result.response.body}`);
  return result.id;
}

export interface StatusJson {
  status: string;
  source: string;
  target: string;
  verified_at: string | null;
  type: string | null;
  author: { name: string | null; url: string | null; photo: string | null };
  content: string | null;
  /** Only on a failed mention: why, written for the sender. */
  reason?: string;
}

/** The JSON status view of a mention. */
export async function statusOf(t: Pick<TestApp, 'app'>, id: string): Promise<StatusJson> {
  const response = await t.app.inject({ method: 'GET', url: `/indieweb/webmention/${id}`, headers: { accept: 'application/json' } });
  if (response.statusCode !== 200) throw new Error(`status view answered ${response.statusCode}`);
  return response.json<StatusJson>();
}

/** The stored record (with the sanitised HTML the status view does not show). */
export function recordOf(t: Pick<TestApp, 'app'>, id: string): Promise<WebmentionRecord> {
  return t.app.indieweb.webmention.get(id);
}

/** Runs every due job. */
export function drain(t: Pick<TestApp, 'app'>): Promise<number> {
  return t.app.indieweb.jobs.drain();
}
