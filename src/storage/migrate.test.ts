import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDatabase } from './connect.js';
import { MIGRATION_TABLE, migrateToLatest } from './migrate.js';
import { MIGRATIONS } from './migrations/index.js';

describe('migrateToLatest on SQLite while another process holds the write lock', () => {
  let dir: string;
  let filename: string;
  let other: SqliteDatabase.Database;

  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'indiestack-migrate-wait-'));
    filename = path.join(dir, 'data.sqlite');
    // another connection stands for another instance, migrating the same new file
    other = new SqliteDatabase(filename);
    other.pragma('journal_mode = WAL');
    other.exec('begin immediate');
  });
  afterEach(() => {
    other.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('waits past the database timeout for the lock, then applies every migration', async () => {
    // a database timeout of 0.1 s: each try to take the lock gives up quickly; the lock is held for 0.6 s
    const handle = createDatabase({ kind: 'sqlite', filename }, { timeoutSeconds: 0.1 });
    try {
      setTimeout(() => other.exec('commit'), 600);
      const result = await migrateToLatest(handle.db);
      expect(result.error).toBeUndefined();
      const applied = other.prepare(`select count(*) as n from ${MIGRATION_TABLE}`).get() as { n: number };
      expect(applied.n).toBe(Object.keys(MIGRATIONS).length);
    } finally {
      await handle.close();
    }
  });

  it('gives up with the busy error once its own wait is over, and applies nothing', async () => {
    const handle = createDatabase({ kind: 'sqlite', filename }, { timeoutSeconds: 0.1 });
    try {
      const result = await migrateToLatest(handle.db, { sqliteWaitMs: 300 });
      expect(result.error).toMatchObject({ code: 'SQLITE_BUSY' });
      other.exec('commit');
      const tables = other.prepare(`select count(*) as n from sqlite_master where name = ?`).get(MIGRATION_TABLE) as { n: number };
      expect(tables.n).toBe(0);
    } finally {
      await handle.close();
    }
  });
});
