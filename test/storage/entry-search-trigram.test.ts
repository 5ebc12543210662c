/**
 * Issue 31, migrations 0020 and 0022: on PostgreSQL a filtered `q=source`
 * list is answered from a trigram index (pg_trgm) instead of a scan of every
 * live entry of the user; the answers are the same. New entries reach the
 * index after they are written (`search_pending`, taken a step at a time by
 * the indexer); until then the list reads them from their own index. A
 * database whose role may not create the extension migrates all the same,
 * without the index (the filter stays a scan). SQLite's index is another
 * (test/storage/entry-search-sqlite.test.ts).
 */
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { checkSearchIndex } from '../../src/operations/doctor/local-checks.js';
import { createDatabase } from '../../src/storage/connect.js';
import { createEntrySearchIndexer, postgresSearchWork, type SearchIndexWork } from '../../src/storage/entry-search.js';
import { rawAccessOf } from '../../src/storage/raw-access.js';
import { entriesWaitingForSearch } from '../../src/storage/search-index.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { createEntriesRepository, filterMatch, type EntriesRepository } from '../../src/storage/repositories/entries.js';
import { HAS_POSTGRES, openTestDatabase, type TestDatabase } from '../helpers/databases.js';

const BASE = 'https://alice.example';

async function fill(entries: EntriesRepository, userId: string, count: number): Promise<void> {
  for (let n = 0; n < count; n++)
    await entries.insert({
      id: `${userId}-${n}`,
      userId,
      url: `${BASE}/${userId}/${n}/`,
      path: `/${userId}/${n}/`,
      type: ['h-entry'],
      properties: { content: [n === 7 ? 'A heron on the Weir' : `walk number ${n} by the river`], category: ['walks'] },
      published: '2026-11-01T10:00:00.000Z',
      createdAt: `2026-11-01T10:${String(n % 60).padStart(2, '0')}:00.000Z`,
    });
}

/** Runs indexing steps until nothing waits; returns how many entries they took. */
async function indexAll(work: SearchIndexWork, batch = 64): Promise<number> {
  let indexed = 0;
  for (;;) {
    const step = await work.step(batch);
    indexed += step.indexed;
    if (!step.more) return indexed;
  }
}

/** The plan of the filter as the repository writes it (both arms: indexed entries, pending ones). */
const planOf = (database: TestDatabase, userId: string, filter: string) =>
  database.db.connection().execute(async (connection) => {
    const rows = (
      await sql<{ 'QUERY PLAN': string }>`explain select count(*) from indieweb_entry
        where deleted_at is null and user_id = ${userId} and ${filterMatch('postgres', filter)}`.execute(connection)
    ).rows;
    return rows.map((row) => row['QUERY PLAN']).join('; ');
  });

