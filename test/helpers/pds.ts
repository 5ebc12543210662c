/**
 * A real Bluesky PDS (`@atproto/pds`, on SQLite in a temporary directory)
 * with a mock PLC directory (`@did-plc/server` on its in-memory database),
 * both on loopback and offline, for one test file: how @atproto/dev-env
 * starts them for the atproto repository's own tests. Accounts get an app
 * password, as a user gives indiestack one. Also a small proxy in front of
 * the PDS that answers chosen requests with a failure once (429, 503).
 * @module
 */
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort, listenOnLoopback } from './net.js';

export interface PdsAccount {
  readonly did: string;
  readonly handle: string;
  /** The account's own password (never given to indiestack). */
  readonly password: string;
  /** An app password made for indiestack. */
  readonly appPassword: string;
  /** An access token of the account's own session, for arranging test data. */
  readonly accessJwt: string;
}

export interface TestPds {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  readonly plcUrl: string;
  /** The secret the PDS signs its session tokens with (to make an expired one). */
  readonly jwtSecret: string;
  /** A new account `<name>.test` with an app password. */
  createAccount(name: string): Promise<PdsAccount>;
  /** An XRPC call as `account` (or anonymous), throwing on a status other than 200. */
  xrpc<T = unknown>(method: 'GET' | 'POST', nsid: string, input?: Record<string, unknown>, account?: PdsAccount): Promise<T>;
  close(): Promise<void>;
}

/** A JSON answer or an error with the status and body. */
async function xrpcCall<T>(base: string, method: 'GET' | 'POST', nsid: string, input: Record<string, unknown>, token?: string): Promise<T> {
  const url = new URL(`${base}/xrpc/${nsid}`);
  const headers: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` };
  let body: string | undefined;
  if (method === 'GET') for (const [name, value] of Object.entries(input)) url.searchParams.set(name, String(value));
  else {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(input);
  }
  const response = await fetch(url, { method, headers, ...(body === undefined ? {} : { body }) });
  const text = await response.text();
  if (!response.ok) throw new Error(`${nsid} answered ${response.status}: ${text}`);
  return (text === '' ? undefined : JSON.parse(text)) as T;
}

/** Starts a PLC directory and a PDS on free loopback ports (about 4 s, mostly importing the PDS). */
export async function startPds(): Promise<TestPds> {
  const [{ PDS }, plc] = await Promise.all([import('@atproto/pds'), import('@did-plc/server')]);

  const plcServer = plc.PlcServer.create({ db: plc.Database.mock() });
  const plcHttp = http.createServer(plcServer.app);
  await listenOnLoopback(plcHttp, 0);
  const plcUrl = `http://127.0.0.1:${(plcHttp.address() as AddressInfo).port}`;

  const directory = await mkdtemp(path.join(os.tmpdir(), 'indiestack-pds-'));
  const jwtSecret = randomBytes(16).toString('hex');
  const port = await freePort();
  const pds = await PDS.fromEnv({
    devMode: true,
    port,
    hostname: 'localhost',
    dataDirectory: directory,
    blobstoreDiskLocation: path.join(directory, 'blobs'),
    didPlcUrl: plcUrl,
    // any 32 random bytes are a secp256k1 private key (but for a chance of about 2^-128)
    plcRotationKeyK256PrivateKeyHex: randomBytes(32).toString('hex'),
    adminPassword: randomBytes(8).toString('hex'),
    jwtSecret,
    serviceHandleDomains: ['.test'],
    inviteRequired: false,
    // nothing of the network exists offline: the app view and moderation service are names only
    bskyAppViewUrl: 'https://appview.invalid',
    bskyAppViewDid: 'did:example:invalid',
    bskyAppViewCdnUrlPattern: 'https://cdn.invalid/%s/%s/%s',
    modServiceUrl: 'https://moderator.invalid',
    modServiceDid: 'did:example:invalid',
    disableSsrfProtection: true,
  });
  // PDS.start() listens on every interface; this is what it does, on loopback only
  await pds.ctx.sequencer.start();
  const pdsHttp = http.createServer(pds.app);
  pdsHttp.keepAliveTimeout = 1_000;
  await listenOnLoopback(pdsHttp, port);
  const url = `http://127.0.0.1:${port}`;

  const close = async () => {
    for (const server of [pdsHttp, plcHttp]) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    await pds.ctx.destroy();
    await plcServer.ctx.db.close();
    await rm(directory, { recursive: true, force: true });
  };

  return {
    url,
    plcUrl,
    jwtSecret,
    async createAccount(name) {
      const handle = `${name}.test`;
      const password = randomBytes(12).toString('hex');
      const created = await xrpcCall<{ did: string; accessJwt: string }>(url, 'POST', 'com.atproto.server.createAccount', {
        handle,
        email: `${name}@example.com`,
        password,
      });
      const app = await xrpcCall<{ password: string }>(
        url,
        'POST',
        'com.atproto.server.createAppPassword',
        { name: 'indiestack' },
        created.accessJwt,
      );
      return { did: created.did, handle, password, appPassword: app.password, accessJwt: created.accessJwt };
    },
    xrpc(method, nsid, input = {}, account) {
      return xrpcCall(url, method, nsid, input, account?.accessJwt);
    },
    close,
  };
}

