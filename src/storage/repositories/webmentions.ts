import { sql, type Kysely } from 'kysely';
import type { Database, WebmentionRow } from '../schema.js';
import { publicMentionCondition } from './public-mention.js';

export const WEBMENTION_STATUSES = ['pending', 'verified', 'failed', 'spam'] as const;
export type WebmentionStatus = (typeof WEBMENTION_STATUSES)[number];

export interface WebmentionAuthor {
  readonly name: string | null;
  readonly url: string | null;
  readonly photo: string | null;
}

export interface WebmentionRecord {
  /** Unguessable; the last segment of the status URL. */
  readonly id: string;
  /** As submitted. */
  readonly source: string;
  /** As submitted. */
  readonly target: string;
  /** Canonical form of the target, for lookups. */
  readonly targetKey: string;
  readonly status: WebmentionStatus;
  readonly verifiedAt: string | null;
  readonly type: string | null;
  readonly author: WebmentionAuthor;
  readonly contentText: string | null;
  readonly contentHtml: string | null;
  readonly published: string | null;
  readonly error: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** The account the mention belongs to; null when nobody identifiable. */
  readonly ownerId: string | null;
  /** The integer id of the webmention.io-compatible API (`wm-id`). */
  readonly wmId: number;
  /** Moderation: public once verified only when `approved`. */
  readonly approval: WebmentionApproval;
  /** The RSVP value of an `rsvp` mention. */
  readonly rsvp: string | null;
  /** Where an imported mention came from (`webmention.io:900`); null when received here. */
  readonly origin: string | null;
}

export const WEBMENTION_APPROVALS = ['approved', 'held', 'rejected'] as const;
export type WebmentionApproval = (typeof WEBMENTION_APPROVALS)[number];

export const API_SORT_KEYS = ['created', 'updated', 'published', 'rsvp'] as const;
export type ApiSortKey = (typeof API_SORT_KEYS)[number];

/** What the webmention.io-compatible API asks for; only verified, approved mentions are ever answered. */
export interface PublicMentionQuery {
  /** Canonical target keys (any of them). */
  readonly targetKeys?: readonly string[];
  readonly ownerId?: string;
  /** Target host without `www.`. */
  readonly targetHost?: string;
  /** Stored types (reply, like, repost, bookmark, rsvp, mention). */
  readonly types?: readonly string[];
  /** Received at or after this instant (ISO). */
  readonly receivedFrom?: string;
  /** `wm-id` greater than this. */
  readonly afterWmId?: number;
  readonly sortBy: ApiSortKey;
  readonly ascending: boolean;
  readonly limit: number;
  readonly offset: number;
}

/** A mention brought from another service, stored as received there. */
export interface ImportedMention {
  readonly id: string;
  readonly source: string;
  readonly target: string;
  readonly targetKey: string;
  readonly targetHost: string;
  readonly ownerId: string | null;
  readonly type: string;
  readonly rsvp: string | null;
  readonly author: WebmentionAuthor;
  readonly contentText: string | null;
  readonly contentHtml: string | null;
  readonly published: string | null;
  readonly receivedAt: string;
  readonly origin: string;
  readonly now: string;
}

declare const cappedBrand: unique symbol;
/**
 * Fields from outside, cut to the caps and sanitized (webmention/cap-mention.ts
 * `capMention`, the one door): the write methods take nothing else.
 */
export type Capped<T> = T & { readonly [cappedBrand]: true };

/** What processing learned from the source; absent fields keep their stored values. */
export interface ParsedMention {
  readonly type: string;
  readonly author: WebmentionAuthor | null;
  readonly contentText: string | null;
  readonly contentHtml: string | null;
  readonly published: string | null;
  /** The RSVP value, for an `rsvp` mention. */
  readonly rsvp?: string | null;
}

export type WebmentionsRepository = ReturnType<typeof createWebmentionsRepository>;

