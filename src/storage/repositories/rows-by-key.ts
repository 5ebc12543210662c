/**
 * The rows of a table whose text column holds one of some keys, for the
 * reads every Micropub request makes (issue 31): the entry an update or
 * delete names by URL and the account's entry version (`entries.ts`), the
 * publish sender's earlier sends by source (`webmention-outgoing.ts`), the
 * syndication service's copies by entry URL and targets by account
 * (`syndication.ts`), and the token endpoint's authorization code by hash
 * (`auth-codes.ts`).
 *
 * Keys asked for before the microtasks now queued have run are looked up
 * together by one statement: the requests of one turn of the event loop and
 * the operations one group commit answered (group-commit.ts) ask together,
 * so one query serves them all — one round trip on PostgreSQL instead of one
 * per request (each ~50 µs of the server's CPU in the socket write alone on
 * the bench machine, and the backend's work). The query still runs in the
 * same turn as the callers asked, after they asked, so it sees everything
 * committed before. Below Kysely when connect.ts opened the database
 * (raw-access.ts): building and compiling a select with Kysely cost ~30 µs.
 * Not for use inside a transaction (it runs on the repository's own
 * executor).
 * @module
 */
import { hash } from 'node:crypto';
import { sql, type Kysely, type Selectable } from 'kysely';
import { rawAccessOf } from '../raw-access.js';
import type { Database } from '../schema.js';

type Column<Table extends keyof Database> = keyof Database[Table] & string;

/** What to read: the rows of `table` whose `key` is one of the keys asked for. */
export interface RowsByKey<Table extends keyof Database> {
  readonly table: Table;
  /** A text column. */
  readonly key: Column<Table>;
  /** The columns read (all when absent); they include `key` and the `order` columns. */
  readonly columns?: readonly Column<Table>[];
  /** The order of a key's rows, and of several keys' rows merged: text columns. */
  readonly order: readonly Column<Table>[];
  /**
   * When the keys asked for are read: `microtask` (the default) once the
   * microtasks queued when the first was asked have run — the callers that
   * resume together (after a group commit, after the bearer tokens of a turn
   * were validated) ask together; `turn` in the loop's check phase, so every
   * request of the turn's poll phase has asked — for a read asked straight
   * from a request's own callback (the token endpoint's code lookup).
   */
  readonly when?: 'microtask' | 'turn';
}

interface Waiter<Row> {
  readonly resolve: (rows: Row[]) => void;
  readonly reject: (error: unknown) => void;
}

const quoted = (names: readonly string[]): string => names.map((name) => `"${name}"`).join(', ');

/** One statement for any number of keys, in `order`. */
function keysReader<Table extends keyof Database>(
  db: Kysely<Database>,
  spec: RowsByKey<Table>,
): (keys: readonly string[]) => Promise<Record<string, unknown>[]> {
  const raw = rawAccessOf(db);
  const { table, key, columns, order } = spec;
  const select = columns === undefined ? '*' : quoted(columns);
  const orderBy = order.length === 0 ? '' : ` order by ${quoted(order)}`;
  if (raw?.dialect === 'sqlite') {
    const text = `select ${select} from "${table}" where "${key}" in (select "value" from json_each(?))${orderBy}`;
    return (keys) => raw.exclusive(() => raw.statement(text).all(JSON.stringify(keys)) as Record<string, unknown>[]);
  }
  if (raw?.dialect === 'postgres') {
    const text = `select ${select} from "${table}" where "${key}" = any($1::text[])${orderBy}`;
    // pg prepares a named statement once per connection: the name follows the text
    const name = `indiestack_rows_${hash('sha256', text).slice(0, 24)}`;
    return async (keys) => (await raw.query<Record<string, unknown>>({ name, text, values: [keys] })).rows;
  }
  // any other Kysely instance (a host's own, a transaction): the same select through Kysely
  const selected = columns === undefined ? sql.raw('*') : sql.join(columns.map((column) => sql.ref(column)));
  const ordered = order.length === 0 ? sql`` : sql` order by ${sql.join(order.map((column) => sql.ref(column)))}`;
  return async (keys) =>
    (
      await sql<
        Record<string, unknown>
      >`select ${selected} from ${sql.table(table)} where ${sql.ref(key)} in (${sql.join([...keys])})${ordered}`.execute(db)
    ).rows;
}

/**
 * Every row whose `key` is one of `keys`, in the spec's order, asked
 * together with the other callers of the same moment.
 */
export function createRowsByKey<Table extends keyof Database, Row = Selectable<Database[Table]>>(
  db: Kysely<Database>,
  spec: RowsByKey<Table>,
): (keys: readonly string[]) => Promise<Row[]> {
  const read = keysReader(db, spec);
  // keys asked for since the last lookup was queued, with their callers
  let asked = new Map<string, Waiter<Record<string, unknown>>[]>();
  let scheduled = false;

  async function lookUpAsked(): Promise<void> {
    const batch = asked;
    asked = new Map();
    scheduled = false;
    let rows: Record<string, unknown>[];
    try {
      rows = await read([...batch.keys()]);
    } catch (error) {
      for (const waiters of batch.values()) for (const waiter of waiters) waiter.reject(error);
      return;
    }
    const byKey = new Map<string, Record<string, unknown>[]>();
    for (const row of rows) {
      const key = row[spec.key] as string;
      const own = byKey.get(key);
      if (own === undefined) byKey.set(key, [row]);
      else own.push(row);
    }
    for (const [key, waiters] of batch) for (const waiter of waiters) waiter.resolve(byKey.get(key) ?? []);
  }

  const one = (key: string): Promise<Record<string, unknown>[]> =>
    // PostgreSQL's text cannot hold NUL, and one key it refuses would fail every caller of the batch: no row has it
    key.includes('\u0000')
      ? Promise.resolve([])
      : new Promise((resolve, reject) => {
          const waiters = asked.get(key);
          if (waiters !== undefined) waiters.push({ resolve, reject });
          else asked.set(key, [{ resolve, reject }]);
          if (!scheduled) {
            scheduled = true;
            if (spec.when === 'turn') setImmediate(() => void lookUpAsked());
            else queueMicrotask(() => void lookUpAsked());
          }
        });

  const compare = (a: Record<string, unknown>, b: Record<string, unknown>): number => {
    for (const column of spec.order) {
      const [x, y] = [String(a[column]), String(b[column])];
      if (x !== y) return x < y ? -1 : 1;
    }
    return 0;
  };

  return async (keys) => {
    // one key: what nearly every caller asks, on every request
    if (keys.length === 1) return (await one(keys[0]!)) as Row[];
    const distinct = [...new Set(keys)];
    if (distinct.length === 0) return [];
    if (distinct.length === 1) return (await one(distinct[0]!)) as Row[];
    // each key's rows are already in order; merged, they are sorted again (a handful of rows)
    return (await Promise.all(distinct.map(one))).flat().sort(compare) as Row[];
  };
}
