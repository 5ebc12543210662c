import { sql } from 'kysely';
import type { DatabaseHandle } from './connect.js';

/** The trigram index of migration 0020 that answers a filtered `q=source` list on PostgreSQL. */
export const ENTRY_SEARCH_INDEX = 'indieweb_entry_search_trigram';

/**
 * Whether the database has {@link ENTRY_SEARCH_INDEX}: null on SQLite (it has
 * none by design), false on a PostgreSQL whose role could not create the
 * `pg_trgm` extension when it migrated.
 */
export async function hasEntrySearchIndex(database: Pick<DatabaseHandle, 'db' | 'dialect'>): Promise<boolean | null> {
  if (database.dialect !== 'postgres') return null;
  const { rows } = await sql<{ found: number }>`select count(*)::int as found from pg_indexes
    where schemaname = current_schema() and tablename = 'indieweb_entry' and indexname = ${ENTRY_SEARCH_INDEX}`.execute(database.db);
  return (rows[0]?.found ?? 0) > 0;
}
