import type { Kysely } from 'kysely';
import type { Database, WebmentionRow } from '../schema.js';

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
}

/** What processing learned from the source; absent fields keep their stored values. */
export interface ParsedMention {
  readonly type: string;
  readonly author: WebmentionAuthor | null;
  readonly contentText: string | null;
  readonly contentHtml: string | null;
  readonly published: string | null;
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
  };
}

/** Which mentions a list shows. */
export interface WebmentionFilter {
  readonly status?: WebmentionStatus;
  readonly targetKey?: string;
  /** Only the mentions of this account. */
  readonly ownerId?: string;
  readonly limit?: number;
  readonly offset?: number;
}

export function createWebmentionsRepository(db: Kysely<Database>) {
  return {
    /**
     * Inserts the pair as pending, or touches the existing record (its owner
     * decided afresh); returns it and whether it was new.
     */
    async upsert(input: { id: string; source: string; target: string; targetKey: string; targetHost: string; ownerId: string | null; now: string }): Promise<{ record: WebmentionRecord; created: boolean }> {
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
        })
        .onConflict((oc) => oc.columns(['source', 'target']).doUpdateSet({ updated_at: input.now, owner_id: input.ownerId, target_host: input.targetHost }))
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
      if (filter.status !== undefined) query = query.where('status', '=', filter.status);
      if (filter.targetKey !== undefined) query = query.where('target_key', '=', filter.targetKey);
      if (filter.ownerId !== undefined) query = query.where('owner_id', '=', filter.ownerId);
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

    /** Mentions of a target host (without `www.`) still waiting for their first processing. */
    async countPending(targetHost: string): Promise<number> {
      const row = await db
        .selectFrom('indieweb_webmention')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('target_host', '=', targetHost)
        .where('status', '=', 'pending')
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },

    /** Mentions received before owners were recorded (no target host yet), oldest first. */
    async listUnassigned(limit: number): Promise<WebmentionRecord[]> {
      const rows = await db.selectFrom('indieweb_webmention').selectAll().where('target_host', 'is', null).orderBy('created_at').orderBy('id').limit(limit).execute();
      return rows.map(toWebmention);
    },

    async assignOwner(id: string, ownerId: string | null, targetHost: string): Promise<void> {
      await db.updateTable('indieweb_webmention').set({ owner_id: ownerId, target_host: targetHost }).where('id', '=', id).execute();
    },

    /** Verified: fresh verified_at and the parsed fields. */
    async markVerified(id: string, parsed: ParsedMention, now: string): Promise<void> {
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

    async delete(id: string): Promise<boolean> {
      const result = await db.deleteFrom('indieweb_webmention').where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}
