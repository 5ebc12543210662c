import { sql } from 'kysely';
import type { DatabaseHandle } from './connect.js';
import { hasSqliteSearchIndex } from './entry-search.js';

/** The trigram index of migration 0020 that answers a filtered `q=source` list on PostgreSQL. */
export const ENTRY_SEARCH_INDEX = 'indieweb_entry_search_trigram';

/**
 * Whether the database has {@link ENTRY_SEARCH_INDEX}: null on SQLite (it has
 * its own, see {@link entriesWaitingForSearch}), false on a PostgreSQL whose role could not create the
 * `pg_trgm` extension when it migrated.
 */
export async function hasEntrySearchIndex(database: Pick<DatabaseHandle, 'db' | 'dialect'>): Promise<boolean | null> {
  if (database.dialect !== 'postgres') return null;
  const { rows } = await sql<{ found: number }>`select count(*)::int as found from pg_indexes
    where schemaname = current_schema() and tablename = 'indieweb_entry' and indexname = ${ENTRY_SEARCH_INDEX}`.execute(database.db);
  return (rows[0]?.found ?? 0) > 0;
}

/**
 * SQLite: how many entries its entry search index (migration 0021,
 * entry-search.ts) has not indexed yet — new ones above its mark and stale
 * ones; `no index` where the SQLite could not make it. Null on PostgreSQL.
 */
export async function entriesWaitingForSearch(database: Pick<DatabaseHandle, 'db' | 'dialect'>): Promise<number | 'no index' | null> {
  if (database.dialect !== 'sqlite') return null;
  if (!(await hasSqliteSearchIndex(database.db))) return 'no index';
  const { rows } = await sql<{ waiting: number }>`select
    (select count(*) from indieweb_entry where rowid > (select indexed_through from indieweb_entry_search_state))
    + (select count(*) from indieweb_entry_search_stale) as waiting`.execute(database.db);
  return Number(rows[0]?.waiting ?? 0);
}
