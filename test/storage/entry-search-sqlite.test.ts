/**
 * Issue 31, migration 0021: on SQLite a filtered `q=source` list is answered
 * from a trigram index written after the entries (storage/entry-search.ts).
 * Whatever the index has seen — nothing, everything, entries changed, deleted
 * or written by another connection since — the answers are exactly those of
 * a scan of the user's entries.
 */
import SqliteDatabase from 'better-sqlite3';
import { rmSync } from 'node:fs';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkSearchIndex } from '../../src/operations/doctor/local-checks.js';
import {
  createEntrySearchIndexer,
  indexEntrySearchStep,
  sqliteSearchWork,
  MAX_SEARCH_CANDIDATES,
  searchCandidateRowids,
  searchCandidates,
  trigramQuery,
} from '../../src/storage/entry-search.js';
import { createDatabase } from '../../src/storage/connect.js';
import { rawAccessOf, type RawSqlite } from '../../src/storage/raw-access.js';
import { snapshotSqlite } from '../../src/storage/snapshot.js';
import { createEntriesRepository, type EntriesRepository } from '../../src/storage/repositories/entries.js';
import { openTestDatabase, withUnmigratedDatabase, type TestDatabase } from '../helpers/databases.js';

const BASE = 'https://alice.example';

/** Indexes everything waiting, step by step, as the server's indexer does in its idle time; how many entries it indexed. */
async function indexAll(raw: RawSqlite, batch = 200): Promise<number> {
  let total = 0;
  for (;;) {
    const step = await indexEntrySearchStep(raw, batch);
    total += step.indexed;
    if (!step.more) return total;
  }
}

const FILTERS = [
  'HERON ON THE weir',
  'heron',
  'matches-nothing',
  'walk number 1',
  'walk number 3 ',
  'walk_number',
  'walk%number',
  'he',
  'e',
  '"content"',
  '"',
  'a "quoted" word',
  "o'clock",
  'AND',
  'heron AND weir',
  'near(heron weir)',
  'her*',
  '\\',
  'back\\slash',
  'café',
  'CAFÉ AU',
  '🦩 flamingo',
  '🦩',
  '"properties":{"category":["walks"]',
  'x'.repeat(200),
  'walk number 12 by the river',
  'wal\0k',
  'walk\ud800 number',
  '\u0130stanbul',
  '   ',
  '"""',
  '...',
  '-- ;',
  // the url and published the list item gets when its properties have none (SPEC.md "Source, list mode")
  'alice-id/12/',
  '2026-11-01t10:00:00',
];

let n = 0;
async function add(entries: EntriesRepository, userId: string, content: string): Promise<string> {
  n += 1;
  const id = `${userId}-${n}`;
  await entries.insert({
    id,
    userId,
    url: `${BASE}/${userId}/${n}/`,
    path: `/${userId}/${n}/`,
    type: ['h-entry'],
    properties: { content: [content], category: ['walks'] },
    published: '2026-11-01T10:00:00.000Z',
    createdAt: `2026-11-01T10:${String(n % 60).padStart(2, '0')}:${String(n % 59).padStart(2, '0')}.000Z`,
  });
  return id;
}

const contentOf = (i: number) =>
  i % 97 === 7
    ? `A heron on the Weir at ${i} o'clock`
    : i % 89 === 5
      ? `a "quoted" word, a back\\slash and a café au lait 🦩 flamingo ${i}`
      : `walk number ${i} by the river`;

