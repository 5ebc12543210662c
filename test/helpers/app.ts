import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { Config } from '../../src/config/config.js';
import { loadConfig } from '../../src/config/env.js';
import { createManualClock } from '../../src/core/clock.js';
import { createServer } from '../../src/app/server.js';
import type { DialectName } from '../../src/storage/connect.js';
import { openTestDatabase, type TestDatabase } from './databases.js';

export const TEST_SECRET = 'test-secret-that-is-long-enough-for-indiestack';

export interface TestApp {
  readonly app: FastifyInstance;
  readonly database: TestDatabase;
  readonly config: Config;
  readonly clock: ReturnType<typeof createManualClock>;
  close(): Promise<void>;
}

/** A standalone server on a fresh database; the job worker is off unless asked for (tests drain jobs themselves). */
export async function buildTestApp(
  options: { dialect?: DialectName; env?: Record<string, string>; worker?: boolean } = {},
): Promise<TestApp> {
  const database = await openTestDatabase(options.dialect ?? 'sqlite');
  // a data directory of its own (uploads, the local media store): never the clone's ./data
  const dataDir = testDataDir();
  const config = loadConfig({
    env: {
      INDIEWEB_BASE_URL: 'http://indiestack.test',
      INDIEWEB_SECRET: TEST_SECRET,
      INDIEWEB_DATABASE_URL: database.url,
      INDIEWEB_DATA_DIR: dataDir,
      ...options.env,
    },
  });
  const clock = createManualClock(new Date());
  const { app } = await createServer({ config, database, clock, logger: false, worker: options.worker ?? false });
  await app.ready();
  return {
    app,
    database,
    config,
    clock,
    async close() {
      await app.close();
      await database.dispose();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A fresh temporary data directory for a test server: tests write only under temporary directories. */
export function testDataDir(): string {
  return mkdtempSync(path.join(os.tmpdir(), 'indiestack-test-data-'));
}

/** A minimal cookie jar for multi-step flows through `inject()` or `fetch`. */
export class CookieJar {
  readonly #cookies = new Map<string, string>();

  store(setCookie: string | string[] | undefined | null): void {
    if (setCookie === undefined || setCookie === null) return;
    for (const line of Array.isArray(setCookie) ? setCookie : [setCookie]) {
      const [pair, ...attributes] = line.split(';');
      const eq = (pair ?? '').indexOf('=');
      const name = (pair ?? '').slice(0, eq).trim();
      const value = (pair ?? '').slice(eq + 1).trim();
      const expired = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a));
      if (expired || value === '') this.#cookies.delete(name);
      else this.#cookies.set(name, value);
    }
  }

  storeFrom(response: LightMyRequestResponse): void {
    this.store(response.headers['set-cookie'] as string | string[] | undefined);
  }

  get(name: string): string | undefined {
    return this.#cookies.get(name);
  }

  header(): string {
    return [...this.#cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

/** The value of a hidden input in a page. */
export function hiddenField(html: string, name: string): string {
  const match = new RegExp(`name="${name}" value="([^"]*)"`).exec(html);
  if (match === null) throw new Error(`no field ${name} in page`);
  return match[1]!
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>');
}

export function form(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString();
}

/** Signs a user in through the real login form; returns the jar holding the session. */
export async function signIn(app: FastifyInstance, username: string, password: string, jar = new CookieJar()): Promise<CookieJar> {
  const page = await app.inject({ method: 'GET', url: '/indieweb/login/', headers: { cookie: jar.header() } });
  jar.storeFrom(page);
  const response = await app.inject({
    method: 'POST',
    url: '/indieweb/login/',
    headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
    payload: form({ _csrf: hiddenField(page.body, '_csrf'), username, password, return_to: '/indieweb/' }),
  });
  if (response.statusCode !== 303) throw new Error(`sign-in failed with ${response.statusCode}`);
  jar.storeFrom(response);
  return jar;
}
