/**
 * The driver below a Kysely instance made by `createDatabase` (connect.ts),
 * for the few hot statements that are written once and run without Kysely
 * building and compiling them on every call (issue 31: the group-commit
 * insert of `entry-inserts.ts` and update of `entry-updates.ts`, the steps
 * and probes of the entry search index on both databases in
 * `entry-search.ts`, the lookups every Micropub operation makes afterwards
 * in `rows-by-key.ts`). A Kysely instance this module does not know (a
 * host's own, a transaction's) has none: its callers use Kysely.
 *
 * What the caller owes the rest of the storage layer when it goes below
 * Kysely:
 * - SQLite has one connection, which Kysely guards with a mutex (a Kysely
 *   transaction keeps it across awaits): use the database only inside
 *   {@link RawSqlite.exclusive}, which holds that mutex, so a statement never
 *   lands inside somebody else's open transaction.
 * - The driver's failures come marked (`markFromDatabase`), as `tag-failures.ts`
 *   marks Kysely's, so "the database cannot answer" stays a 503: both
 *   {@link RawSqlite.exclusive} and {@link RawPostgres.query} do it.
 * - The token cache's change stamp counts writes seen through Kysely
 *   (`connect.ts`): only statements that write nothing a remembered token
 *   depends on may be run here — the entries (which `mayChangeAuth` calls
 *   harmless) and their search index (`entry-search.ts`).
 * @module
 */
import type SqliteDatabase from 'better-sqlite3';
import type { Kysely } from 'kysely';

export interface RawSqlite {
  readonly dialect: 'sqlite';
  /** A statement prepared once per text (kept for the handle's life; callers use a handful of fixed texts). */
  statement(sqlText: string): SqliteDatabase.Statement;
  /** Runs `work` synchronously on the connection while holding Kysely's connection mutex. */
  exclusive<T>(work: (database: SqliteDatabase.Database) => T): Promise<T>;
}

export interface RawPostgres {
  readonly dialect: 'postgres';
  /**
   * Runs one statement on the handle's pool (a `name` is prepared once per
   * pooled connection by pg); its failures come marked as Kysely's do.
   */
  query<R extends object>(statement: {
    readonly text: string;
    readonly values?: unknown[];
    readonly name?: string;
  }): Promise<{
    rows: R[];
    rowCount: number;
  }>;
}

export type RawAccess = RawSqlite | RawPostgres;

const registry = new WeakMap<object, RawAccess>();

/** Called by connect.ts for every handle it opens. */
export function registerRawAccess(db: Kysely<any>, access: RawAccess): void {
  registry.set(db, access);
}

/** The driver below `db`, when connect.ts opened it; undefined for any other Kysely instance. */
export function rawAccessOf(db: Kysely<any>): RawAccess | undefined {
  return registry.get(db);
}
