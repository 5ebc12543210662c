import type { Kysely } from 'kysely';
import type { Database, WebmentionAccountRow } from '../schema.js';

/** One account's webmention settings: the API read token (its hash and key id) and the webhook. */
export interface WebmentionAccountSettings {
  readonly userId: string;
  readonly readTokenHash: string | null;
  /** Not a secret: the token is derived from the server secret and this id. */
  readonly readKeyId: string | null;
  readonly readTokenCreatedAt: string | null;
  readonly webhookUrl: string | null;
  /** Not a secret: the webhook secret is derived from the server secret and this id. */
  readonly webhookKeyId: string | null;
  /** Whether the webhook body carries the secret, as webmention.io's does (the headers are signed either way). */
  readonly webhookWebmentionIo: boolean;
}

export type WebmentionAccountsRepository = ReturnType<typeof createWebmentionAccountsRepository>;

function toSettings(row: WebmentionAccountRow): WebmentionAccountSettings {
  return {
    userId: row.user_id,
    readTokenHash: row.read_token_hash,
    readKeyId: row.read_key_id,
    readTokenCreatedAt: row.read_token_created_at,
    webhookUrl: row.webhook_url,
    webhookKeyId: row.webhook_key_id,
    webhookWebmentionIo: Number(row.webhook_webmention_io) === 1,
  };
}

export function createWebmentionAccountsRepository(db: Kysely<Database>) {
  async function upsert(userId: string, values: Partial<Omit<WebmentionAccountRow, 'user_id' | 'updated_at'>>, now: string): Promise<void> {
    await db
      .insertInto('indieweb_webmention_account')
      .values({
        user_id: userId,
        read_token_hash: null,
        read_key_id: null,
        read_token_created_at: null,
        webhook_url: null,
        webhook_key_id: null,
        ...values,
        updated_at: now,
      })
      .onConflict((oc) => oc.column('user_id').doUpdateSet({ ...values, updated_at: now }))
      .execute();
  }
  return {
    async get(userId: string): Promise<WebmentionAccountSettings | null> {
      const row = await db.selectFrom('indieweb_webmention_account').selectAll().where('user_id', '=', userId).executeTakeFirst();
      return row === undefined ? null : toSettings(row);
    },

    /** The account whose read token hashes to this; null when none. */
    async findByReadTokenHash(hash: string): Promise<string | null> {
      const row = await db
        .selectFrom('indieweb_webmention_account')
        .select('user_id')
        .where('read_token_hash', '=', hash)
        .executeTakeFirst();
      return row?.user_id ?? null;
    },

    /** Replaces the read token: the old one stops working at once. */
    setReadToken: (userId: string, token: { hash: string; keyId: string }, now: string) =>
      upsert(userId, { read_token_hash: token.hash, read_key_id: token.keyId, read_token_created_at: now }, now),

    setWebhook: (userId: string, webhook: { url: string | null; keyId: string | null; webmentionIo: boolean }, now: string) =>
      upsert(userId, { webhook_url: webhook.url, webhook_key_id: webhook.keyId, webhook_webmention_io: webhook.webmentionIo ? 1 : 0 }, now),
  };
}
