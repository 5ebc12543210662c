import type { Kysely } from 'kysely';
import type { BackfeedTable, Database, SyndicationRow, SyndicationTargetRow } from '../schema.js';
import { createRowsByKey } from './rows-by-key.js';

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

/** Where a target's backfeed poll stands (issue 34). */
export interface PollState {
  readonly targetId: string;
  /** Mastodon's `since_id`, Bluesky's newest `indexedAt` seen; null before the first poll. */
  readonly cursor: string | null;
  readonly polledAt: string | null;
  /** What the last poll found, as a sentence people read. */
  readonly found: string | null;
  /** Why the last poll failed; null when it worked. */
  readonly error: string | null;
}

/** A response on a copy that came home as a received webmention (what to check to see whether it is still there). */
export interface BackfeedRecord {
  readonly id: string;
  readonly targetId: string;
  readonly webmentionId: string;
  readonly kind: string;
  readonly copyId: string;
  readonly siloId: string;
  readonly source: string;
  readonly createdAt: string;
  readonly checkedAt: string;
}

export type SyndicationRepository = ReturnType<typeof createSyndicationRepository>;

export function createSyndicationRepository(db: Kysely<Database>) {
  const byEntryUrls = createRowsByKey(db, { table: 'indieweb_syndication', key: 'entry_url', order: ['created_at', 'id'] });
  const targetsByUser = createRowsByKey(db, { table: 'indieweb_syndication_target', key: 'user_id', order: ['created_at', 'id'] });
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

    /** A user's targets, oldest first; asked by every `q=config` and `q=syndicate-to`: looked up together (rows-by-key.ts). */
    async listTargets(userId: string): Promise<SyndicationTargetRecord[]> {
      return (await targetsByUser([userId])).map(toTarget);
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

    /**
     * The rows of an entry (by any of its URL spellings), oldest first; asked
     * after every Micropub update and delete, so looked up together with the
     * other operations of the same moment (rows-by-key.ts).
     */
    async listByEntry(entryUrls: readonly string[]): Promise<SyndicationRecord[]> {
      return (await byEntryUrls(entryUrls)).map(toRecord);
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

    /** The copies made on a target, by their ids there: the entry and the copy's URL (backfeed). */
    async copiesByIds(targetId: string, copyIds: readonly string[]): Promise<Map<string, { entryUrl: string; copyUrl: string }>> {
      if (copyIds.length === 0) return new Map();
      const rows = await db
        .selectFrom('indieweb_syndication')
        .select(['copy_id', 'copy_url', 'entry_url'])
        .where('target_id', '=', targetId)
        .where('copy_id', 'in', [...new Set(copyIds)])
        .execute();
      return new Map(
        rows.flatMap((row) =>
          row.copy_id === null || row.copy_url === null ? [] : [[row.copy_id, { entryUrl: row.entry_url, copyUrl: row.copy_url }]],
        ),
      );
    },

    async pollState(targetId: string): Promise<PollState | null> {
      const row = await db.selectFrom('indieweb_syndication_poll').selectAll().where('target_id', '=', targetId).executeTakeFirst();
      return row === undefined
        ? null
        : { targetId: row.target_id, cursor: row.cursor, polledAt: row.polled_at, found: row.found, error: row.error };
    },

    /** After a poll: when, what it found or why it failed; the cursor moves only when given. */
    async recordPoll(
      targetId: string,
      poll: { cursor?: string | null; polledAt: string; found: string | null; error: string | null },
    ): Promise<void> {
      const values = {
        polled_at: poll.polledAt,
        found: poll.found === null ? null : poll.found.slice(0, 500),
        error: poll.error === null ? null : poll.error.slice(0, 500),
        updated_at: poll.polledAt,
        ...(poll.cursor === undefined ? {} : { cursor: poll.cursor }),
      };
      await db
        .insertInto('indieweb_syndication_poll')
        .values({ target_id: targetId, cursor: null, ...values })
        .onConflict((oc) => oc.column('target_id').doUpdateSet(values))
        .execute();
    },

    async findBackfeed(targetId: string, source: string): Promise<BackfeedRecord | null> {
      const row = await db
        .selectFrom('indieweb_backfeed')
        .selectAll()
        .where('target_id', '=', targetId)
        .where('source', '=', source)
        .executeTakeFirst();
      return row === undefined ? null : toBackfeed(row);
    },

    async addBackfeed(record: Omit<BackfeedRecord, 'checkedAt'>): Promise<void> {
      await db
        .insertInto('indieweb_backfeed')
        .values({
          id: record.id,
          target_id: record.targetId,
          webmention_id: record.webmentionId,
          kind: record.kind,
          copy_id: record.copyId,
          silo_id: record.siloId,
          source: record.source,
          created_at: record.createdAt,
          checked_at: record.createdAt,
        })
        .onConflict((oc) => oc.columns(['target_id', 'source']).doUpdateSet({ webmention_id: record.webmentionId }))
        .execute();
    },

    /** A target's backfed responses checked longest ago first: the ones a poll looks at to see whether they are still there. */
    async backfeedToCheck(targetId: string, limit: number): Promise<BackfeedRecord[]> {
      const rows = await db
        .selectFrom('indieweb_backfeed')
        .selectAll()
        .where('target_id', '=', targetId)
        .orderBy('checked_at')
        .orderBy('id')
        .limit(limit)
        .execute();
      return rows.map(toBackfeed);
    },

    async markBackfeedChecked(ids: readonly string[], now: string): Promise<void> {
      if (ids.length === 0) return;
      await db
        .updateTable('indieweb_backfeed')
        .set({ checked_at: now })
        .where('id', 'in', [...ids])
        .execute();
    },

    async deleteBackfeed(id: string): Promise<void> {
      await db.deleteFrom('indieweb_backfeed').where('id', '=', id).execute();
    },
  };
}

function toBackfeed(row: BackfeedTable): BackfeedRecord {
  return {
    id: row.id,
    targetId: row.target_id,
    webmentionId: row.webmention_id,
    kind: row.kind,
    copyId: row.copy_id,
    siloId: row.silo_id,
    source: row.source,
    createdAt: row.created_at,
    checkedAt: row.checked_at,
  };
}
