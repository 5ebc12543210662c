/**
 * Group commit for new entries (issue 31). A commit is what an insert costs
 * on SQLite (about 220 µs of the 235 µs of one autocommitted insert into
 * `indieweb_entry` with its indexes, on the bench machine; 14 µs inside
 * a transaction), and an fsync per commit on PostgreSQL. So the inserts of
 * a burst are written together (group-commit.ts: one turn of the event loop,
 * and the next few while more keep coming); each caller's promise settles
 * only after they have committed, so a 201 still means a committed row.
 *
 * Each insert is `on conflict do nothing`: a taken URL or path refuses only
 * that entry (its caller gets a {@link UniqueViolationError} and tries the
 * next number) without aborting the others, on either dialect — two entries
 * of one batch asking for the same path included (the first wins). Any other
 * failure (the database is down, the disk is full) fails every entry of the
 * batch, as it would have failed each of them alone.
 *
 * The statement is written once, below Kysely (raw-access.ts), when the
 * database was opened by `createDatabase`: building and compiling the insert
 * with Kysely was most of what a create cost besides SQLite's own work.
 * - SQLite: one prepared better-sqlite3 statement, run once per entry inside
 *   one `BEGIN IMMEDIATE … COMMIT`, under Kysely's connection mutex.
 * - PostgreSQL: one statement for the whole batch (`insert … select from
 *   unnest($1::text[], …)`, a named statement pg prepares once per pooled
 *   connection): one round trip and one commit per batch instead of a BEGIN,
 *   an insert per entry and a COMMIT.
 * Any other Kysely instance (a host's own, a transaction) gets the same
 * semantics through Kysely.
 * @module
 */
import type { Kysely } from 'kysely';
import { UniqueViolationError } from '../errors.js';
import { rawAccessOf, type RawPostgres, type RawSqlite } from '../raw-access.js';
import type { Database } from '../schema.js';
import { createGroupCommit } from './group-commit.js';

/** Every column of a new entry, as the repository writes it. */
export interface EntryInsert {
  readonly id: string;
  readonly user_id: string;
  readonly url: string;
  readonly path: string;
  readonly type: string;
  readonly properties: string;
  readonly post_status: string;
  readonly visibility: string;
  readonly published: string;
  readonly created_at: string;
  readonly updated_at: string;
  readonly deleted_at: string | null;
  readonly version: number;
  readonly slug_series: string;
  readonly slug_number: number;
  readonly search_text: string | null;
}

/** The columns in statement order, with their PostgreSQL types (for the arrays of the batch statement). */
const COLUMNS: readonly (readonly [keyof EntryInsert, 'text' | 'integer'])[] = [
  ['id', 'text'],
  ['user_id', 'text'],
  ['url', 'text'],
  ['path', 'text'],
  ['type', 'text'],
  ['properties', 'text'],
  ['post_status', 'text'],
  ['visibility', 'text'],
  ['published', 'text'],
  ['created_at', 'text'],
  ['updated_at', 'text'],
  ['deleted_at', 'text'],
  ['version', 'integer'],
  ['slug_series', 'text'],
  ['slug_number', 'integer'],
  ['search_text', 'text'],
];
const COLUMN_LIST = COLUMNS.map(([name]) => `"${name}"`).join(', ');

/** One entry; `changes` is 0 when a unique column refused it. */
const SQLITE_INSERT = `insert into "indieweb_entry" (${COLUMN_LIST}) values (${COLUMNS.map(() => '?').join(', ')}) on conflict do nothing`;

/**
 * The whole batch, one array per column; returns the ids it inserted. Each
 * entry is `search_pending`: the trigram index takes it later, in the
 * server's idle time (migration 0022, entry-search.ts), not in this commit.
 */
const POSTGRES_INSERT =
  `insert into "indieweb_entry" (${COLUMN_LIST}, "search_pending") ` +
  `select *, true from unnest(${COLUMNS.map(([, type], index) => `$${index + 1}::${type}[]`).join(', ')}) ` +
  `on conflict do nothing returning "id"`;
/** pg prepares a named statement once per connection; the name changes whenever the text does. */
const POSTGRES_INSERT_NAME = 'indiestack_entry_insert_2';

const parameters = (values: EntryInsert): unknown[] => COLUMNS.map(([name]) => values[name]);

/** Whether each entry was inserted (false: a unique column refused it). */
type BatchWriter = (batch: readonly EntryInsert[]) => Promise<boolean[]>;

function sqliteWriter(raw: RawSqlite): BatchWriter {
  return (batch) =>
    raw.exclusive((database) => {
      // held under Kysely's mutex, nobody else's transaction can be open: never nest into one
      if (database.inTransaction) throw new Error('entry inserts: a transaction is open on the connection');
      const statement = raw.statement(SQLITE_INSERT);
      // one insert alone is atomic by itself: no transaction around it
      if (batch.length === 1) return [statement.run(parameters(batch[0]!)).changes === 1];
      const all = database.transaction(() => batch.map((values) => statement.run(parameters(values)).changes === 1));
      return all.immediate();
    });
}

function postgresWriter(raw: RawPostgres): BatchWriter {
  return async (batch) => {
    const { rows } = await raw.query<{ id: string }>({
      name: POSTGRES_INSERT_NAME,
      text: POSTGRES_INSERT,
      values: COLUMNS.map(([name]) => batch.map((values) => values[name])),
    });
    const inserted = new Set(rows.map((row) => row.id));
    return batch.map((values) => inserted.has(values.id));
  };
}

function kyselyWriter(db: Kysely<Database>): BatchWriter {
  const insertOne = async (executor: Kysely<Database>, values: EntryInsert): Promise<boolean> =>
    (await executor
      .insertInto('indieweb_entry')
      .values(values)
      .onConflict((conflict) => conflict.doNothing())
      .returning('id')
      .executeTakeFirst()) !== undefined;
  const each = async (executor: Kysely<Database>, batch: readonly EntryInsert[]): Promise<boolean[]> => {
    const done: boolean[] = [];
    for (const values of batch) done.push(await insertOne(executor, values));
    return done;
  };
  // one alone is atomic by itself; inside the caller's transaction the batch is part of it (Kysely nests none)
  return async (batch) => (batch.length === 1 || db.isTransaction ? each(db, batch) : db.transaction().execute((trx) => each(trx, batch)));
}

export function createEntryInserts(db: Kysely<Database>): (values: EntryInsert) => Promise<void> {
  const raw = rawAccessOf(db);
  const write = createGroupCommit(
    raw === undefined ? kyselyWriter(db) : raw.dialect === 'sqlite' ? sqliteWriter(raw) : postgresWriter(raw),
  );
  return async (values) => {
    if (!(await write(values))) throw new UniqueViolationError(`entry path ${values.path} or its URL is taken`);
  };
}
