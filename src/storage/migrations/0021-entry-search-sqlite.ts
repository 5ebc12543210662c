// Frozen in time: never edit after release; add a new migration instead.
import { SqliteAdapter, sql, type Kysely } from 'kysely';

/**
 * Issue 31: SQLite's filtered `q=source` list from an index, as PostgreSQL's
 * (migration 0020). An FTS5 trigram index written with every insert made a
 * create 3–10× slower, so this one is written after the entries, outside
 * their transactions (storage/entry-search.ts):
 * - `indieweb_entry_search`: the trigram index of the entries' search text
 *   (contentless, positions not kept: the filter's own `like` confirms every
 *   candidate), by the entry's rowid;
 * - `indieweb_entry_search_state`: the highest entry rowid indexed. Rowids
 *   are given in commit order (one writer at a time), so every entry above it
 *   is one the index has not seen, and the list reads those by the rowid;
 * - `indieweb_entry_search_stale`: indexed entries whose text changed or
 *   that were deleted (a deleted rowid can be given again), read by the list
 *   like the unindexed ones until they are indexed again. The triggers below
 *   keep it: what an entry write adds is one row here, never index work.
 * PostgreSQL has its trigram index already: nothing changes there. A SQLite
 * that cannot make the index migrates all the same, without these.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) return;
  try {
    await sql`create virtual table indieweb_entry_search using fts5(
      search_text, content = '', contentless_delete = 1, detail = none, tokenize = 'trigram')`.execute(db);
  } catch {
    // a SQLite without FTS5's trigram tokenizer or contentless deletes (3.43+): a host's own driver, not the bundled
    // better-sqlite3, which has both. A failed statement leaves the migration's transaction as it was; the filter
    // stays a scan and the doctor says why (storage/search-index.ts `hasEntrySearchIndex`)
    return;
  }
  await sql`create table indieweb_entry_search_state (
    id integer primary key check (id = 1), indexed_through integer not null)`.execute(db);
  await sql`insert into indieweb_entry_search_state (id, indexed_through) values (1, 0)`.execute(db);
  await sql`create table indieweb_entry_search_stale (entry_rowid integer primary key)`.execute(db);
  for (const [event, when, changed] of [
    ['update', 'update of search_text', 'and new.search_text is not old.search_text'],
    ['delete', 'delete', ''],
  ] as const) {
    await sql`create trigger ${sql.raw(`indieweb_entry_search_${event}`)} after ${sql.raw(when)} on indieweb_entry
      when old.rowid <= (select indexed_through from indieweb_entry_search_state) ${sql.raw(changed)}
      begin
        delete from indieweb_entry_search where rowid = old.rowid;
        insert or ignore into indieweb_entry_search_stale (entry_rowid) values (old.rowid);
      end`.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) return;
  await sql`drop trigger if exists indieweb_entry_search_update`.execute(db);
  await sql`drop trigger if exists indieweb_entry_search_delete`.execute(db);
  await sql`drop table if exists indieweb_entry_search_stale`.execute(db);
  await sql`drop table if exists indieweb_entry_search_state`.execute(db);
  await sql`drop table if exists indieweb_entry_search`.execute(db);
}
