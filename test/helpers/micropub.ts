/**
 * Micropub test helpers: apps (standalone or mounted with a custom handler),
 * tokens, requests and a spy handler that records what it receives.
 * @module
 */
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance, type LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { loadConfig } from '../../src/config/env.js';
import { createManualClock } from '../../src/core/clock.js';
import type { HostUser } from '../../src/contracts/accounts.js';
import type { MicropubHandler } from '../../src/contracts/micropub-handler.js';
import type { UrlPolicy } from '../../src/contracts/policies.js';
import { profileUrlKey } from '../../src/core/url.js';
import { indieweb } from '../../src/app/plugin.js';
import type { DatabaseHandle } from '../../src/storage/connect.js';
import { createUsersRepository } from '../../src/storage/repositories/users.js';
import { createMemoryHandler } from '../../src/content/handlers/memory.js';
import { createDatabaseHandler } from '../../src/content/handlers/database/handler.js';
import { createEntriesRepository } from '../../src/storage/repositories/entries.js';
import { rmSync } from 'node:fs';
import { buildTestApp, TEST_SECRET, testDataDir } from './app.js';
import { openTestDatabase, type TestDatabase } from './databases.js';
import { CLIENT_ID, ME } from './indieauth.js';

export const BASE_URL = 'http://indiestack.test';
export const HOST = 'indiestack.test';
export const MICROPUB = '/indieweb/micropub/';
export const ENTRIES = `${BASE_URL}/indieweb/entries/`;
export const MEDIA_ENDPOINT = `${BASE_URL}/indieweb/media/`;
export const ALL_SCOPES = 'create update delete undelete media';

/**
 * The built-in handler the Micropub endpoint tests run against: `memory`
 * (default) or `database`, chosen with `INDIESTACK_TEST_HANDLER=database`
 * (`INDIESTACK_TEST_HANDLER=database npx vitest run test/micropub/`). Only
 * apps whose test names no handler of its own take it.
 */
export const TEST_HANDLER: 'memory' | 'database' = process.env.INDIESTACK_TEST_HANDLER === 'database' ? 'database' : 'memory';

/** The database the Micropub endpoint tests run on: SQLite, or PostgreSQL with `INDIESTACK_TEST_DATABASE=postgres`. */
export const TEST_DIALECT: 'sqlite' | 'postgres' = process.env.INDIESTACK_TEST_DATABASE === 'postgres' ? 'postgres' : 'sqlite';

/** The environment that selects the test handler in `buildTestApp` / `standaloneApp`. */
export const TEST_HANDLER_ENV: Readonly<Record<string, string>> =
  TEST_HANDLER === 'database' ? { INDIEWEB_MICROPUB_HANDLER: 'database' } : {};

/**
 * The URL the test handler gives alice's entry with this slug, created now:
 * `{ENTRIES}{slug}` (memory) or `{BASE_URL}/alice/{yyyy}/{MM}/{slug}/` (database).
 */
export function entryUrl(slug: string, at: Date = new Date()): string {
  return TEST_HANDLER === 'memory' ? `${ENTRIES}${slug}` : `${entryUrlPrefix(at)}${slug}/`;
}

/** What the URLs of alice's entries created now (or published `at`) start with. */
export function entryUrlPrefix(at: Date = new Date()): string {
  if (TEST_HANDLER === 'memory') return ENTRIES;
  const iso = at.toISOString();
  return `${BASE_URL}/alice/${iso.slice(0, 4)}/${iso.slice(5, 7)}/`;
}

/** The path of {@link entryUrl}: what a client may send as a relative URL. */
export function entryPath(slug: string, at?: Date): string {
  return entryUrl(slug, at).slice(BASE_URL.length);
}

/** The slug in an entry URL of the test handler. */
export function slugOf(url: string): string {
  return TEST_HANDLER === 'memory' ? url.slice(ENTRIES.length) : url.replace(/\/$/, '').split('/').pop()!;
}

/**
 * A Micropub or media client error: `error` exactly `invalid_request`, with
 * the reason in a non-empty `error_description` (issue 21 item 5).
 */
export const INVALID_REQUEST = { error: 'invalid_request', error_description: expect.stringMatching(/\S/) };

/** An app with alice signed up and a way to mint her tokens. */
export interface MicropubTestApp {
  readonly app: FastifyInstance;
  readonly clock: ReturnType<typeof createManualClock>;
  readonly user: HostUser;
  /** A fresh token of alice's with exactly this scope. */
  token(scope?: string, expiresIn?: number | null): Promise<string>;
  close(): Promise<void>;
}

/** Adds alice straight through the repository: no password hashing, since these tests never sign in. */
async function withAlice(
  app: FastifyInstance,
  database: DatabaseHandle,
  clock: ReturnType<typeof createManualClock>,
  close: () => Promise<void>,
): Promise<MicropubTestApp> {
  const users = createUsersRepository(database.db);
  await users.insert({
    id: randomUUID(),
    name: 'alice',
    passwordHash: 'not-used',
    profileUrls: [{ url: ME, key: profileUrlKey(ME)! }],
    now: clock.now().toISOString(),
  });
  const user = (await app.indieweb.users!.findByName('alice'))!;
  return {
    app,
    clock,
    user,
    async token(scope = ALL_SCOPES, expiresIn: number | null = 3600) {
      const { token } = await app.indieweb.tokens.issue({ userId: user.id, clientId: CLIENT_ID, me: user.me[0]!, scope, expiresIn });
      return token;
    },
    close,
  };
}

