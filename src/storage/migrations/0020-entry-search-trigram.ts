// Frozen in time: never edit after release; add a new migration instead.
import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * Issue 31: a filtered `q=source` list (`search_text like '%…%'`, migration
 * 0015) read every live entry of the user: a filter nothing matches took a
 * scan of 100,000 rows. On PostgreSQL a trigram index (the `pg_trgm`
 * extension, shipped with PostgreSQL's contrib and trusted since 13, so a
 * database owner may create it) answers such a `like` from the index. Where
 * the extension cannot be created (not installed, no right to), the
 * migration leaves it out and the filter stays a scan, as before: nothing
 * else depends on it. SQLite has no trigram index worth its cost (FTS5's
 * made each insert 9× slower: docs/performance.md), so this is PostgreSQL's
 * alone.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  // inside the migration's transaction: a refused `create extension` would end it, so it is tried in a savepoint
  await sql`savepoint indieweb_pg_trgm`.execute(db);
  try {
    await sql`create extension if not exists pg_trgm`.execute(db);
    await sql`release savepoint indieweb_pg_trgm`.execute(db);
  } catch {
    await sql`rollback to savepoint indieweb_pg_trgm`.execute(db);
    return;
  }
  await sql`create index if not exists indieweb_entry_search_trigram on indieweb_entry
    using gin (search_text gin_trgm_ops) where deleted_at is null`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  // the extension stays: another schema of the database may use it
  await sql`drop index if exists indieweb_entry_search_trigram`.execute(db);
}