/**
 * `token` (an access JWT of the PDS) with its expiry moved to the past and signed again with the
 * PDS's secret: what a client holds after its session's two hours.
 */
export function expiredToken(token: string, jwtSecret: string): string {
  const [header, payload] = token.split('.') as [string, string, string];
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
  const now = Math.floor(Date.now() / 1000);
  const body = Buffer.from(JSON.stringify({ ...claims, iat: now - 7300, exp: now - 100 })).toString('base64url');
  const signature = createHmac('sha256', jwtSecret).update(`${header}.${body}`).digest('base64url');
  return `${header}.${body}.${signature}`;
}

/** One canned failure: the first request it matches gets this answer instead of the PDS's. */
export interface PdsFault {
  /** The XRPC method (NSID) to fail. */
  readonly nsid: string;
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  /** How many matching requests fail; 1 by default. */
  readonly times?: number;
  /** The PDS still gets the request and acts on it; only its answer is lost on the way back. */
  readonly afterUpstream?: boolean;
}

export interface PdsProxy {
  readonly url: string;
  /** Every request's NSID and the status it got, in order. */
  readonly requests: readonly { readonly nsid: string; readonly status: number; readonly at: number }[];
  /** Adds failures for the next matching requests. */
  fail(fault: PdsFault): void;
  close(): Promise<void>;
}

/** A reverse proxy on loopback in front of `upstream` (a PDS) that answers chosen requests with a failure. */
export async function startPdsProxy(upstream: string): Promise<PdsProxy> {
  const target = new URL(upstream);
  const faults: { nsid: string; status: number; headers: Record<string, string>; left: number; afterUpstream: boolean }[] = [];
  const requests: { nsid: string; status: number; at: number }[] = [];

  const server = http.createServer((request: IncomingMessage, response: ServerResponse) => {
    const nsid = (request.url ?? '').replace(/^\/xrpc\//, '').replace(/\?.*$/, '');
    const fault = faults.find((candidate) => candidate.nsid === nsid && candidate.left > 0);
    if (fault !== undefined) fault.left -= 1;
    const answerWithFault = () => {
      requests.push({ nsid, status: fault!.status, at: Date.now() });
      response
        .writeHead(fault!.status, { 'content-type': 'application/json', ...fault!.headers })
        .end(JSON.stringify({ error: fault!.status === 429 ? 'RateLimitExceeded' : 'ServiceUnavailable', message: 'try again later' }));
    };
    if (fault !== undefined && !fault.afterUpstream) {
      request.resume();
      answerWithFault();
      return;
    }
    const outgoing = http.request(
      {
        host: target.hostname,
        port: target.port,
        method: request.method,
        path: request.url,
        headers: { ...request.headers, host: target.host },
      },
      (answer) => {
        if (fault !== undefined) {
          answer.resume();
          answer.on('end', answerWithFault);
          return;
        }
        requests.push({ nsid, status: answer.statusCode ?? 0, at: Date.now() });
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    outgoing.on('error', () => {
      if (!response.headersSent) response.writeHead(502).end();
      else response.destroy();
    });
    request.pipe(outgoing);
  });
  await listenOnLoopback(server, 0);
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    fail(fault) {
      faults.push({
        nsid: fault.nsid,
        status: fault.status,
        headers: { ...fault.headers },
        left: fault.times ?? 1,
        afterUpstream: fault.afterUpstream ?? false,
      });
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
