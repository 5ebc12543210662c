import { sql } from 'kysely';
import type { DatabaseHandle } from './connect.js';

/** The trigram index of migration 0020 that answers a filtered `q=source` list on PostgreSQL. */
export const ENTRY_SEARCH_INDEX = 'indieweb_entry_search_trigram';

/**
 * Whether the database has the index that answers a filtered `q=source` list:
 * on PostgreSQL {@link ENTRY_SEARCH_INDEX} (missing where the role could not
 * create the `pg_trgm` extension when it migrated), on SQLite the entry
 * search index of migration 0021 (`entry-search.ts`; missing where the SQLite
 * has no FTS5 trigram tokenizer). Without it the list reads every entry of
 * the user.
 */
export async function hasEntrySearchIndex(database: Pick<DatabaseHandle, 'db' | 'dialect'>): Promise<boolean> {
  const { rows } =
    database.dialect === 'postgres'
      ? await sql<{ found: number }>`select count(*)::int as found from pg_indexes
          where schemaname = current_schema() and tablename = 'indieweb_entry' and indexname = ${ENTRY_SEARCH_INDEX}`.execute(database.db)
      : await sql<{ found: number }>`select count(*) as found from sqlite_master
          where type = 'table' and name = 'indieweb_entry_search_state'`.execute(database.db);
  return Number(rows[0]?.found ?? 0) > 0;
}

/**
 * How many entries the entry search index has not taken yet — SQLite: new
 * ones above its mark and stale ones; PostgreSQL: the `search_pending` ones
 * (migration 0022). The server indexes them in its idle time; a list reads
 * them itself meanwhile. SQLite: asks a database that has the index.
 */
export async function entriesWaitingForSearch(database: Pick<DatabaseHandle, 'db' | 'dialect'>): Promise<number> {
  const { rows } =
    database.dialect === 'postgres'
      ? await sql<{ waiting: number }>`select count(*)::int as waiting from indieweb_entry where search_pending`.execute(database.db)
      : await sql<{ waiting: number }>`select
          (select count(*) from indieweb_entry where rowid > (select indexed_through from indieweb_entry_search_state))
          + (select count(*) from indieweb_entry_search_stale) as waiting`.execute(database.db);
  return Number(rows[0]?.waiting ?? 0);
}
