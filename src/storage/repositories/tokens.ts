import type { Kysely } from 'kysely';
import type { Database, TokenRow } from '../schema.js';

/** An access token as stored: never the token itself, only its hash. */
export interface TokenRecord {
  readonly id: string;
  readonly userId: string;
  readonly clientId: string;
  readonly me: string;
  readonly scope: string;
  readonly createdAt: string;
  /** Null for tokens without expiry (legacy rows and personal access tokens). */
  readonly expiresAt: string | null;
  readonly lastUsedAt: string | null;
  readonly revokedAt: string | null;
  /**
   * The grant the token belongs to: shared with the refresh tokens and later
   * access tokens of one authorization; a token issued alone is its own grant.
   */
  readonly grantId: string;
}

export interface NewToken {
  readonly id: string;
  readonly tokenHash: string;
  readonly userId: string;
  readonly clientId: string;
  readonly me: string;
  readonly scope: string;
  readonly createdAt: string;
  readonly expiresAt: string | null;
  readonly grantId?: string | null;
}

export type TokensRepository = ReturnType<typeof createTokensRepository>;

function toToken(row: TokenRow): TokenRecord {
  return {
    id: row.id,
    userId: row.user_id,
    clientId: row.client_id,
    me: row.me,
    scope: row.scope,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
    // rows from before migration 0006 that escaped its backfill are grants of their own
    grantId: row.grant_id ?? row.id,
  };
}

export function createTokensRepository(db: Kysely<Database>) {
  return {
    async insert(token: NewToken): Promise<void> {
      await db
        .insertInto('indieweb_token')
        .values({
          id: token.id,
          token_hash: token.tokenHash,
          user_id: token.userId,
          client_id: token.clientId,
          me: token.me,
          scope: token.scope,
          created_at: token.createdAt,
          expires_at: token.expiresAt,
          grant_id: token.grantId ?? token.id,
        })
        .execute();
    },

    async findByHash(tokenHash: string): Promise<TokenRecord | null> {
      const row = await db.selectFrom('indieweb_token').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
      return row === undefined ? null : toToken(row);
    },

    async findById(id: string): Promise<TokenRecord | null> {
      const row = await db.selectFrom('indieweb_token').selectAll().where('id', '=', id).executeTakeFirst();
      return row === undefined ? null : toToken(row);
    },

    /** Newest first; all users when `userId` is absent. */
    async list(filter: { userId?: string } = {}): Promise<TokenRecord[]> {
      let query = db.selectFrom('indieweb_token').selectAll().orderBy('created_at', 'desc').orderBy('id');
      if (filter.userId !== undefined) query = query.where('user_id', '=', filter.userId);
      return (await query.execute()).map(toToken);
    },

    /** Marks the token revoked; false when it does not exist or was already revoked. */
    async revoke(id: string, now: string): Promise<boolean> {
      const result = await db
        .updateTable('indieweb_token')
        .set({ revoked_at: now })
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    /** True when any token of the grant exists, revoked or not. */
    async hasGrant(grantId: string): Promise<boolean> {
      const row = await db.selectFrom('indieweb_token').select('id').where('grant_id', '=', grantId).limit(1).executeTakeFirst();
      return row !== undefined;
    },

    /** Revokes every access token of a grant; returns how many were not revoked yet. */
    async revokeGrant(grantId: string, now: string): Promise<number> {
      const result = await db
        .updateTable('indieweb_token')
        .set({ revoked_at: now })
        .where((eb) => eb.or([eb('grant_id', '=', grantId), eb.and([eb('grant_id', 'is', null), eb('id', '=', grantId)])]))
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },

    async touch(id: string, now: string): Promise<void> {
      await db.updateTable('indieweb_token').set({ last_used_at: now }).where('id', '=', id).execute();
    },
  };
}
