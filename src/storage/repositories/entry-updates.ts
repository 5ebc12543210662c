/**
 * Group commit for entry updates (issue 31, seventh pass): the optimistic
 * update of `EntriesRepository.modify` — write these columns only if the
 * entry is still live and at the version its changes were computed from —
 * for the updates of a burst at once (group-commit.ts).
 *
 * Each update moves the account's row of migration 0018 (its entry counts and
 * version) in the writer's transaction. On PostgreSQL that row stays locked
 * until the commit has been flushed, so one account's updates, each its own
 * transaction, queued behind one another's WAL flush: ~900 a second whatever
 * the number of connections. A batch is one statement and one commit.
 *
 * - SQLite: one prepared statement run once per update inside one
 *   `BEGIN IMMEDIATE … COMMIT`, under Kysely's connection mutex; an update
 *   alone runs by itself.
 * - PostgreSQL: one statement for the whole batch (`update … from
 *   unnest(…)`), a named statement. An entry asked for twice in one batch is
 *   written once (the first); the others are answered "changed meanwhile", as
 *   they would be after it, and their callers read it again.
 * A Kysely instance connect.ts did not open (a host's own, a transaction) has
 * no batches: the repository writes each update through Kysely.
 * @module
 */
import type { Kysely } from 'kysely';
import { rawAccessOf, type RawPostgres, type RawSqlite } from '../raw-access.js';
import type { Database } from '../schema.js';
import { createGroupCommit } from './group-commit.js';

/** The columns an update writes, and the version it expects to find. */
export interface EntryUpdate {
  readonly id: string;
  readonly version: number;
  readonly search_text: string;
  readonly properties: string;
  readonly post_status: string;
  readonly visibility: string;
  readonly published: string;
  readonly updated_at: string;
}

/** The columns set, in statement order; all text. */
const SET_COLUMNS = ['search_text', 'properties', 'post_status', 'visibility', 'published', 'updated_at'] as const;

const SQLITE_UPDATE =
  `update "indieweb_entry" set ${SET_COLUMNS.map((name) => `"${name}" = ?`).join(', ')}, "version" = "version" + 1 ` +
  `where "id" = ? and "version" = ? and "deleted_at" is null`;

const POSTGRES_UPDATE =
  `update "indieweb_entry" as "entry" set ${SET_COLUMNS.map((name) => `"${name}" = "asked"."${name}"`).join(', ')}, ` +
  `"version" = "entry"."version" + 1 ` +
  `from unnest($1::text[], $2::integer[], ${SET_COLUMNS.map((_, index) => `$${index + 3}::text[]`).join(', ')}) ` +
  `as "asked"("id", "version", ${SET_COLUMNS.map((name) => `"${name}"`).join(', ')}) ` +
  `where "entry"."id" = "asked"."id" and "entry"."version" = "asked"."version" and "entry"."deleted_at" is null ` +
  `returning "entry"."id"`;
/** pg prepares a named statement once per connection; the name changes whenever the text does. */
const POSTGRES_UPDATE_NAME = 'indiestack_entry_update_1';

/** Whether each update was written (false: the entry was not live at that version). */
type BatchWriter = (batch: readonly EntryUpdate[]) => Promise<boolean[]>;

function sqliteWriter(raw: RawSqlite): BatchWriter {
  const run = (update: EntryUpdate): boolean =>
    raw.statement(SQLITE_UPDATE).run(...SET_COLUMNS.map((name) => update[name]), update.id, update.version).changes === 1;
  return (batch) =>
    raw.exclusive((database) => {
      // held under Kysely's mutex, nobody else's transaction can be open: never nest into one
      if (database.inTransaction) throw new Error('entry updates: a transaction is open on the connection');
      if (batch.length === 1) return [run(batch[0]!)];
      return database.transaction(() => batch.map(run)).immediate();
    });
}

function postgresWriter(raw: RawPostgres): BatchWriter {
  return async (batch) => {
    // one row per entry: of two updates of one entry in a batch only the first is sent
    const sent = new Set<string>();
    const first = batch.map((update) => {
      if (sent.has(update.id)) return false;
      sent.add(update.id);
      return true;
    });
    const asked = batch.filter((_, index) => first[index]);
    const { rows } = await raw.query<{ id: string }>({
      name: POSTGRES_UPDATE_NAME,
      text: POSTGRES_UPDATE,
      values: [
        asked.map((update) => update.id),
        asked.map((update) => update.version),
        ...SET_COLUMNS.map((name) => asked.map((update) => update[name])),
      ],
    });
    const written = new Set(rows.map((row) => row.id));
    return batch.map((update, index) => first[index]! && written.has(update.id));
  };
}

/** The batched update when connect.ts opened `db`; undefined otherwise (the caller updates through Kysely). */
export function createEntryUpdates(db: Kysely<Database>): ((update: EntryUpdate) => Promise<boolean>) | undefined {
  const raw = rawAccessOf(db);
  if (raw === undefined) return undefined;
  return createGroupCommit(raw.dialect === 'sqlite' ? sqliteWriter(raw) : postgresWriter(raw));
}
