import { mkdirSync } from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import { createRequire } from 'node:module';
import type pg from 'pg';
import { DEFAULT_DATABASE_TIMEOUT_S, type DatabaseLocation } from '../config/config.js';
import type { Database } from './schema.js';
import { markingFailures } from './tag-failures.js';

export type DialectName = 'sqlite' | 'postgres';

/** An open database: the Kysely instance plus what the server needs around it. */
export interface DatabaseHandle {
  readonly db: Kysely<Database>;
  readonly dialect: DialectName;
  /** Runs a trivial query; throws when the database does not answer. */
  ping(): Promise<void>;
  /**
   * SQLite: a value that changes whenever the database may have changed — a
   * write through this handle, or a commit by any other connection, process or
   * instance on the same file (`PRAGMA data_version`). Null for PostgreSQL.
   */
  changeStamp(): string | null;
  close(): Promise<void>;
}

/**
 * Opens SQLite (WAL, foreign keys on) or PostgreSQL. PostgreSQL connects
 * lazily: call {@link DatabaseHandle.ping} to find out whether it answers.
 */
export function createDatabase(location: DatabaseLocation, options: { timeoutSeconds?: number } = {}): DatabaseHandle {
  const timeoutMs = (options.timeoutSeconds ?? DEFAULT_DATABASE_TIMEOUT_S) * 1000;
  if (location.kind === 'postgres') {
    // pg is CommonJS: required here, so SQLite users never load it
    const { Pool } = createRequire(import.meta.url)('pg') as typeof pg;
    // a server that is down refuses at once; one that does not answer (or a full pool) fails after timeoutMs;
    // keep-alive finds a connection whose server vanished, a statement never runs longer than STATEMENT_TIMEOUT_MS
    const pool = new Pool({
      connectionString: location.url,
      max: 10,
      connectionTimeoutMillis: timeoutMs,
      keepAlive: true,
      statement_timeout: STATEMENT_TIMEOUT_MS,
    });
    // a connection that loses its server must not crash the process, idle (the pool's 'error') or checked out
    // (the pool takes its own listener off then): the next query on it fails, is answered 503, and the pool
    // drops the broken client when it comes back
    pool.on('error', () => {});
    pool.on('connect', (client) => client.on('error', () => {}));
    return wrap(new Kysely<Database>({ dialect: markingFailures(new PostgresDialect({ pool })) }), 'postgres', () => null);
  }
  if (location.filename !== ':memory:') mkdirSync(path.dirname(location.filename), { recursive: true });
  const database = new SqliteDatabase(location.filename);
  database.pragma('journal_mode = WAL');
  database.pragma('foreign_keys = ON');
  // better-sqlite3 waits for a lock held elsewhere on the calling thread: the wait is bounded by timeoutMs
  database.pragma(`busy_timeout = ${timeoutMs}`);
  database.pragma('synchronous = NORMAL');
  let writes = 0;
  const dataVersion = database.prepare('PRAGMA data_version').pluck();
  const changeStamp = () => `${String(dataVersion.get())}:${writes}`;
  return wrap(new Kysely<Database>({ dialect: markingFailures(new SqliteDialect({ database: withStatementCache(database, () => writes++) })) }), 'sqlite', changeStamp);
}

const STATEMENT_CACHE_SIZE = 500;

/** The longest one PostgreSQL statement may run before the server cancels it. */
const STATEMENT_TIMEOUT_MS = 30_000;

/**
 * better-sqlite3 with its prepared statements kept by SQL text: Kysely asks
 * for a fresh statement on every query, and preparing was a tenth of the CPU
 * of a bearer-token request. Safe because the driver is synchronous.
 */
function withStatementCache(database: SqliteDatabase.Database, onWrite: () => void) {
  const cache = new Map<string, SqliteDatabase.Statement>();
  return {
    close: () => database.close(),
    prepare(sqlText: string) {
      let statement = cache.get(sqlText);
      // a statement still streaming rows (Kysely's .stream()) cannot run again: use a fresh one
      if (statement?.busy === true) statement = database.prepare(sqlText);
      else if (statement === undefined) {
        statement = database.prepare(sqlText);
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
        cache.set(sqlText, statement);
      }
      // Kysely prepares right before it runs: every statement that is not a reader counts as a write
      if (!statement.reader) onWrite();
      return statement;
    },
  };
}

function wrap(db: Kysely<Database>, dialect: DialectName, changeStamp: () => string | null): DatabaseHandle {
  let closed = false;
  return {
    db,
    dialect,
    changeStamp,
    async ping() {
      await sql`select 1`.execute(db);
    },
    async close() {
      if (closed) return;
      closed = true;
      await db.destroy();
    },
  };
}