describe('a filtered list on SQLite (migration 0021-entry-search-sqlite)', () => {
  let database: TestDatabase;
  let entries: EntriesRepository;
  let raw: RawSqlite;

  /** What a scan of the user's live entries finds, newest created first: the answer the index must give. */
  const scanned = async (userId: string, filter: string) => {
    const pattern = `%${filter.toLowerCase().replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
    const rows = await sql<{ id: string }>`select id from indieweb_entry where user_id = ${userId} and deleted_at is null
      and search_text like ${pattern} escape '\\' order by created_at desc, id desc`.execute(database.db);
    return rows.rows.map((row) => row.id);
  };

  const listed = async (userId: string, filter: string, page = { offset: 0, limit: null as number | null }) =>
    entries.listByUserMatching(userId, filter, page);

  /** Every filter, whole and in pages, answers as the scan does. */
  async function expectScanAnswers(userId = 'alice-id'): Promise<void> {
    for (const filter of FILTERS) {
      const expected = await scanned(userId, filter);
      const { rows, total } = await listed(userId, filter);
      expect({ filter, ids: rows.map((row) => row.id), total }).toEqual({ filter, ids: expected, total: expected.length });
      const page = await listed(userId, filter, { offset: 2, limit: 3 });
      expect({ filter, ids: page.rows.map((row) => row.id), total: page.total }).toEqual({
        filter,
        ids: expected.slice(2, 5),
        total: expected.length,
      });
    }
  }

  const state = async () => {
    const mark = await sql<{ mark: number; newest: number; stale: number }>`select
      (select indexed_through from indieweb_entry_search_state) as mark,
      (select coalesce(max(rowid), 0) from indieweb_entry) as newest,
      (select count(*) from indieweb_entry_search_stale) as stale`.execute(database.db);
    return mark.rows[0]!;
  };

  beforeAll(async () => {
    database = await openTestDatabase('sqlite');
    entries = createEntriesRepository(database.db);
    raw = rawAccessOf(database.db) as RawSqlite;
    for (let i = 0; i < 400; i++) await add(entries, 'alice-id', contentOf(i));
    for (let i = 0; i < 30; i++) await add(entries, 'bob-id', contentOf(i));
    await entries.markDeleted('alice-id-8', '2026-11-02T00:00:00.000Z');
  });
  afterAll(async () => {
    await database.dispose();
  });

  it('answers as a scan before anything is indexed', async () => {
    expect(await state()).toMatchObject({ mark: 0, stale: 0 });
    await expectScanAnswers();
    expect((await listed('alice-id', 'heron')).total).toBe(4);
    expect((await listed('bob-id', 'heron')).total).toBe(1);
  });

  it('indexes every entry, and then answers from the index as a scan does', async () => {
    expect(await indexAll(raw, 64)).toBe(430);
    const after = await state();
    expect(after).toEqual({ mark: after.newest, newest: after.newest, stale: 0 });
    // a rare filter's candidates are few now, and they are read by rowid from the index
    expect(Number((await searchCandidates(trigramQuery('heron on the weir')!).execute(database.db)).rows[0]!.n)).toBeLessThan(10);
    const plan = await sql<{ detail: string }>`explain query plan select count(*) from indieweb_entry not indexed
      where rowid in ${searchCandidateRowids(trigramQuery('heron')!)} and user_id = 'alice-id'`.execute(database.db);
    const steps = plan.rows.map((row) => row.detail).join('; ');
    expect(steps).toMatch(/SEARCH indieweb_entry USING INTEGER PRIMARY KEY \(rowid=\?\)/);
    expect(steps).toMatch(/SCAN indieweb_entry_search VIRTUAL TABLE/);
    expect(steps).not.toMatch(/SCAN indieweb_entry(?! *_search)/);
    await expectScanAnswers();
    await expectScanAnswers('bob-id');
  });

  it('answers as a scan for entries changed, deleted, undeleted, removed and added since, by this connection or another', async () => {
    // changed here: the old text no longer matches, the new one does
    const heron = (await listed('alice-id', 'heron')).rows[0]!;
    const changed = await entries.updateIfVersion(heron.id, heron.version, {
      properties: { content: ['an egret now'], category: ['walks'] },
      published: heron.published,
      updatedAt: '2026-11-03T00:00:00.000Z',
    });
    expect(changed).toBe(true);
    expect((await listed('alice-id', 'egret')).rows.map((row) => row.id)).toEqual([heron.id]);
    // changed by another connection (the CLI, another instance on the same file)
    const other = new SqliteDatabase(database.url.replace(/^sqlite:/, ''));
    try {
      other
        .prepare(`update indieweb_entry set search_text = '{"properties":{"content":["a kingfisher"]}}' where id = ?`)
        .run('alice-id-20');
      // removed for good, the newest entry: its rowid is given to the next one
      other.prepare('delete from indieweb_entry where id = ?').run(`alice-id-${n - 30}`);
    } finally {
      other.close();
    }
    await entries.markDeleted('alice-id-105', '2026-11-03T00:00:00.000Z');
    await entries.markUndeleted('alice-id-8', '2026-11-03T00:00:00.000Z');
    const newest = await state();
    await add(entries, 'alice-id', 'a heron after the removal');
    expect((await state()).newest).toBeGreaterThan(0);
    expect(newest.stale).toBeGreaterThanOrEqual(3);
    expect((await listed('alice-id', 'kingfisher')).total).toBe(1);
    await expectScanAnswers();
    // indexed again: the same answers, nothing stale
    await indexAll(raw);
    expect(await state()).toMatchObject({ stale: 0 });
    await expectScanAnswers();
    expect((await listed('alice-id', 'heron after the removal')).total).toBe(1);
  });

  it('an update that leaves the text as it was leaves the index alone', async () => {
    const row = (await listed('alice-id', 'walk number 12 by')).rows[0]!;
    const before = await state();
    expect(
      await entries.updateIfVersion(row.id, row.version, {
        properties: row.properties,
        published: row.published,
        updatedAt: '2026-11-04T00:00:00.000Z',
      }),
    ).toBe(true);
    expect(await state()).toEqual(before);
    expect(
      await entries.updateIfVersion(row.id, row.version + 1, {
        properties: { ...row.properties, name: ['a name'] },
        published: row.published,
        updatedAt: '2026-11-04T00:00:01.000Z',
      }),
    ).toBe(true);
    expect((await state()).stale).toBe(before.stale + 1);
    await expectScanAnswers();
  });

  it('keeps up by itself once started, and stops', async () => {
    for (let i = 0; i < 50; i++) await add(entries, 'alice-id', contentOf(1000 + i));
    const indexer = createEntrySearchIndexer({
      work: sqliteSearchWork(raw),
      onError: (error) => expect.fail(String(error)),
      tickMs: 5,
      stepMs: 0,
      batch: 16,
    });
    indexer.start();
    try {
      await expect.poll(async () => (await state()).mark, { timeout: 10_000, interval: 20 }).toBe((await state()).newest);
    } finally {
      await indexer.stop();
    }
    await expectScanAnswers();
  });

  it('a backup copy (VACUUM INTO) keeps every rowid, gaps included, so its index answers as a scan there too', async () => {
    const target = `${database.url.replace(/^sqlite:/, '')}.copy-${process.pid}`;
    snapshotSqlite(database.url.replace(/^sqlite:/, ''), target, { timeoutMs: 1000 });
    const copy = createDatabase({ kind: 'sqlite', filename: target });
    try {
      const original = entries;
      const copied = createEntriesRepository(copy.db);
      for (const filter of FILTERS) {
        const [mine, theirs] = await Promise.all([
          original.listByUserMatching('alice-id', filter, { offset: 0, limit: null }),
          copied.listByUserMatching('alice-id', filter, { offset: 0, limit: null }),
        ]);
        expect({ filter, ids: theirs.rows.map((row) => row.id) }).toEqual({ filter, ids: mine.rows.map((row) => row.id) });
      }
    } finally {
      await copy.close();
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${target}${suffix}`, { force: true });
    }
  });

  it('the doctor says how many entries wait to be indexed', async () => {
    await add(entries, 'alice-id', 'one more');
    expect(await checkSearchIndex(database)).toMatchObject({
      name: 'search-index',
      status: 'PASS',
      message: 'a filtered q=source list is answered from the entry search index (1 entry waits to be indexed)',
    });
  });
});

