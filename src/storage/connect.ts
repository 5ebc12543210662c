import SqliteDatabase from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql, type CompiledQuery, type DatabaseConnection, type Dialect } from 'kysely';
import { createRequire } from 'node:module';
import type pg from 'pg';
import { DEFAULT_DATABASE_TIMEOUT_S, type DatabaseLocation } from '../config/config.js';
import type { Database } from './schema.js';
import { createChangeFeed, type ChangeFeed } from './change-feed.js';
import { markingFailures } from './tag-failures.js';
import { prepareDatabaseFiles } from './file-modes.js';
import { registerRawAccess } from './raw-access.js';
import { markFromDatabase } from '../core/database-faults.js';
import { createBoundedCache } from '../core/bounded-cache.js';

export type DialectName = 'sqlite' | 'postgres';

/** An open database: the Kysely instance plus what the server needs around it. */
export interface DatabaseHandle {
  readonly db: Kysely<Database>;
  readonly dialect: DialectName;
  /** Runs a trivial query; throws when the database does not answer. */
  ping(): Promise<void>;
  /**
   * A value that changes whenever something that may invalidate a remembered
   * access token was written. SQLite: any write through this handle (but
   * writes of entries only, see `mayChangeAuth`), or a
   * commit by any other connection, process or instance on the same file
   * (`PRAGMA data_version`). PostgreSQL: any write through this handle (the same exception), or a
   * `NOTIFY indieweb_auth_change` heard on a dedicated connection (migration
   * 0011's triggers; see change-feed.ts); null while that connection does not
   * listen (the first call starts it), so nothing is remembered then.
   */
  changeStamp(): string | null;
  /**
   * Reports what happens to the change stamp's source (PostgreSQL's listening
   * connection: lost, listening again) to `listener`, for the log. SQLite
   * never reports anything.
   */
  onChangeFeed(listener: (event: { readonly kind: 'lost'; readonly error: Error | null } | { readonly kind: 'back' }) => void): void;
  close(): Promise<void>;
  /**
   * SQLite files (database, `-wal`, `-shm`) that were readable by others and
   * were made 0600 when this handle opened them, for the server to log.
   */
  readonly tightenedFiles?: readonly string[];
  /** SQLite files readable by others whose mode could not be changed (another owner), with the reason. */
  readonly looseFiles?: readonly string[];
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
    let writes = 0;
    let feed: ChangeFeed | null = null;
    let open = true;
    const listeners = new Set<ChangeFeedListener>();
    const tell = (event: ChangeFeedEvent) => {
      for (const listener of listeners) listener(event);
    };
    const changeStamp = () => {
      if (!open) return null;
      feed ??= createChangeFeed({
        connectionString: location.url,
        connectTimeoutMs: timeoutMs,
        onLost: (error) => tell({ kind: 'lost', error }),
        onBack: () => tell({ kind: 'back' }),
      });
      const heard = feed.stamp();
      return heard === null ? null : `${heard}:${writes}`;
    };
    const dialect = countingWrites(markingFailures(new PostgresDialect({ pool })), () => writes++);
    const db = new Kysely<Database>({ dialect });
    registerRawAccess(db, {
      dialect: 'postgres',
      async query<R extends object>(statement: { text: string; values?: unknown[]; name?: string }) {
        try {
          const result = await pool.query<R>(statement);
          return { rows: result.rows, rowCount: result.rowCount ?? 0 };
        } catch (error) {
          throw markFromDatabase(error);
        }
      },
    });
    return wrap(db, 'postgres', changeStamp, {
      onChangeFeed: (listener) => listeners.add(listener),
      close: async () => {
        open = false;
        await feed?.close();
      },
    });
  }
  // the directory 0700 when it is made, the files 0600 (made so, or tightened): see file-modes.ts
  const { tightened: tightenedFiles, failed: looseFiles } =
    location.filename === ':memory:' ? { tightened: [], failed: [] } : prepareDatabaseFiles(location.filename);
  const database = new SqliteDatabase(location.filename);
  database.pragma('journal_mode = WAL');
  database.pragma('foreign_keys = ON');
  // better-sqlite3 waits for a lock held elsewhere on the calling thread: the wait is bounded by timeoutMs
  database.pragma(`busy_timeout = ${timeoutMs}`);
  database.pragma('synchronous = NORMAL');
  // SQLite's temporary data in memory, not in files: a statement that writes an entry (its count trigger) keeps a
  // statement journal, which went to a new file in the temp directory every few transactions — about a third of the
  // write system calls of a create, 4–5 µs of its CPU (issue 31, fifth pass). Sorts without an index are bounded by
  // a LIMIT or hold what the query returns anyway (docs/performance.md)
  database.pragma('temp_store = MEMORY');
  // better-sqlite3 builds SQLite with a 16 MiB page cache per connection (SQLite's own default is 2 MiB): under a create
  // load it filled and stayed, a tenth of the server's memory (issue 31); pages beyond it come from the OS's file cache
  database.pragma(`cache_size = -${SQLITE_CACHE_KIB}`);
  let writes = 0;
  const dataVersion = database.prepare('PRAGMA data_version').pluck();
  const changeStamp = () => `${String(dataVersion.get())}:${writes}`;
  const db = new Kysely<Database>({
    dialect: markingFailures(new SqliteDialect({ database: withStatementCache(database, () => writes++) })),
  });
  const rawStatements = createBoundedCache<string, SqliteDatabase.Statement>({ maxEntries: RAW_STATEMENTS });
  registerRawAccess(db, {
    dialect: 'sqlite',
    statement(sqlText) {
      let statement = rawStatements.get(sqlText);
      if (statement === undefined) {
        statement = database.prepare(sqlText);
        rawStatements.set(sqlText, statement);
      }
      return statement;
    },
    // Kysely's SQLite driver hands its one connection out under a mutex (a transaction keeps it across awaits)
    exclusive: (work) =>
      db.connection().execute(async () => {
        try {
          return work(database);
        } catch (error) {
          throw markFromDatabase(error);
        }
      }),
  });
  return wrap(db, 'sqlite', changeStamp, { tightenedFiles, looseFiles });
}