/** The standalone server (the test handler, see {@link TEST_HANDLER}, unless the env names one), as `buildTestApp` builds it. */
export async function standaloneApp(env: Record<string, string> = {}): Promise<MicropubTestApp> {
  const t = await buildTestApp({ dialect: TEST_DIALECT, env: { ...TEST_HANDLER_ENV, ...env } });
  return withAlice(t.app, t.database, t.clock, () => t.close());
}

export interface MountedAppOptions {
  /** Defaults to a fresh test handler (see {@link TEST_HANDLER}) on the app's database. */
  readonly handler?: MicropubHandler;
  readonly urlPolicy?: UrlPolicy;
  readonly env?: Record<string, string>;
  /** Where the host's log lines go (JSON, one per line); no logging without it. */
  readonly log?: { write(line: string): void };
}

/** The plugin mounted in a bare Fastify host with the built-in accounts and the given handler. */
export async function mountedApp(options: MountedAppOptions = {}): Promise<MicropubTestApp> {
  const database: TestDatabase = await openTestDatabase(TEST_DIALECT);
  // uploads (Micropub photos) go to a data directory of its own, never the clone's ./data
  const dataDir = testDataDir();
  const config = loadConfig({ env: { INDIEWEB_BASE_URL: BASE_URL, INDIEWEB_DATA_DIR: dataDir, ...options.env } });
  const clock = createManualClock(new Date());
  const app = Fastify({
    routerOptions: { ignoreTrailingSlash: true },
    ...(options.log === undefined ? {} : { logger: { level: 'info', stream: options.log } }),
  });
  await app.register(indieweb, {
    database,
    config,
    secret: TEST_SECRET,
    clock,
    handler:
      options.handler ??
      (TEST_HANDLER === 'database'
        ? createDatabaseHandler({ baseUrl: BASE_URL, entries: createEntriesRepository(database.db), clock })
        : createMemoryHandler({ baseUrl: BASE_URL })),
    ...(options.urlPolicy === undefined ? {} : { urlPolicy: options.urlPolicy }),
  });
  await app.ready();
  return withAlice(app, database, clock, async () => {
    await app.close();
    await database.dispose();
    rmSync(dataDir, { recursive: true, force: true });
  });
}

type QueryValue = string | readonly string[];

function authHeaders(token: string | null): Record<string, string> {
  return token === null ? {} : { authorization: `Bearer ${token}` };
}

/** `?a=1&b[]=x&b[]=y` from a map; arrays repeat the name as given. */
export function queryString(query: Readonly<Record<string, QueryValue>>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    for (const item of typeof value === 'string' ? [value] : value) params.append(name, item);
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/** GET /indieweb/micropub/ with the token in the header. */
export function micropubGet(
  app: FastifyInstance,
  token: string | null,
  query: Readonly<Record<string, QueryValue>> = {},
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return app.inject({ method: 'GET', url: `${MICROPUB}${queryString(query)}`, headers: { host: HOST, ...authHeaders(token), ...headers } });
}

/** POST a form body (a map, repeated names as arrays, or raw text). */
export function postForm(
  app: FastifyInstance,
  token: string | null,
  fields: Readonly<Record<string, QueryValue>> | string,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  const payload = typeof fields === 'string' ? fields : queryString(fields).slice(1);
  return app.inject({
    method: 'POST',
    url: MICROPUB,
    headers: { host: HOST, 'content-type': 'application/x-www-form-urlencoded', ...authHeaders(token), ...headers },
    payload,
  });
}

/** POST a JSON body (a value to serialize, or raw text/bytes sent as is). */
export function postJson(
  app: FastifyInstance,
  token: string | null,
  body: unknown,
  options: { raw?: boolean; headers?: Record<string, string> } = {},
): Promise<LightMyRequestResponse> {
  const payload = options.raw === true ? (body as string | Buffer) : JSON.stringify(body);
  return app.inject({
    method: 'POST',
    url: MICROPUB,
    headers: { host: HOST, 'content-type': 'application/json', ...authHeaders(token), ...options.headers },
    payload,
  });
}

/** Creates an entry through the endpoint (JSON) and returns its URL. */
export async function createViaJson(
  app: FastifyInstance,
  token: string,
  properties: Record<string, unknown[]>,
  type: string[] = ['h-entry'],
): Promise<string> {
  const response = await postJson(app, token, { type, properties });
  if (response.statusCode !== 201) throw new Error(`create answered ${response.statusCode}: ${response.body}`);
  return response.headers.location as string;
}

export interface HandlerCall {
  readonly operation: keyof MicropubHandler;
  readonly args: readonly unknown[];
}

/**
 * A handler that records every call and delegates to `inner` (an in-memory
 * handler by default). Override single methods through `overrides`.
 */
export function createSpyHandler(
  overrides: Partial<MicropubHandler> = {},
  inner: MicropubHandler = createMemoryHandler({ baseUrl: BASE_URL }),
): { handler: MicropubHandler; calls: HandlerCall[] } {
  const calls: HandlerCall[] = [];
  const target: Record<string, unknown> = {};
  const names: (keyof MicropubHandler)[] = [
    'createEntry',
    'getEntry',
    'updateEntry',
    'deleteEntry',
    'undeleteEntry',
    'getConfig',
    'listEntries',
  ];
  for (const name of names) {
    const impl = (overrides[name] ?? inner[name]?.bind(inner)) as ((...args: unknown[]) => Promise<unknown>) | undefined;
    if (impl === undefined) continue;
    target[name] = async (...args: unknown[]) => {
      calls.push({ operation: name, args: structuredClone(args) });
      return impl(...args);
    };
  }
  return { handler: target as unknown as MicropubHandler, calls };
}

/** The calls of one operation. */
export function callsOf(calls: readonly HandlerCall[], operation: keyof MicropubHandler): HandlerCall[] {
  return calls.filter((call) => call.operation === operation);
}
