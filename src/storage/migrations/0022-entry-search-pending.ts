// Frozen in time: never edit after release; add a new migration instead.
import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * Issue 31, sixth pass: PostgreSQL's trigram index (migration 0020) was
 * written with every create — extracting ~300 trigrams of the search text
 * was 40 of the ~90 µs of PostgreSQL's CPU a create took. As on SQLite
 * (migration 0021), new entries now reach the index after they are written,
 * in the server's idle time (storage/entry-search.ts):
 * - `search_pending`: true for an entry the index has not taken yet. The
 *   group-commit insert writes it true; the indexer sets it false a step at a
 *   time, and that update is what writes the entry into the index. Every entry
 *   there before this migration, and one inserted by any other writer, is
 *   false: indexed at once, as before.
 * - the trigram index leaves pending entries out (its predicate), so a create
 *   extracts no trigrams;
 * - `indieweb_entry_search_pending`: the pending entries by user, which a
 *   filtered list reads itself (and confirms with its `like`) until they are
 *   indexed — slower while the index lags, never short of an entry.
 * The trigram index is built again with its new predicate: on a large table
 * the migration takes as long as building it did (seconds per 100,000
 * entries; the statement timeout does not apply to it). Where migration 0020
 * could not make it (no `pg_trgm`), the column and the pending index are made
 * all the same and the filter scans.
 * SQLite is unchanged.
 */
/** Whether migration 0020 made the trigram index (it could not without `pg_trgm`). */
async function hasTrigramIndex(db: Kysely<any>): Promise<boolean> {
  const { rows } = await sql<{ found: number }>`select count(*)::int as found from pg_indexes
    where schemaname = current_schema() and tablename = 'indieweb_entry' and indexname = 'indieweb_entry_search_trigram'`.execute(db);
  return Number(rows[0]?.found ?? 0) > 0;
}

export async function up(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  // a default that is a constant: PostgreSQL stores it once, no table rewrite
  await sql`alter table indieweb_entry add column search_pending boolean not null default false`.execute(db);
  await sql`create index indieweb_entry_search_pending on indieweb_entry (user_id, created_at, id) where search_pending`.execute(db);
  if (!(await hasTrigramIndex(db))) return;
  await sql`drop index indieweb_entry_search_trigram`.execute(db);
  // building it may take longer than the server's 30 s statement timeout on a large table: not this statement (the
  // migrations run in one transaction, which `set local` ends with)
  await sql`set local statement_timeout = 0`.execute(db);
  await sql`create index indieweb_entry_search_trigram on indieweb_entry
    using gin (search_text gin_trgm_ops) where deleted_at is null and not search_pending`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  if (await hasTrigramIndex(db)) {
    await sql`drop index indieweb_entry_search_trigram`.execute(db);
    await sql`create index indieweb_entry_search_trigram on indieweb_entry
      using gin (search_text gin_trgm_ops) where deleted_at is null`.execute(db);
  }
  await sql`drop index indieweb_entry_search_pending`.execute(db);
  await sql`alter table indieweb_entry drop column search_pending`.execute(db);
}
