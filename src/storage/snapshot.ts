/**
 * A consistent copy of a SQLite database while a server writes to it:
 * `VACUUM INTO` reads the file inside one read transaction (WAL lets writers
 * go on meanwhile) and writes a compact, self-contained database file.
 * @module
 */
import SqliteDatabase from 'better-sqlite3';
import { MIGRATION_TABLE } from './migrate.js';

export interface SqliteSnapshot {
  /** Names of the migrations the copied schema has run, in order. */
  readonly migrations: readonly string[];
}

/** Copies the database `source` into the new file `target` (which must not exist). */
export function snapshotSqlite(source: string, target: string, options: { timeoutMs: number }): SqliteSnapshot {
  const database = new SqliteDatabase(source, { fileMustExist: true });
  try {
    database.pragma(`busy_timeout = ${options.timeoutMs}`);
    database.prepare('VACUUM INTO ?').run(target);
  } finally {
    database.close();
  }
  return { migrations: appliedMigrations(target) };
}

/** Names of the migrations a SQLite file has run, in order (none for an empty file). */
export function appliedMigrations(file: string): string[] {
  const database = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
  try {
    const table = database.prepare(`select name from sqlite_master where type = 'table' and name = ?`).get(MIGRATION_TABLE);
    if (table === undefined) return [];
    return (database.prepare(`select name from ${MIGRATION_TABLE} order by name`).pluck().all() as string[]).slice();
  } finally {
    database.close();
  }
}

/** Runs SQLite's own check of a database file; the first problem it finds, or null. */
export function sqliteIntegrityProblem(file: string): string | null {
  const database = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
  try {
    const result = database.pragma('integrity_check', { simple: true });
    return result === 'ok' ? null : String(result);
  } finally {
    database.close();
  }
}
