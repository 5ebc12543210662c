import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDatabase, type DatabaseHandle } from './connect.js';

describe('a SQLite file opened by createDatabase, with another connection beside it', () => {
  let dir: string;
  let filename: string;
  let handle: DatabaseHandle;
  let other: SqliteDatabase.Database;

  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'indiestack-stamp-'));
    filename = path.join(dir, 'data.sqlite');
    handle = createDatabase({ kind: 'sqlite', filename });
    // another connection stands for another process or instance on the same file
    other = new SqliteDatabase(filename);
    other.exec('create table t (x integer)');
  });
  afterEach(async () => {
    other.close();
    await handle.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes in WAL mode, syncs at checkpoints, and keeps temporary data (statement journals, sorts) in memory, not in temp files', async () => {
    const pragma = async (name: string) =>
      Object.values((await sql.raw<Record<string, unknown>>(`pragma ${name}`).execute(handle.db)).rows[0] ?? {})[0];
    expect(await pragma('journal_mode')).toBe('wal');
    expect(await pragma('synchronous')).toBe(1); // NORMAL
    expect(await pragma('temp_store')).toBe(2); // MEMORY
  });

  describe('changeStamp', () => {
    it('stays the same while nobody writes', () => {
      const stamp = handle.changeStamp();
      expect(stamp).not.toBeNull();
      other.prepare('select count(*) from t').get();
      expect(handle.changeStamp()).toBe(stamp);
      expect(handle.changeStamp()).toBe(stamp);
    });

    it('changes after every commit of another connection, each one', () => {
      const seen = new Set([handle.changeStamp()]);
      for (let i = 0; i < 50; i++) {
        other.prepare('insert into t values (?)').run(i);
        const stamp = handle.changeStamp();
        expect(seen.has(stamp)).toBe(false);
        seen.add(stamp);
      }
    });

    it('changes after a write through the handle itself', async () => {
      const before = handle.changeStamp();
      await handle.db
        .insertInto('t' as never)
        .values({ x: 1 } as never)
        .execute();
      expect(handle.changeStamp()).not.toBe(before);
    });

    it('stays the same after writes of entries through the handle, which no remembered token depends on (issue 31)', async () => {
      other.exec('create table indieweb_entry (id text primary key, n integer)');
      const before = handle.changeStamp();
      await handle.db
        .insertInto('indieweb_entry' as never)
        .values({ id: 'a', n: 1 } as never)
        .execute();
      await handle.db
        .updateTable('indieweb_entry' as never)
        .set({ n: 2 } as never)
        .execute();
      await handle.db.deleteFrom('indieweb_entry' as never).execute();
      expect(handle.changeStamp()).toBe(before);
      // a table whose name only starts like it still counts
      other.exec('create table indieweb_entry_x (id text)');
      const after = handle.changeStamp();
      await handle.db
        .insertInto('indieweb_entry_x' as never)
        .values({ id: 'a' } as never)
        .execute();
      expect(handle.changeStamp()).not.toBe(after);
    });

    it('changes after another connection truncates the log and writes again', () => {
      other.prepare('insert into t values (1)').run();
      const before = handle.changeStamp();
      other.pragma('wal_checkpoint(TRUNCATE)');
      other.prepare('insert into t values (2)').run();
      expect(handle.changeStamp()).not.toBe(before);
    });

    it('a rolled-back transaction of another connection leaves it alone', () => {
      const before = handle.changeStamp();
      other.exec('begin; insert into t values (1); rollback');
      expect(handle.changeStamp()).toBe(before);
    });

    it('sees commits made through the real path when opened through a symbolic link', async () => {
      const link = path.join(dir, 'link.sqlite');
      symlinkSync(filename, link);
      const linked = createDatabase({ kind: 'sqlite', filename: link });
      try {
        const before = linked.changeStamp();
        other.prepare('insert into t values (1)').run();
        expect(linked.changeStamp()).not.toBe(before);
      } finally {
        await linked.close();
      }
    });
  });
});

describe('changeStamp elsewhere', () => {
  it('an in-memory SQLite database counts its own writes', async () => {
    const handle = createDatabase({ kind: 'sqlite', filename: ':memory:' });
    try {
      const before = handle.changeStamp();
      expect(before).not.toBeNull();
      expect(handle.changeStamp()).toBe(before);
      await handle.db.schema.createTable('t').addColumn('x', 'integer').execute();
      expect(handle.changeStamp()).not.toBe(before);
    } finally {
      await handle.close();
    }
  });
});