function toWebmention(row: WebmentionRow): WebmentionRecord {
  return {
    id: row.id,
    source: row.source,
    target: row.target,
    targetKey: row.target_key,
    status: row.status as WebmentionStatus,
    verifiedAt: row.verified_at,
    type: row.type,
    author: { name: row.author_name, url: row.author_url, photo: row.author_photo },
    contentText: row.content_text,
    contentHtml: row.content_html,
    published: row.published,
    error: row.error,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    ownerId: row.owner_id,
    wmId: Number(row.wm_id ?? 0),
    approval: (row.approval ?? 'approved') as WebmentionApproval,
    rsvp: row.rsvp,
    origin: row.origin,
  };
}

/** The next `wm-id`: the counter row stays locked until the transaction ends, so two inserts never take the same one. */
async function nextWmId(db: Kysely<Database>): Promise<number> {
  const row = await db
    .updateTable('indieweb_counter')
    .set({ value: sql<number>`value + 1` })
    .where('name', '=', 'webmention')
    .returning('value')
    .executeTakeFirstOrThrow();
  return Number(row.value);
}

/** Which mentions a list shows. */
export interface WebmentionFilter {
  readonly status?: WebmentionStatus;
  readonly targetKey?: string;
  /** Only the mentions of this account. */
  readonly ownerId?: string;
  readonly approval?: WebmentionApproval;
  /** Only what a visitor may see (public-mention.ts); `status` and `approval` are then ignored. */
  readonly visible?: boolean;
  readonly limit?: number;
  readonly offset?: number;
}