/** SQLite's page cache of the connection, in KiB (docs/performance.md "Memory"). */
const SQLITE_CACHE_KIB = 4096;

/**
 * Statements kept for the code below Kysely (raw-access.ts), the least
 * recently used first out. Its callers use 18 fixed texts (the entry search
 * indexer's 10, the entry insert and update, six reads of rows-by-key.ts);
 * the bound was 16 with no eviction, so the last two a server happened to
 * use were prepared again on every call.
 */
const RAW_STATEMENTS = 64;

/**
 * Prepared statements kept, by count and by the length of their SQL text
 * together: a compiled statement costs SQLite about 12 KiB for a 300-character
 * select (measured), more for a longer text, so both bound the cache's memory
 * (≤ ~6 MiB; a server uses a few hundred statements at most). The least
 * recently used goes first ({@link createBoundedCache}).
 */
const STATEMENT_CACHE_SIZE = 500;
const STATEMENT_CACHE_CHARS = 512 * 1024;

/**
 * Writes that cannot change what a remembered token depends on (its row, its
 * account, the account's profile URLs): a statement that only inserts,
 * updates or deletes entries of the database handler. They leave the change
 * stamp alone, so a Micropub create does not make the next request of every
 * token look itself up again (issue 31: every create did). No trigger or
 * foreign key reaches an auth table from these tables; anything else,
 * transactions and schema changes included, still counts.
 */
