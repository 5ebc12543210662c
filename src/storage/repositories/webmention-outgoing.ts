import type { Kysely } from 'kysely';
import type { Database, WebmentionOutgoingRow } from '../schema.js';
import { createRowsByKey } from './rows-by-key.js';

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

export function createWebmentionOutgoingRepository(db: Kysely<Database>) {
  const bySources = createRowsByKey(db, { table: 'indieweb_webmention_outgoing', key: 'source', order: ['created_at', 'id'] });

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

    /**
     * Every row of these sources (the spellings of one entry's URL), for the
     * sender of every Micropub operation: looked up together with the other
     * operations of the same moment (rows-by-key.ts).
     */
    async listBySources(sources: readonly string[]): Promise<OutgoingMention[]> {
      return (await bySources(sources)).map(toOutgoing);
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
