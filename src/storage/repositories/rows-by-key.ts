/**
 * The rows of a table whose text column holds one of some keys, for the
 * lookups every Micropub operation makes after it has written (issue 31):
 * the publish sender's earlier sends by source (`webmention-outgoing.ts`)
 * and the syndication service's copies by entry URL (`syndication.ts`).
 *
 * Keys asked for before the microtasks now queued have run are looked up
 * together by one statement: the operations one group commit answered
 * (group-commit.ts) resume together, so one query serves them all — one
 * round trip on PostgreSQL instead of one per request (each ~50 µs of the
 * server's CPU in the socket write alone on the bench machine, and the
 * backend's work). The query still runs in the same turn of the event loop
 * as the callers asked, after they asked. Below Kysely when connect.ts opened
 * the database (raw-access.ts): building and compiling the select with
 * Kysely cost ~30 µs a lookup. Not for use inside a transaction (it runs on
 * the repository's own executor).
 * @module
 */
import type { Kysely, Selectable } from 'kysely';
import { rawAccessOf } from '../raw-access.js';
import type { Database } from '../schema.js';

/** The tables looked up this way, and their key column. */
interface Keyed {
  readonly indieweb_webmention_outgoing: 'source';
  readonly indieweb_syndication: 'entry_url';
}

type RowOf<Table extends keyof Keyed> = Selectable<Database[Table]>;

interface Waiter<Row> {
  readonly resolve: (rows: Row[]) => void;
  readonly reject: (error: unknown) => void;
}

/** One statement for any number of keys, oldest rows first. */
function keysReader<Table extends keyof Keyed>(
  db: Kysely<Database>,
  table: Table,
  column: Keyed[Table],
): (keys: readonly string[]) => Promise<unknown[]> {
  const raw = rawAccessOf(db);
  if (raw?.dialect === 'sqlite') {
    const text = `select * from "${table}" where "${column}" in (select "value" from json_each(?)) order by "created_at", "id"`;
    return (keys) => raw.exclusive(() => raw.statement(text).all(JSON.stringify(keys)));
  }
  if (raw?.dialect === 'postgres') {
    const text = `select * from "${table}" where "${column}" = any($1::text[]) order by "created_at", "id"`;
    // pg prepares a named statement once per connection; the name changes whenever the text does
    const name = `indiestack_${table}_by_${column}_1`;
    return async (keys) => (await raw.query({ name, text, values: [keys] })).rows;
  }
  // any other Kysely instance (a host's own, a transaction): the same select through Kysely
  const loose = db as unknown as Kysely<Record<string, Record<string, string>>>;
  return (keys) =>
    loose
      .selectFrom(table)
      .selectAll()
      .where(column as string, 'in', [...keys])
      .orderBy('created_at')
      .orderBy('id')
      .execute();
}

/**
 * Every row whose `column` is one of `keys`, oldest first (`created_at`,
 * then `id`), asked together with the other callers of the same moment.
 */
export function createRowsByKey<Table extends keyof Keyed>(
  db: Kysely<Database>,
  table: Table,
  column: Keyed[Table],
): (keys: readonly string[]) => Promise<RowOf<Table>[]> {
  type Row = RowOf<Table>;
  const read = keysReader(db, table, column) as (keys: readonly string[]) => Promise<Row[]>;
  const keyOf = (row: Row): string => (row as Record<string, unknown>)[column] as string;
  // keys asked for since the last lookup was queued, with their callers
  let asked = new Map<string, Waiter<Row>[]>();
  let scheduled = false;

  async function lookUpAsked(): Promise<void> {
    const batch = asked;
    asked = new Map();
    scheduled = false;
    let rows: Row[];
    try {
      rows = await read([...batch.keys()]);
    } catch (error) {
      for (const waiters of batch.values()) for (const waiter of waiters) waiter.reject(error);
      return;
    }
    const byKey = new Map<string, Row[]>();
    for (const row of rows) {
      const own = byKey.get(keyOf(row));
      if (own === undefined) byKey.set(keyOf(row), [row]);
      else own.push(row);
    }
    for (const [key, waiters] of batch) for (const waiter of waiters) waiter.resolve(byKey.get(key) ?? []);
  }

  const one = (key: string): Promise<Row[]> =>
    new Promise((resolve, reject) => {
      const waiters = asked.get(key);
      if (waiters !== undefined) waiters.push({ resolve, reject });
      else asked.set(key, [{ resolve, reject }]);
      if (!scheduled) {
        scheduled = true;
        queueMicrotask(() => void lookUpAsked());
      }
    });

  const order = (row: Row): [string, string] => [
    String((row as Record<string, unknown>).created_at),
    String((row as Record<string, unknown>).id),
  ];
  const compare = (x: string, y: string): number => (x < y ? -1 : x > y ? 1 : 0);
  const older = (a: Row, b: Row): number => {
    const [[createdA, idA], [createdB, idB]] = [order(a), order(b)];
    return compare(createdA, createdB) || compare(idA, idB);
  };

  return async (keys) => {
    const distinct = [...new Set(keys)];
    if (distinct.length === 0) return [];
    if (distinct.length === 1) return one(distinct[0]!);
    // each key's rows are already in order; merged, they are sorted again (a handful of rows)
    return (await Promise.all(distinct.map(one))).flat().sort(older);
  };
}