describe.skipIf(!HAS_POSTGRES)('a filtered list on PostgreSQL (migrations 0020 and 0022)', () => {
  let database: TestDatabase;
  let entries: EntriesRepository;
  let work: SearchIndexWork;
  beforeAll(async () => {
    database = await openTestDatabase('postgres');
    entries = createEntriesRepository(database.db);
    const raw = rawAccessOf(database.db);
    if (raw?.dialect !== 'postgres') throw new Error('the test database was not opened by createDatabase');
    work = postgresSearchWork(raw);
    await fill(entries, 'alice-id', 300);
    await fill(entries, 'bob-id', 20);
    await entries.markDeleted('alice-id-3', '2026-11-02T00:00:00.000Z');
    // and 20,000 more of alice's, written in one statement: enough rows for the planner to weigh its indexes
    await sql`insert into indieweb_entry (id, user_id, url, path, type, properties, post_status, visibility, published,
        created_at, updated_at, deleted_at, version, slug_series, slug_number, search_text)
      select 'bulk-' || n, 'alice-id', ${BASE} || '/bulk/' || n || '/', '/bulk/' || n || '/', '["h-entry"]',
        '{"content":["a bulk walk ' || n || '"]}', 'published', 'public', '2026-10-01T00:00:00.000Z',
        '2026-10-01T00:00:00.000Z', '2026-10-01T00:00:00.000Z', null, 1, '/bulk/' || n, 1,
        '{"properties":{"content":["a bulk walk ' || n || '"]},"type":["h-entry"]}'
      from generate_series(1, 20000) as n`.execute(database.db);
    // vacuum too: it merges the GIN index's pending list (the 20,000 rows above), which the planner prices a bitmap scan by;
    // with plain analyze the plan depended on whether autovacuum had come by yet
    await sql`vacuum analyze indieweb_entry`.execute(database.db);
  });
  afterAll(async () => {
    await database.dispose();
  });

  /** The answers the scan gave before the index (issue 31's tests of migration 0020), whatever the index holds. */
  async function expectScanAnswers(): Promise<void> {
    const ids = async (filter: string) => {
      const { rows, total } = await entries.listByUserMatching('alice-id', filter, { offset: 0, limit: null });
      expect(rows).toHaveLength(total);
      return rows.map((row) => JSON.stringify(row.properties.content));
    };
    expect(await ids('HERON ON THE weir')).toEqual(['["A heron on the Weir"]']);
    expect(await ids('matches-nothing')).toEqual([]);
    expect(await ids('walk number 3 ')).toEqual([]);
    expect((await ids('walk number 1')).length).toBe(111); // 1, 10–19, 100–199
    expect((await entries.listByUserMatching('alice-id', 'bulk walk', { offset: 0, limit: 20 })).total).toBe(20_000);
    expect(await ids('walk_number')).toEqual([]);
    expect(await ids('walk%number')).toEqual([]);
    expect((await entries.listByUserMatching('bob-id', 'heron', { offset: 0, limit: null })).total).toBe(1);
    // newest created first (created_at cycles through the minutes of an hour: then the id, descending), paged
    const page = await entries.listByUserMatching('alice-id', 'walk number', { offset: 5, limit: 3 });
    expect([page.total, page.rows.map((row) => row.id)]).toEqual([298, ['alice-id-58', 'alice-id-298', 'alice-id-238']]);
  }

  it('entries created through the repository wait for the index; the list finds them meanwhile, and after the indexer took them', async () => {
    // the 320 of fill() wait (the group-commit insert); the 20,000 written by another writer were indexed at once
    expect(await entriesWaitingForSearch(database)).toBe(320);
    expect(await checkSearchIndex(database)).toMatchObject({
      name: 'search-index',
      status: 'PASS',
      message: 'a filtered q=source list is answered from a trigram index (pg_trgm; 320 entries wait to be indexed)',
    });
    await expectScanAnswers();
    expect(await indexAll(work)).toBe(320);
    expect(await entriesWaitingForSearch(database)).toBe(0);
    expect((await work.probe()).waiting).toBe(false);
    await expectScanAnswers();
    // a change after indexing goes into the index with the update: the new text is found, the old one is not
    await entries.modify('alice-id-7', (current) => ({
      properties: { ...current.properties, content: ['An egret on the Weir'] },
      published: current.published,
      updatedAt: '2026-11-03T00:00:00.000Z',
    }));
    expect((await entries.listByUserMatching('alice-id', 'egret', { offset: 0, limit: null })).total).toBe(1);
    expect((await entries.listByUserMatching('alice-id', 'heron', { offset: 0, limit: null })).total).toBe(0);
    await entries.modify('alice-id-7', (current) => ({
      properties: { ...current.properties, content: ['A heron on the Weir'] },
      published: current.published,
      updatedAt: '2026-11-04T00:00:00.000Z',
    }));
    expect(await entriesWaitingForSearch(database)).toBe(0);
    await expectScanAnswers();
  });

  it('the probe says whether entries wait, and changes with every entry written, by anyone, not with nothing', async () => {
    await indexAll(work);
    const quiet = await work.probe();
    expect(quiet.waiting).toBe(false);
    expect((await work.probe()).writes).toBe(quiet.writes);
    await fill(entries, 'erin-id', 1);
    const created = await work.probe();
    expect(created.waiting).toBe(true);
    expect(created.writes).not.toBe(quiet.writes);
    await indexAll(work);
    const indexed = (await work.probe()).writes;
    // a change by another writer, in SQL by hand
    await sql`update indieweb_entry set search_text = search_text || ' ' where id = 'erin-id-0'`.execute(database.db);
    const changed = await work.probe();
    expect([changed.waiting, changed.writes === indexed]).toEqual([false, false]);
  });

  it('after taking a large backlog the indexer has the statistics taken again: the planner reads the indexes at once', async () => {
    await indexAll(work);
    const lastAnalyze = async () =>
      (
        await sql<{ at: Date | null }>`select last_analyze as at from pg_stat_user_tables where relname = 'indieweb_entry'`.execute(
          database.db,
        )
      ).rows[0]?.at ?? null;
    const before = await lastAnalyze();
    // 12,000 entries pending, as a bulk of creates leaves them; their statistics say so
    await sql`insert into indieweb_entry (id, user_id, url, path, type, properties, post_status, visibility, published,
        created_at, updated_at, deleted_at, version, slug_series, slug_number, search_text, search_pending)
      select 'fern-' || n, 'fern-id', ${BASE} || '/fern/' || n || '/', '/fern/' || n || '/', '["h-entry"]',
        '{"content":["a fern ' || n || '"]}', 'published', 'public', '2026-10-01T00:00:00.000Z',
        '2026-10-01T00:00:00.000Z', '2026-10-01T00:00:00.000Z', null, 1, '/fern/' || n, 1,
        '{"properties":{"content":["a fern ' || n || '"]},"type":["h-entry"]}', true
      from generate_series(1, 12000) as n`.execute(database.db);
    await sql`analyze indieweb_entry`.execute(database.db);
    const analysedPending = await lastAnalyze();
    expect(await indexAll(work, 500)).toBe(12_000);
    await expect.poll(lastAnalyze, { timeout: 5_000 }).not.toEqual(analysedPending);
    expect(before).not.toBeNull();
    expect(await planOf(database, 'fern-id', 'matches-nothing')).toMatch(/Bitmap Index Scan on indieweb_entry_search_trigram/);
    expect((await entries.listByUserMatching('fern-id', 'a fern 1199', { offset: 0, limit: null })).total).toBe(11); // 1199, 11990–11999
  });

  it('the doctor finds the index on PostgreSQL', async () => {
    await indexAll(work);
    expect(await checkSearchIndex(database)).toMatchObject({
      name: 'search-index',
      status: 'PASS',
      message: 'a filtered q=source list is answered from a trigram index (pg_trgm; 0 entries wait to be indexed)',
    });
  });

  it('reads the trigram index for the indexed entries and the pending entries by their own index, not every row of the user', async () => {
    await indexAll(work);
    // what autovacuum does in a server: merges the GIN's pending list and counts the pending entries again
    await sql`vacuum analyze indieweb_entry`.execute(database.db);
    expect(await planOf(database, 'alice-id', 'matches-nothing')).toMatch(
      /Bitmap Index Scan on indieweb_entry_search_trigram.*Index Scan on indieweb_entry_search_pending|Index Scan on indieweb_entry_search_pending.*Bitmap Index Scan on indieweb_entry_search_trigram/,
    );
  });

  it('the indexer takes what waits by itself, beside the steps of another instance', async () => {
    await fill(entries, 'dora-id', 150);
    expect(await entriesWaitingForSearch(database)).toBe(150);
    const errors: unknown[] = [];
    const one = createEntrySearchIndexer({ work, onError: (error) => errors.push(error), tickMs: 5, stepMs: 0, batch: 16 });
    const other = createEntrySearchIndexer({
      work: postgresSearchWork(rawAccessOf(database.db) as Parameters<typeof postgresSearchWork>[0]),
      onError: (error) => errors.push(error),
      tickMs: 5,
      stepMs: 0,
      batch: 16,
    });
    one.start();
    other.start();
    try {
      await expect.poll(() => entriesWaitingForSearch(database), { timeout: 10_000 }).toBe(0);
    } finally {
      await one.stop();
      await other.stop();
    }
    expect(errors).toEqual([]);
    expect((await entries.listByUserMatching('dora-id', 'heron', { offset: 0, limit: null })).total).toBe(1);
  });

  it('migrates all the same where the role may not create the extension: no index, the filter still answers', async () => {
    const admin = inject('postgresAdminUrl');
    const name = `t_trgm_${process.pid}_${Date.now()}`;
    const role = `${name}_role`;
    const client = new pg.Client({ connectionString: admin });
    await client.connect();
    try {
      await client.query(`create role ${role} login password 'limited-role-password'`);
      // the role owns its schema but not the database: it may make tables, not extensions
      await client.query(`create database ${name}`);
      const inDatabase = new pg.Client({ connectionString: admin.replace(/\/postgres$/, `/${name}`) });
      await inDatabase.connect();
      await inDatabase.query(`revoke create on database ${name} from public`);
      await inDatabase.query(`create schema app authorization ${role}`);
      await inDatabase.query(`alter role ${role} set search_path = app`);
      await inDatabase.end();
      const url = new URL(admin.replace(/\/postgres$/, `/${name}`));
      url.username = role;
      url.password = 'limited-role-password';
      const handle = createDatabase({ kind: 'postgres', url: url.href });
      try {
        const { error } = await migrateToLatest(handle.db);
        expect(error).toBeUndefined();
        const indexes = await sql<{ indexname: string }>`select indexname from pg_indexes where tablename = 'indieweb_entry'`.execute(
          handle.db,
        );
        expect(indexes.rows.map((row) => row.indexname)).not.toContain('indieweb_entry_search_trigram');
        // the doctor says so, with the statements that make it
        const check = await checkSearchIndex(handle);
        expect(check).toMatchObject({ name: 'search-index', status: 'WARN' });
        expect(check?.message).toMatch(/^no trigram index: a filtered q=source list reads every entry of the user/);
        expect(check?.fix).toContain(
          'create extension if not exists pg_trgm; create index indieweb_entry_search_trigram on indieweb_entry',
        );
        const limited = createEntriesRepository(handle.db);
        await fill(limited, 'carol-id', 10);
        expect((await limited.listByUserMatching('carol-id', 'heron', { offset: 0, limit: 20 })).total).toBe(1);
      } finally {
        await handle.close();
      }
    } finally {
      await client.query(`drop database if exists ${name} with (force)`);
      await client.query(`drop role if exists ${role}`);
      await client.end();
    }
  });
});
