/**
 * The one rule of what a visitor may see of received webmentions: verified,
 * approved (or from before moderation: no approval recorded), so never
 * pending, failed, spam, held or rejected. The JS predicate and the SQL
 * condition stand side by side and a test checks they agree over every
 * status × approval, on SQLite and PostgreSQL. Every public reader (entry
 * pages, the read API, the webmention.io-compatible API, webhooks) uses one
 * of them.
 * @module
 */
import type { ExpressionBuilder, Expression, SqlBool } from 'kysely';
import type { Database } from '../schema.js';

/** Whether a visitor may see this mention. */
export function isPublicMention(record: { readonly status: string; readonly approval: string | null }): boolean {
  return record.status === 'verified' && (record.approval === null || record.approval === 'approved');
}

/** The same rule as a Kysely condition on `indieweb_webmention`. */
export function publicMentionCondition(eb: ExpressionBuilder<Database, 'indieweb_webmention'>): Expression<SqlBool> {
  return eb.and([eb('status', '=', 'verified'), eb.or([eb('approval', 'is', null), eb('approval', '=', 'approved')])]);
}
