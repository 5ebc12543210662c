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
 * Brings the schema to the latest version. Never throws: the result says what
 * ran and what failed. Safe when several processes start together: on
 * PostgreSQL Kysely's migrator holds an advisory lock; SQLite has none, so
 * there the whole run is one `BEGIN IMMEDIATE` transaction, which takes the
 * file's write lock first — the others wait for it (up to the busy timeout),
 * then find nothing left to do — and leaves nothing half-applied on failure.
 */
export async function migrateToLatest(db: Kysely<any>): Promise<MigrationResultSet> {
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) return schemaMigrator(db).migrateToLatest();
  try {
    return await db.connection().execute(async (connection) => {
      await sql`begin immediate`.execute(connection);
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