const CONTENT_WRITE = /^\s*(?:insert\s+into|update|delete\s+from)\s+"?indieweb_entry"?(?:[\s(]|$)/i;

/** Whether a statement may change what the token cache remembers (see {@link CONTENT_WRITE}). */
export function mayChangeAuth(sqlText: string): boolean {
  return !CONTENT_WRITE.test(sqlText);
}

/**
 * Transaction control on SQLite's one connection: the writes inside a
 * transaction are counted as they are prepared, and this connection reads its
 * own uncommitted writes, so BEGIN and COMMIT need not count again (a batch of
 * entry inserts in one transaction then leaves the stamp alone).
 */
const TRANSACTION_CONTROL = /^\s*(?:begin|commit|end|rollback|savepoint|release)\b/i;

/** The longest one PostgreSQL statement may run before the server cancels it. */
const STATEMENT_TIMEOUT_MS = 30_000;

/**
 * better-sqlite3 with its prepared statements kept by SQL text: Kysely asks
 * for a fresh statement on every query, and preparing was a tenth of the CPU
 * of a bearer-token request. Safe because the driver is synchronous.
 */
function withStatementCache(database: SqliteDatabase.Database, onWrite: () => void) {
  const cache = createBoundedCache<string, SqliteDatabase.Statement>({
    maxEntries: STATEMENT_CACHE_SIZE,
    maxWeight: STATEMENT_CACHE_CHARS,
    weigh: (sqlText) => sqlText.length,
  });
  return {
    close: () => database.close(),
    prepare(sqlText: string) {
      let statement = cache.get(sqlText);
      // a statement still streaming rows (Kysely's .stream()) cannot run again: use a fresh one
      if (statement?.busy === true) statement = database.prepare(sqlText);
      else if (statement === undefined) {
        statement = database.prepare(sqlText);
        cache.set(sqlText, statement);
      }
      // Kysely prepares right before it runs: every statement that is not a reader counts as a write
      if (!statement.reader && mayChangeAuth(sqlText) && !TRANSACTION_CONTROL.test(sqlText)) onWrite();
      return statement;
    },
  };
}

/**
 * The dialect with `onWrite` called after every statement that is not a
 * SELECT settles (COMMIT included): a write of this process is in the stamp
 * before its request is answered, without waiting for its notification.
 */
function countingWrites(dialect: Dialect, onWrite: () => void): Dialect {
  // connections (the originals) whose open transaction wrote something that may change auth: only their COMMIT counts
  const authWriters = new WeakSet<object>();
  const counted = (connection: DatabaseConnection): DatabaseConnection => ({
    executeQuery<R>(query: CompiledQuery) {
      const result = connection.executeQuery<R>(query);
      if (query.query.kind === 'SelectQueryNode' || !mayChangeAuth(query.sql)) return result;
      authWriters.add(connection);
      return result.finally(onWrite);
    },
    streamQuery: (query, chunkSize) => connection.streamQuery(query, chunkSize),
  });
  return {
    createAdapter: () => dialect.createAdapter(),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createDriver: () => {
      const driver = dialect.createDriver();
      // Kysely hands the acquired connection back to the driver's other methods: they get the original
      const originals = new WeakMap<object, DatabaseConnection>();
      return new Proxy(driver, {
        get(target, name) {
          const value: unknown = Reflect.get(target, name, target);
          if (typeof value !== 'function') return value;
          return async (...args: unknown[]) => {
            const unwrapped = args.map((arg) => (typeof arg === 'object' && arg !== null ? (originals.get(arg) ?? arg) : arg));
            // a transaction that wrote only entries (or nothing) commits nothing a remembered token depends on
            let commitCounts = false;
            if (name === 'commitTransaction' || name === 'rollbackTransaction' || name === 'beginTransaction') {
              const connection = unwrapped[0];
              commitCounts = typeof connection === 'object' && connection !== null && authWriters.has(connection);
              if (commitCounts || name === 'beginTransaction') authWriters.delete(connection as object);
            }
            let result: unknown;
            try {
              result = await (value as (...a: unknown[]) => unknown).apply(target, unwrapped);
            } catch (error) {
              // a failed COMMIT may still have committed: count it
              if (name === 'commitTransaction' && commitCounts) onWrite();
              throw error;
            }
            if (name === 'acquireConnection') {
              const wrapped = counted(result as DatabaseConnection);
              originals.set(wrapped, result as DatabaseConnection);
              return wrapped;
            }
            if (name === 'commitTransaction' && commitCounts) onWrite();
            return result;
          };
        },
      });
    },
  };
}

type ChangeFeedEvent = Parameters<Parameters<DatabaseHandle['onChangeFeed']>[0]>[0];
type ChangeFeedListener = (event: ChangeFeedEvent) => void;

function wrap(
  db: Kysely<Database>,
  dialect: DialectName,
  changeStamp: () => string | null,
  more: {
    onChangeFeed?: DatabaseHandle['onChangeFeed'];
    close?: () => Promise<void>;
    tightenedFiles?: readonly string[];
    looseFiles?: readonly string[];
  } = {},
): DatabaseHandle {
  let closed = false;
  return {
    db,
    dialect,
    changeStamp,
    tightenedFiles: more.tightenedFiles ?? [],
    looseFiles: more.looseFiles ?? [],
    onChangeFeed: more.onChangeFeed ?? (() => {}),
    async ping() {
      await sql`select 1`.execute(db);
    },
    async close() {
      if (closed) return;
      closed = true;
      await more.close?.();
      await db.destroy();
    },
  };
}
