import { closeSync, mkdirSync, openSync, readSync, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import type { DatabaseLocation } from '../config/config.js';
import type { Database } from './schema.js';

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
export function createDatabase(location: DatabaseLocation): DatabaseHandle {
  if (location.kind === 'postgres') {
    const pool = new pg.Pool({ connectionString: location.url, max: 10, connectionTimeoutMillis: 5_000 });
    // an idle client that loses its server must not crash the process
    pool.on('error', () => {});
    return wrap(new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }), 'postgres', () => null);
  }
  if (location.filename !== ':memory:') mkdirSync(path.dirname(location.filename), { recursive: true });
  const database = new SqliteDatabase(location.filename);
  database.pragma('journal_mode = WAL');
  database.pragma('foreign_keys = ON');
  database.pragma('busy_timeout = 5000');
  database.pragma('synchronous = NORMAL');
  let writes = 0;
  const dataVersion = database.prepare('PRAGMA data_version').pluck();
  const wal = walCommitCounter(database, location.filename);
  const commits = wal?.read ?? (() => String(dataVersion.get()));
  const changeStamp = () => `${commits()}:${writes}`;
  const driver = withStatementCache(database, () => writes++, () => wal?.close());
  return wrap(new Kysely<Database>({ dialect: new SqliteDialect({ database: driver }) }), 'sqlite', changeStamp);
}

/** The WAL-index header: two copies of 48 bytes at the start of the `-shm` file (sqlite.org/walformat.html). */
const WAL_INDEX_HEADER_BYTES = 96;
/** `iVersion` of the WAL-index header (WALINDEX_MAX_VERSION, unchanged since SQLite 3.7.0). */
const WAL_INDEX_VERSION = 3_007_000;

/**
 * A counter that moves whenever any connection commits to a database in WAL
 * mode, read without a transaction: every commit rewrites the WAL-index
 * header (its change counter, last frame and checksums; the salts when the
 * WAL restarts) in the `-shm` file before the committing call returns, and
 * SQLite's own `PRAGMA data_version` is derived from the same header. One
 * `pread` instead of the pragma's read transaction with its file locks, which
 * was a tenth of the CPU of a bearer request. Null when the database is not in
 * WAL mode with a `-shm` file (in memory, exclusive locking): callers then use
 * the pragma.
 */
function walCommitCounter(database: SqliteDatabase.Database, filename: string): { read: () => string; close: () => void } | null {
  if (filename === ':memory:' || database.pragma('journal_mode', { simple: true }) !== 'wal') return null;
  if (database.pragma('locking_mode', { simple: true }) !== 'normal') return null;
  // a read makes sure the shared-memory file exists and holds a header
  database.prepare('PRAGMA data_version').get();
  const seen = Buffer.alloc(WAL_INDEX_HEADER_BYTES);
  const current = Buffer.alloc(WAL_INDEX_HEADER_BYTES);
  let fd: number;
  try {
    // SQLite names the file after the database's real path (symbolic links resolved)
    fd = openSync(`${realpathSync(filename)}-shm`, 'r');
  } catch {
    return null;
  }
  // only a file that is what SQLite maps: an initialised header of the one version there is (native byte order)
  const headerRead = readSync(fd, seen, 0, WAL_INDEX_HEADER_BYTES, 0);
  const version = os.endianness() === 'LE' ? seen.readUInt32LE(0) : seen.readUInt32BE(0);
  if (headerRead !== WAL_INDEX_HEADER_BYTES || version !== WAL_INDEX_VERSION || seen[12] !== 1) {
    closeSync(fd);
    return null;
  }
  let generation = 0;
  const read = () => {
    // a short or failed read counts as a change: the stamp may change too often, never too rarely
    let bytes = 0;
    try {
      bytes = readSync(fd, current, 0, WAL_INDEX_HEADER_BYTES, 0);
    } catch {
      bytes = -1;
    }
    if (bytes !== WAL_INDEX_HEADER_BYTES || !current.equals(seen)) {
      generation++;
      current.copy(seen);
    }
    return String(generation);
  };
  return { read, close: () => closeSync(fd) };
}

const STATEMENT_CACHE_SIZE = 500;

/**
 * better-sqlite3 with its prepared statements kept by SQL text: Kysely asks
 * for a fresh statement on every query, and preparing was a tenth of the CPU
 * of a bearer-token request. Safe because the driver is synchronous.
 */
function withStatementCache(database: SqliteDatabase.Database, onWrite: () => void, onClose: () => void) {
  const cache = new Map<string, SqliteDatabase.Statement>();
  return {
    close: () => {
      onClose();
      database.close();
    },
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