describe('a filter with more candidates than the index hands over', () => {
  it('is answered by reading the user’s entries in order, as a scan', async () => {
    const database = await openTestDatabase('sqlite');
    try {
      // more entries than MAX_SEARCH_CANDIDATES, every one matching 'bulk walk'
      await sql`with recursive numbers(n) as (select 1 union all select n + 1 from numbers where n < ${MAX_SEARCH_CANDIDATES + 500})
        insert into indieweb_entry (id, user_id, url, path, type, properties, post_status, visibility, published,
          created_at, updated_at, deleted_at, version, slug_series, slug_number, search_text)
        select 'bulk-' || n, 'alice-id', ${BASE} || '/bulk/' || n || '/', '/bulk/' || n || '/', '["h-entry"]',
          '{"content":["a bulk walk ' || n || '"]}', 'published', 'public', '2026-10-01T00:00:00.000Z',
          printf('2026-10-01T00:00:%05d.000Z', n), '2026-10-01T00:00:00.000Z', null, 1, '/bulk/' || n, 1,
          '{"properties":{"content":["a bulk walk ' || n || '"]},"type":["h-entry"]}'
        from numbers`.execute(database.db);
      const entries = createEntriesRepository(database.db);
      for (const indexed of [false, true]) {
        if (indexed) await indexAll(rawAccessOf(database.db) as RawSqlite);
        const query = trigramQuery('bulk walk')!;
        expect(Number((await searchCandidates(query).execute(database.db)).rows[0]!.n)).toBeGreaterThan(MAX_SEARCH_CANDIDATES);
        const page = await entries.listByUserMatching('alice-id', 'BULK WALK', { offset: 10, limit: 5 });
        expect(page.total).toBe(MAX_SEARCH_CANDIDATES + 500);
        expect(page.rows.map((row) => row.id)).toEqual([2490, 2489, 2488, 2487, 2486].map((k) => `bulk-${k}`));
        const rare = await entries.listByUserMatching('alice-id', 'bulk walk 1234"', { offset: 0, limit: 5 });
        expect(rare.rows.map((row) => row.id)).toEqual(['bulk-1234']);
      }
    } finally {
      await database.dispose();
    }
  });
});

