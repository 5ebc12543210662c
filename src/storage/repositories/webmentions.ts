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
  };
}

export function createWebmentionsRepository(db: Kysely<Database>) {
  return {
    /** Inserts the pair as pending, or touches the existing record; returns it and whether it was new. */
    async upsert(input: { id: string; source: string; target: string; targetKey: string; now: string }): Promise<{ record: WebmentionRecord; created: boolean }> {
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
        })
        .onConflict((oc) => oc.columns(['source', 'target']).doUpdateSet({ updated_at: input.now }))
        .returningAll()
        .executeTakeFirstOrThrow();
      return { record: toWebmention(inserted), created: inserted.id === input.id };
    },

    async findById(id: string): Promise<WebmentionRecord | null> {
      const row = await db.selectFrom('indieweb_webmention').selectAll().where('id', '=', id).executeTakeFirst();
      return row === undefined ? null : toWebmention(row);
    },

    async list(filter: { status?: WebmentionStatus; targetKey?: string; limit?: number; offset?: number } = {}): Promise<{ items: WebmentionRecord[]; total: number }> {
      let query = db.selectFrom('indieweb_webmention');
      if (filter.status !== undefined) query = query.where('status', '=', filter.status);
      if (filter.targetKey !== undefined) query = query.where('target_key', '=', filter.targetKey);
      const count = await query.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirst();
      let page = query.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc');
      if (filter.limit !== undefined) page = page.limit(filter.limit);
      if (filter.offset !== undefined && filter.offset > 0) page = page.offset(filter.offset);
      return { items: (await page.execute()).map(toWebmention), total: Number(count?.n ?? 0) };
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
