import { setTimeout as delay } from 'node:timers/promises';
import { SqliteAdapter, sql, type Kysely } from 'kysely';
import { Migrator, type MigrationResultSet } from 'kysely/migration';
import { MIGRATIONS } from './migrations/index.js';

export const MIGRATION_TABLE = 'indieweb_migration';
export const MIGRATION_LOCK_TABLE = 'indieweb_migration_lock';

/** Kysely's migrator over every migration of ours, with our table names (tests step through versions with it). */
export function schemaMigrator(db: Kysely<any>): Migrator {
  return new Migrator({
    db,
    provider: { getMigrations: async () => MIGRATIONS },
    migrationTableName: MIGRATION_TABLE,
    migrationLockTableName: MIGRATION_LOCK_TABLE,
  });
}

/**
 * How long a starting process waits on SQLite for another one's migrations to
 * end, beyond the database timeout that bounds a request's wait. On a busy
 * machine the first of several instances started together can hold the write
 * lock for seconds while it migrates; the others should wait for it, as they
 * do on PostgreSQL's advisory lock (which gives up after the 30 s statement
 * timeout), not fail to start.
 */
const SQLITE_MIGRATION_WAIT_MS = 30_000;

/**
 * Brings the schema to the latest version. Never throws: the result says what
 * ran and what failed. Safe when several processes start together: on
 * PostgreSQL Kysely's migrator holds an advisory lock; SQLite has none, so
 * there the whole run is one `BEGIN IMMEDIATE` transaction, which takes the
 * file's write lock first — the others wait for it (up to
 * {@link SQLITE_MIGRATION_WAIT_MS}), then find nothing left to do — and
 * leaves nothing half-applied on failure.
 */
export async function migrateToLatest(db: Kysely<any>, options: { sqliteWaitMs?: number } = {}): Promise<MigrationResultSet> {
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) return schemaMigrator(db).migrateToLatest();
  try {
    return await db.connection().execute(async (connection) => {
      await beginImmediate(connection, options.sqliteWaitMs ?? SQLITE_MIGRATION_WAIT_MS);
      let result: MigrationResultSet;
      try {
        result = await schemaMigrator(connection).migrateToLatest();
      } catch (error) {
        await sql`rollback`.execute(connection).catch(() => {});
        throw error;
      }
      if (result.error === undefined) await sql`commit`.execute(connection);
      else await sql`rollback`.execute(connection);
      return result;
    });
  } catch (error) {
    return { error };
  }
}

/** `BEGIN IMMEDIATE`, tried again while another connection holds the write lock (each try waits the busy timeout). */
async function beginImmediate(connection: Kysely<any>, waitMs: number): Promise<void> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      await sql`begin immediate`.execute(connection);
      return;
    } catch (error) {
      const busy = (error as { code?: unknown } | null)?.code === 'SQLITE_BUSY';
      if (!busy || Date.now() >= deadline) throw error;
      await delay(50);
    }
  }
}
