/**
 * Issue 28 F15: the live SQLite database was created 0644 (readable by every
 * user of the machine: password and token hashes, webhook deliveries) while
 * backups are 0600. A real `indiestack serve` on a fresh data directory makes
 * the directory 0700 and the database, `-wal` and `-shm` 0600; one started on
 * files an earlier version left 0644 makes them 0600 and says so in its log.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startCli } from '../helpers/cli.js';
import { freePort } from '../helpers/net.js';
import { killServe, startServe, waitFor, type ServeProcess } from '../helpers/serve.js';

const modeOf = (file: string) => statSync(file).mode & 0o777;
const FILES = ['indiestack.sqlite', 'indiestack.sqlite-wal', 'indiestack.sqlite-shm'];

describe.skipIf(process.platform === 'win32')('SQLite database file permissions (issue 28 F15)', () => {
  let cwd: string;
  let serve: ServeProcess | undefined;
  let savedUmask: number;
  beforeAll(() => {
    // the usual umask of a login shell: without the fix SQLite makes its files 0644 under it
    savedUmask = process.umask(0o022);
  });
  afterAll(() => {
    process.umask(savedUmask);
  });
  afterEach(async () => {
    await killServe(serve);
    serve = undefined;
    rmSync(cwd, { recursive: true, force: true });
  });

  it('a fresh data directory is made 0700 and the database, -wal and -shm are 0600', async () => {
    cwd = mkdtempSync(path.join(os.tmpdir(), 'indiestack-modes-'));
    serve = await startServe(cwd);
    // a write, so the log and its index are in use
    expect((await fetch(`${serve.base}/healthz`)).status).toBe(200);
    const data = path.join(cwd, 'data');
    expect(modeOf(data).toString(8)).toBe('700');
    for (const name of FILES) expect([name, modeOf(path.join(data, name)).toString(8)]).toEqual([name, '600']);
  });

  it('database files left 0644 by an earlier version are made 0600 on start, with a log line naming them', async () => {
    cwd = mkdtempSync(path.join(os.tmpdir(), 'indiestack-modes-'));
    const data = path.join(cwd, 'data');
    mkdirSync(data, { mode: 0o755 });
    const filename = path.join(data, 'indiestack.sqlite');
    // an open WAL database: all three files exist, each 0644
    const old = new SqliteDatabase(filename);
    old.pragma('journal_mode = WAL');
    old.exec('create table t (x integer); insert into t values (1)');
    for (const name of FILES) chmodSync(path.join(data, name), 0o644);
    try {
      // the server's log goes to stdout
      const port = await freePort();
      const child = startCli(['serve', '--port', String(port)], { cwd, env: { INDIEWEB_LOG_LEVEL: 'warn' } });
      serve = { child, port, base: `http://127.0.0.1:${port}`, log: [] };
      let log = '';
      child.stdout?.on('data', (chunk: Buffer) => (log += chunk.toString('utf8')));
      child.stderr?.resume();
      expect(await waitFor(async () => (await fetch(`${serve!.base}/healthz`)).ok, 20_000)).toBe(true);
      for (const name of FILES) expect([name, modeOf(path.join(data, name)).toString(8)]).toEqual([name, '600']);
      expect(log).toContain('database files were readable by other users: made 0600');
      expect(log).toContain('indiestack.sqlite-wal');
      // the directory existed: it is the operator's, and stays as it was
      expect(modeOf(data).toString(8)).toBe('755');
      // the old connection's data is all there
      expect(old.prepare('select count(*) as n from t').get()).toEqual({ n: 1 });
    } finally {
      old.close();
    }
  });
});
