import type { Kysely } from 'kysely';
import { rawAccessOf } from '../raw-access.js';
import type { Database, WebmentionOutgoingRow } from '../schema.js';

/**
 * `waiting`: for the deploy signal (or the delay); `queued`: its job is due or
 * being retried; `sent`: the endpoint answered 2xx; `no-endpoint`: the target
 * advertises none; `failed`: the endpoint refused it, or every attempt failed.
 */
export const OUTGOING_STATUSES = ['waiting', 'queued', 'sent', 'no-endpoint', 'failed'] as const;
export type OutgoingStatus = (typeof OUTGOING_STATUSES)[number];

/** One webmention sent on publish: from an entry (source) to a page it links to, or linked to before. */
export interface OutgoingMention {
  readonly id: string;
  readonly userId: string;
  readonly source: string;
  readonly target: string;
  readonly status: OutgoingStatus;
  readonly endpoint: string | null;
  readonly httpStatus: number | null;
  readonly error: string | null;
  readonly attempts: number;
  readonly awaitingDeploy: boolean;
  /** False when it was sent because the source no longer links to the target (updated or deleted). */
  readonly linked: boolean;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export type WebmentionOutgoingRepository = ReturnType<typeof createWebmentionOutgoingRepository>;

function toOutgoing(row: WebmentionOutgoingRow): OutgoingMention {
  return {
    id: row.id,
    userId: row.user_id,
    source: row.source,
    target: row.target,
    status: row.status as OutgoingStatus,
    endpoint: row.endpoint,
    httpStatus: row.http_status === null ? null : Number(row.http_status),
    error: row.error,
    attempts: Number(row.attempts),
    awaitingDeploy: Number(row.awaiting_deploy) === 1,
    linked: Number(row.linked) === 1,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The rows of some sources, oldest first. */
const bySources = (db: Kysely<Database>, sources: readonly string[]) =>
  db
    .selectFrom('indieweb_webmention_outgoing')
    .selectAll()
    .where('source', 'in', [...sources])
    .orderBy('created_at')
    .orderBy('id');

/** The rows of some sources, oldest first, by one statement whatever their number (below Kysely: raw-access.ts). */
const BY_SOURCES_SQLITE =
  'select * from "indieweb_webmention_outgoing" where "source" in (select "value" from json_each(?)) order by "created_at", "id"';
const BY_SOURCES_POSTGRES = 'select * from "indieweb_webmention_outgoing" where "source" = any($1::text[]) order by "created_at", "id"';
/** pg prepares a named statement once per connection; the name changes whenever the text does. */
const BY_SOURCES_POSTGRES_NAME = 'indiestack_outgoing_by_sources_1';

/**
 * Reads the rows of some sources. Below Kysely when connect.ts opened the
 * database: building and compiling the select with Kysely cost ~30 µs a
 * lookup, and every Micropub operation makes one (issue 31, sixth pass).
 */
function sourcesReader(db: Kysely<Database>): (sources: readonly string[]) => Promise<WebmentionOutgoingRow[]> {
  const raw = rawAccessOf(db);
  if (raw?.dialect === 'sqlite')
    return (sources) => raw.exclusive(() => raw.statement(BY_SOURCES_SQLITE).all(JSON.stringify(sources)) as WebmentionOutgoingRow[]);
  if (raw?.dialect === 'postgres')
    return async (sources) =>
      (await raw.query<WebmentionOutgoingRow>({ name: BY_SOURCES_POSTGRES_NAME, text: BY_SOURCES_POSTGRES, values: [sources] })).rows;
  return (sources) => bySources(db, sources).execute();
}

interface Waiter {
  readonly resolve: (rows: OutgoingMention[]) => void;
  readonly reject: (error: unknown) => void;
}

export function createWebmentionOutgoingRepository(db: Kysely<Database>) {
  // sources asked for by listBySource since the last lookup was queued, with their callers
  let asked = new Map<string, Waiter[]>();
  let scheduled = false;
  const readSources = sourcesReader(db);

  async function lookUpAsked(): Promise<void> {
    const batch = asked;
    asked = new Map();
    scheduled = false;
    // one statement for any number of sources (a burst is at most the creates of a few group commits)
    let rows: OutgoingMention[];
    try {
      rows = (await readSources([...batch.keys()])).map(toOutgoing);
    } catch (error) {
      for (const waiters of batch.values()) for (const waiter of waiters) waiter.reject(error);
      return;
    }
    const bySource = new Map<string, OutgoingMention[]>();
    for (const row of rows) {
      const own = bySource.get(row.source);
      if (own === undefined) bySource.set(row.source, [row]);
      else own.push(row);
    }
    for (const [source, waiters] of batch) for (const waiter of waiters) waiter.resolve(bySource.get(source) ?? []);
  }

  return {
    /** The pair to be sent (again): a new row, or the existing one reset (its outcome cleared); returns its id. */
    async upsert(input: {
      id: string;
      userId: string;
      source: string;
      target: string;
      linked: boolean;
      awaitingDeploy: boolean;
      now: string;
    }): Promise<string> {
      const status: OutgoingStatus = input.awaitingDeploy ? 'waiting' : 'queued';
      const reset = {
        user_id: input.userId,
        status,
        endpoint: null,
        http_status: null,
        error: null,
        attempts: 0,
        awaiting_deploy: input.awaitingDeploy ? 1 : 0,
        linked: input.linked ? 1 : 0,
        updated_at: input.now,
      };
      const row = await db
        .insertInto('indieweb_webmention_outgoing')
        .values({ id: input.id, source: input.source, target: input.target, created_at: input.now, ...reset })
        .onConflict((oc) => oc.columns(['source', 'target']).doUpdateSet(reset))
        .returning('id')
        .executeTakeFirstOrThrow();
      return row.id;
    },

    async findById(id: string): Promise<OutgoingMention | null> {
      const row = await db.selectFrom('indieweb_webmention_outgoing').selectAll().where('id', '=', id).executeTakeFirst();
      return row === undefined ? null : toOutgoing(row);
    },

    /** Every row of these sources (the spellings of one entry's URL). */
    async listBySources(sources: readonly string[]): Promise<OutgoingMention[]> {
      if (sources.length === 0) return [];
      return (await readSources(sources)).map(toOutgoing);
    },

    /**
     * {@link listBySources} of one source, for the sender of every Micropub
     * operation (issue 31), looked up in one query together with every other
     * source asked for before the microtasks now queued have run: the creates
     * one group commit answered (entry-inserts.ts) resume together, so one
     * query serves them all (one round trip on PostgreSQL). The query runs in
     * the same turn of the event loop: waiting for the check phase (as this
     * did until the sixth pass) kept every create's answer a turn longer —
     * on SQLite 15 µs of CPU a create, a sixth of it, under 32 connections.
     * The lookup still happens after the caller asked. Not for use inside a
     * transaction (it runs on the repository's own executor).
     */
    listBySource(source: string): Promise<OutgoingMention[]> {
      return new Promise((resolve, reject) => {
        const waiters = asked.get(source);
        if (waiters !== undefined) waiters.push({ resolve, reject });
        else asked.set(source, [{ resolve, reject }]);
        if (!scheduled) {
          scheduled = true;
          queueMicrotask(() => void lookUpAsked());
        }
      });
    },

    /** An account's sends, newest first. */
    async listByUser(userId: string, page: { limit: number; offset: number }): Promise<{ items: OutgoingMention[]; total: number }> {
      const query = db.selectFrom('indieweb_webmention_outgoing').where('user_id', '=', userId);
      const count = await query.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirst();
      const rows = await query
        .selectAll()
        .orderBy('updated_at', 'desc')
        .orderBy('id', 'desc')
        .limit(page.limit)
        .offset(page.offset)
        .execute();
      return { items: rows.map(toOutgoing), total: Number(count?.n ?? 0) };
    },

    /** Every send waiting for an account's deploy signal, as it is taken out of waiting; returns their ids. */
    async releaseWaiting(userId: string, now: string): Promise<string[]> {
      const rows = await db
        .updateTable('indieweb_webmention_outgoing')
        .set({ awaiting_deploy: 0, status: 'queued', updated_at: now })
        .where('user_id', '=', userId)
        .where('awaiting_deploy', '=', 1)
        .returning('id')
        .execute();
      return rows.map((row) => row.id);
    },

    /** An attempt (the job's `attempts`-th) is starting: no longer waiting. */
    async markAttempt(id: string, attempts: number, now: string): Promise<void> {
      await db
        .updateTable('indieweb_webmention_outgoing')
        .set({ attempts, awaiting_deploy: 0, updated_at: now })
        .where('id', '=', id)
        .execute();
    },

    async recordOutcome(
      id: string,
      outcome: { status: OutgoingStatus; endpoint: string | null; httpStatus: number | null; error: string | null; now: string },
    ): Promise<void> {
      await db
        .updateTable('indieweb_webmention_outgoing')
        .set({
          status: outcome.status,
          endpoint: outcome.endpoint,
          http_status: outcome.httpStatus,
          error: outcome.error?.slice(0, 1000) ?? null,
          updated_at: outcome.now,
        })
        .where('id', '=', id)
        .execute();
    },
  };
}
