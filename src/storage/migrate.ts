import type { Kysely } from 'kysely';
import { Migrator, type MigrationResultSet } from 'kysely/migration';
import { MIGRATIONS } from './migrations/index.js';

export const MIGRATION_TABLE = 'indieweb_migration';
export const MIGRATION_LOCK_TABLE = 'indieweb_migration_lock';

/** Brings the schema to the latest version. Never throws: the result says what ran and what failed. */
export async function migrateToLatest(db: Kysely<any>): Promise<MigrationResultSet> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => MIGRATIONS },
    migrationTableName: MIGRATION_TABLE,
    migrationLockTableName: MIGRATION_LOCK_TABLE,
  });
  return migrator.migrateToLatest();
}
