import type { Kysely } from 'kysely';
import type { Database, SyndicationRow, SyndicationTargetRow } from '../schema.js';

/** An account on a silo that a user's entries go to; `credentials` stays sealed here (the feature opens it). */
export interface SyndicationTargetRecord {
  readonly id: string;
  readonly userId: string;
  readonly service: string;
  readonly name: string;
  /** The Mastodon instance or the Bluesky PDS. */
  readonly url: string;
  readonly handle: string | null;
  readonly sealedCredentials: string;
  readonly createdAt: string;
}

export const SYNDICATION_STATES = ['queued', 'sent', 'failed'] as const;
export type SyndicationState = (typeof SYNDICATION_STATES)[number];
/** What the entry's job does next for this target. */
export type SyndicationAction = 'publish' | 'update' | 'remove';

/** One entry's copy on one target. */
export interface SyndicationRecord {
  readonly id: string;
  readonly userId: string;
  readonly entryUrl: string;
  readonly targetId: string;
  readonly action: SyndicationAction;
  readonly state: SyndicationState;
  readonly copyId: string | null;
  readonly copyUrl: string | null;
  readonly error: string | null;
  readonly attempts: number;
  readonly createdAt: string;
  readonly updatedAt: string;
}

function toTarget(row: SyndicationTargetRow): SyndicationTargetRecord {
  return {
    id: row.id,
    userId: row.user_id,
    service: row.service,
    name: row.name,
    url: row.url,
    handle: row.handle,
    sealedCredentials: row.credentials,
    createdAt: row.created_at,
  };
}

function toRecord(row: SyndicationRow): SyndicationRecord {
  return {
    id: row.id,
    userId: row.user_id,
    entryUrl: row.entry_url,
    targetId: row.target_id,
    action: row.action as SyndicationAction,
    state: row.state as SyndicationState,
    copyId: row.copy_id,
    copyUrl: row.copy_url,
    error: row.error,
    attempts: Number(row.attempts),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export type SyndicationRepository = ReturnType<typeof createSyndicationRepository>;

export function createSyndicationRepository(db: Kysely<Database>) {
  return {
    async addTarget(target: Omit<SyndicationTargetRecord, 'createdAt'> & { now: string }): Promise<void> {
      await db
        .insertInto('indieweb_syndication_target')
        .values({
          id: target.id,
          user_id: target.userId,
          service: target.service,
          name: target.name,
          url: target.url,
          handle: target.handle,
          credentials: target.sealedCredentials,
          created_at: target.now,
        })
        .execute();
    },

    async listTargets(userId: string): Promise<SyndicationTargetRecord[]> {
      const rows = await db
        .selectFrom('indieweb_syndication_target')
        .selectAll()
        .where('user_id', '=', userId)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      return rows.map(toTarget);
    },

    /** Every target of every user (the doctor checks them all). */
    async listAllTargets(): Promise<SyndicationTargetRecord[]> {
      const rows = await db.selectFrom('indieweb_syndication_target').selectAll().orderBy('created_at').orderBy('id').execute();
      return rows.map(toTarget);
    },

    async findTarget(id: string): Promise<SyndicationTargetRecord | null> {
      const row = await db.selectFrom('indieweb_syndication_target').selectAll().where('id', '=', id).executeTakeFirst();
      return row === undefined ? null : toTarget(row);
    },

    /** Removes the user's target; false when the user has none of that uid. */
    async removeTarget(userId: string, id: string): Promise<boolean> {
      const result = await db
        .deleteFrom('indieweb_syndication_target')
        .where('id', '=', id)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    /**
     * The entry's row for the target, made `queued` with `action` (a new row, or the existing one with its copy kept
     * and its error cleared); returns its id.
     */
    async queue(input: {
      id: string;
      userId: string;
      entryUrl: string;
      targetId: string;
      action: SyndicationAction;
      now: string;
    }): Promise<string> {
      const row = await db
        .insertInto('indieweb_syndication')
        .values({
          id: input.id,
          user_id: input.userId,
          entry_url: input.entryUrl,
          target_id: input.targetId,
          action: input.action,
          state: 'queued',
          attempts: 0,
          created_at: input.now,
          updated_at: input.now,
        })
        .onConflict((oc) =>
          oc
            .columns(['entry_url', 'target_id'])
            .doUpdateSet({ action: input.action, state: 'queued', error: null, attempts: 0, updated_at: input.now }),
        )
        .returning('id')
        .executeTakeFirstOrThrow();
      return row.id;
    },

    async find(id: string): Promise<SyndicationRecord | null> {
      const row = await db.selectFrom('indieweb_syndication').selectAll().where('id', '=', id).executeTakeFirst();
      return row === undefined ? null : toRecord(row);
    },

    /** The rows of an entry (by any of its URL spellings), oldest first. */
    async listByEntry(entryUrls: readonly string[]): Promise<SyndicationRecord[]> {
      if (entryUrls.length === 0) return [];
      const rows = await db
        .selectFrom('indieweb_syndication')
        .selectAll()
        .where('entry_url', 'in', [...entryUrls])
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      return rows.map(toRecord);
    },

    /** A user's rows, most recently changed first. */
    async listByUser(userId: string, page: { limit: number; offset: number }): Promise<SyndicationRecord[]> {
      const rows = await db
        .selectFrom('indieweb_syndication')
        .selectAll()
        .where('user_id', '=', userId)
        .orderBy('updated_at', 'desc')
        .orderBy('id')
        .limit(page.limit)
        .offset(page.offset)
        .execute();
      return rows.map(toRecord);
    },

    async markAttempt(id: string, attempts: number, now: string): Promise<void> {
      await db.updateTable('indieweb_syndication').set({ attempts, updated_at: now }).where('id', '=', id).execute();
    },

    /** The copy as soon as the silo names it: from then on a retry never makes another. */
    async recordCopy(id: string, copy: { id: string; url: string }, now: string): Promise<void> {
      await db
        .updateTable('indieweb_syndication')
        .set({ copy_id: copy.id, copy_url: copy.url, updated_at: now })
        .where('id', '=', id)
        .execute();
    },

    async recordOutcome(id: string, outcome: { state: SyndicationState; error: string | null; now: string }): Promise<void> {
      await db
        .updateTable('indieweb_syndication')
        .set({ state: outcome.state, error: outcome.error === null ? null : outcome.error.slice(0, 500), updated_at: outcome.now })
        .where('id', '=', id)
        .execute();
    },

    /** The copy is gone from the silo: the row goes too (an undelete never reposts). */
    async delete(id: string): Promise<void> {
      await db.deleteFrom('indieweb_syndication').where('id', '=', id).execute();
    },
  };
}