describe('the filter as an index query', () => {
  it('is every third trigram and the last, quoted; none under three characters or for text SQLite would not read as it', () => {
    expect(trigramQuery('Heron')).toBe('"her" AND "ron"');
    expect(trigramQuery('her')).toBe('"her"');
    expect(trigramQuery('a "b" c')).toBe('"a """ AND "b"" " AND """ c"');
    expect(trigramQuery('🦩🦩🦩x')).toBe('"🦩🦩🦩" AND "🦩🦩x"');
    expect(trigramQuery('he')).toBeNull();
    expect(trigramQuery('')).toBeNull();
    expect(trigramQuery('abc\0def')).toBeNull();
    expect(trigramQuery('abc\ud800def')).toBeNull();
    expect(trigramQuery('x'.repeat(300))!.split(' AND ')).toHaveLength(16);
  });
});

describe('a SQLite that cannot make the index', () => {
  it('migrates all the same, answers filters by reading the entries, and the doctor says so', async () => {
    await withUnmigratedDatabase('sqlite', async ({ handle, migrator }) => {
      expect((await migrator.migrateTo('0020-entry-search-trigram')).error).toBeUndefined();
      // the name taken, so that creating the index fails as it does without FTS5's trigram tokenizer
      await sql`create table indieweb_entry_search (x integer)`.execute(handle.db);
      expect((await migrator.migrateToLatest()).error).toBeUndefined();
      const states = await sql<{ name: string }>`select name from sqlite_master where name = 'indieweb_entry_search_state'`.execute(
        handle.db,
      );
      expect(states.rows).toEqual([]);
      const entries = createEntriesRepository(handle.db);
      for (let i = 0; i < 120; i++) await add(entries, 'carol-id', contentOf(i));
      const heron = await entries.listByUserMatching('carol-id', 'Heron on the weir', { offset: 0, limit: 20 });
      expect(heron.total).toBe(2);
      expect(heron.rows.map((row) => String(row.properties.content)).sort()).toEqual([
        "A heron on the Weir at 104 o'clock",
        "A heron on the Weir at 7 o'clock",
      ]);
      const check = await checkSearchIndex(handle);
      expect(check).toMatchObject({ name: 'search-index', status: 'WARN' });
      expect(check?.message).toBe(
        'no entry search index: a filtered q=source list reads every entry of the user (this SQLite has no FTS5 trigram tokenizer)',
      );
    });
  });
});

describe('migration 0021 on SQLite', () => {
  it('goes down and up again', async () => {
    await withUnmigratedDatabase('sqlite', async ({ handle, migrator }) => {
      expect((await migrator.migrateToLatest()).error).toBeUndefined();
      const tables = async () =>
        (
          await sql<{ name: string }>`select name from sqlite_master where name like 'indieweb_entry_search%' order by name`.execute(
            handle.db,
          )
        ).rows.map((row) => row.name);
      expect(await tables()).toEqual(
        expect.arrayContaining([
          'indieweb_entry_search',
          'indieweb_entry_search_delete',
          'indieweb_entry_search_stale',
          'indieweb_entry_search_state',
          'indieweb_entry_search_update',
        ]),
      );
      expect((await migrator.migrateTo('0020-entry-search-trigram')).error).toBeUndefined();
      expect(await tables()).toEqual([]);
      expect((await migrator.migrateToLatest()).error).toBeUndefined();
      expect(await tables()).toContain('indieweb_entry_search_state');
    });
  });
});