export function createWebmentionsRepository(db: Kysely<Database>) {
  return {
    /**
     * Inserts the pair as pending, or touches the existing record (its owner
     * decided afresh); returns it and whether it was new.
     */
    async upsert(input: {
      id: string;
      source: string;
      target: string;
      targetKey: string;
      targetHost: string;
      ownerId: string | null;
      now: string;
      /** Moderation of a new record. @defaultValue 'approved' */
      approval?: WebmentionApproval;
      /** Where a new record came from (a backfed one: `mastodon:TARGET_UID`). @defaultValue null (received here) */
      origin?: string | null;
    }): Promise<{ record: WebmentionRecord; created: boolean }> {
      const wmId = await nextWmId(db);
      const inserted = await db
        .insertInto('indieweb_webmention')
        .values({
          id: input.id,
          source: input.source,
          target: input.target,
          target_key: input.targetKey,
          status: 'pending',
          created_at: input.now,
          updated_at: input.now,
          owner_id: input.ownerId,
          target_host: input.targetHost,
          wm_id: wmId,
          approval: input.approval ?? 'approved',
          origin: input.origin ?? null,
        })
        .onConflict((oc) =>
          oc.columns(['source', 'target']).doUpdateSet({ updated_at: input.now, owner_id: input.ownerId, target_host: input.targetHost }),
        )
        .returningAll()
        .executeTakeFirstOrThrow();
      return { record: toWebmention(inserted), created: inserted.id === input.id };
    },

    async findById(id: string): Promise<WebmentionRecord | null> {
      const row = await db.selectFrom('indieweb_webmention').selectAll().where('id', '=', id).executeTakeFirst();
      return row === undefined ? null : toWebmention(row);
    },

    /** Newest first; `total` counts every match, whatever the page. */
    async list(filter: WebmentionFilter = {}): Promise<{ items: WebmentionRecord[]; total: number }> {
      let query = db.selectFrom('indieweb_webmention');
      if (filter.visible === true) query = query.where(publicMentionCondition);
      else if (filter.status !== undefined) query = query.where('status', '=', filter.status);
      if (filter.targetKey !== undefined) query = query.where('target_key', '=', filter.targetKey);
      if (filter.ownerId !== undefined) query = query.where('owner_id', '=', filter.ownerId);
      if (filter.visible === true) {
        // the rule above covers approval
      } else if (filter.approval === 'approved')
        query = query.where((eb) => eb.or([eb('approval', 'is', null), eb('approval', '=', 'approved')]));
      else if (filter.approval !== undefined) query = query.where('approval', '=', filter.approval);
      const count = await query.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirst();
      let page = query.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc');
      if (filter.limit !== undefined) page = page.limit(filter.limit);
      if (filter.offset !== undefined && filter.offset > 0) page = page.offset(filter.offset);
      return { items: (await page.execute()).map(toWebmention), total: Number(count?.n ?? 0) };
    },

    /** How many mentions are in each status; for the metrics. */
    async countByStatus(): Promise<Record<string, number>> {
      const rows = await db
        .selectFrom('indieweb_webmention')
        .select((eb) => ['status', eb.fn.countAll<number | string>().as('n')])
        .groupBy('status')
        .execute();
      return Object.fromEntries(rows.map((row) => [row.status, Number(row.n)]));
    },

    /**
     * Mentions of a target host (bare, host.ts) waiting to be checked: still
     * pending, or with a check job of kind `checkJob` still queued (a failed
     * first check waiting to retry, a resubmitted mention waiting for its check).
     */
    async countPending(targetHost: string, checkJob: string): Promise<number> {
      const row = await db
        .selectFrom('indieweb_webmention')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('target_host', '=', targetHost)
        .where((eb) =>
          eb.or([
            eb('status', '=', 'pending'),
            eb.and([
              eb('status', '!=', 'spam'),
              eb.exists(
                eb
                  .selectFrom('indieweb_job')
                  .select('indieweb_job.id')
                  .where('indieweb_job.kind', '=', checkJob)
                  .whereRef('indieweb_job.ref', '=', 'indieweb_webmention.id'),
              ),
            ]),
          ]),
        )
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },

    /** Mentions received before owners were recorded (no target host yet), oldest first. */
    async listUnassigned(limit: number): Promise<WebmentionRecord[]> {
      const rows = await db
        .selectFrom('indieweb_webmention')
        .selectAll()
        .where('target_host', 'is', null)
        .orderBy('created_at')
        .orderBy('id')
        .limit(limit)
        .execute();
      return rows.map(toWebmention);
    },

    async assignOwner(id: string, ownerId: string | null, targetHost: string): Promise<void> {
      await db.updateTable('indieweb_webmention').set({ owner_id: ownerId, target_host: targetHost }).where('id', '=', id).execute();
    },

    /** Verified: fresh verified_at and the parsed fields. */
    async markVerified(id: string, parsed: Capped<ParsedMention>, now: string): Promise<void> {
      await db
        .updateTable('indieweb_webmention')
        .set({
          status: 'verified',
          verified_at: now,
          type: parsed.type,
          author_name: parsed.author?.name ?? null,
          author_url: parsed.author?.url ?? null,
          author_photo: parsed.author?.photo ?? null,
          content_text: parsed.contentText,
          content_html: parsed.contentHtml,
          published: parsed.published,
          rsvp: parsed.rsvp ?? null,
          error: null,
          updated_at: now,
        })
        .where('id', '=', id)
        .execute();
    },

    /** Failed or spam: verified_at cleared; submitted URLs and parsed author/content kept. */
    async markStatus(id: string, status: 'failed' | 'spam', reason: string | null, now: string): Promise<boolean> {
      const result = await db
        .updateTable('indieweb_webmention')
        .set({ status, verified_at: null, error: reason, updated_at: now })
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    /** Verified and approved mentions for the public API, in the asked order. */
    async searchPublic(query: PublicMentionQuery): Promise<WebmentionRecord[]> {
      let select = db.selectFrom('indieweb_webmention').selectAll().where(publicMentionCondition);
      if (query.targetKeys !== undefined)
        select = select.where('target_key', 'in', query.targetKeys.length === 0 ? [''] : [...query.targetKeys]);
      if (query.ownerId !== undefined) select = select.where('owner_id', '=', query.ownerId);
      if (query.targetHost !== undefined) select = select.where('target_host', '=', query.targetHost);
      if (query.types !== undefined) select = select.where('type', 'in', query.types.length === 0 ? [''] : [...query.types]);
      if (query.receivedFrom !== undefined) select = select.where('created_at', '>=', query.receivedFrom);
      if (query.afterWmId !== undefined) select = select.where('wm_id', '>', query.afterWmId);
      const direction = query.ascending ? 'asc' : 'desc';
      if (query.sortBy === 'rsvp') {
        // down: yes first; up: no first (webmention.io's order), then by date received
        const rank = sql<number>`case rsvp when 'yes' then 0 when 'maybe' then 1 when 'interested' then 2 when 'no' then 3 else 4 end`;
        select = query.ascending
          ? select.orderBy(
              sql<number>`case rsvp when 'no' then 0 when 'interested' then 1 when 'maybe' then 2 when 'yes' then 3 else 4 end`,
            )
          : select.orderBy(rank);
        select = select.orderBy('created_at', direction);
      } else if (query.sortBy === 'published') {
        select = select.orderBy(sql<string>`coalesce(published, created_at)`, direction);
      } else {
        select = select.orderBy(query.sortBy === 'updated' ? 'updated_at' : 'created_at', direction);
      }
      select = select.orderBy('wm_id', direction).limit(query.limit);
      if (query.offset > 0) select = select.offset(query.offset);
      return (await select.execute()).map(toWebmention);
    },

    /** How many verified, approved mentions of these targets there are, by type and RSVP value. */
    async countPublicByType(targetKeys: readonly string[]): Promise<{ type: string; rsvp: string | null; count: number }[]> {
      if (targetKeys.length === 0) return [];
      const rows = await db
        .selectFrom('indieweb_webmention')
        .select(['type', 'rsvp', (eb) => eb.fn.countAll<number | string>().as('n')])
        .where(publicMentionCondition)
        .where('target_key', 'in', [...targetKeys])
        .groupBy(['type', 'rsvp'])
        .execute();
      return rows.map((row) => ({ type: row.type ?? 'mention', rsvp: row.rsvp, count: Number(row.n) }));
    },

    async setApproval(id: string, approval: WebmentionApproval, now: string): Promise<boolean> {
      const result = await db.updateTable('indieweb_webmention').set({ approval, updated_at: now }).where('id', '=', id).executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    /** Held mentions of an account (null: of nobody) that wait for a decision, verified or not yet checked. */
    async countHeld(ownerId: string | null): Promise<number> {
      const row = await db
        .selectFrom('indieweb_webmention')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('approval', '=', 'held')
        .where('status', 'in', ['pending', 'verified'])
        .where('owner_id', ownerId === null ? 'is' : '=', ownerId)
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },

    /** Whether a mention from this source host to this account was ever approved (for "first from a domain"). */
    async hasApprovedFromHost(ownerId: string | null, sourceHostPattern: { exact: string; www: string }): Promise<boolean> {
      const row = await db
        .selectFrom('indieweb_webmention')
        .select('id')
        .where('owner_id', ownerId === null ? 'is' : '=', ownerId)
        .where(publicMentionCondition)
        // the host, with or without www., any scheme and port
        .where((eb) =>
          eb.or(
            ['http', 'https'].flatMap((scheme) =>
              [sourceHostPattern.exact, sourceHostPattern.www].flatMap((host) =>
                ['/%', ':%'].map((end) => eb('source', 'like', `${scheme}://${host}${end}`)),
              ),
            ),
          ),
        )
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },

    /** Stores a mention received elsewhere, verified and approved, with its own received date; false when the pair is already here. */
    async insertImported(input: Capped<ImportedMention>): Promise<boolean> {
      const existing = await db
        .selectFrom('indieweb_webmention')
        .select('id')
        .where('source', '=', input.source)
        .where('target', '=', input.target)
        .executeTakeFirst();
      if (existing !== undefined) return false;
      const wmId = await nextWmId(db);
      await db
        .insertInto('indieweb_webmention')
        .values({
          id: input.id,
          source: input.source,
          target: input.target,
          target_key: input.targetKey,
          target_host: input.targetHost,
          owner_id: input.ownerId,
          status: 'verified',
          verified_at: input.receivedAt,
          type: input.type,
          rsvp: input.rsvp,
          author_name: input.author.name,
          author_url: input.author.url,
          author_photo: input.author.photo,
          content_text: input.contentText,
          content_html: input.contentHtml,
          published: input.published,
          created_at: input.receivedAt,
          updated_at: input.now,
          wm_id: wmId,
          approval: 'approved',
          origin: input.origin,
        })
        .execute();
      return true;
    },

    async delete(id: string): Promise<boolean> {
      const result = await db.deleteFrom('indieweb_webmention').where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}
