import type { Kysely } from 'kysely';
import type { Database, RefreshTokenRow } from '../schema.js';

/** A refresh token as stored: only its hash. */
export interface RefreshTokenRecord {
  readonly id: string;
  readonly grantId: string;
  readonly userId: string;
  readonly clientId: string;
  readonly me: string;
  /** The scope of the grant; refreshed access tokens may narrow it, never widen it. */
  readonly scope: string;
  readonly createdAt: string;
  readonly expiresAt: string;
  readonly usedAt: string | null;
  readonly revokedAt: string | null;
}

export type RefreshTokensRepository = ReturnType<typeof createRefreshTokensRepository>;

function toRefresh(row: RefreshTokenRow): RefreshTokenRecord {
  return {
    id: row.id,
    grantId: row.grant_id,
    userId: row.user_id,
    clientId: row.client_id,
    me: row.me,
    scope: row.scope,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    usedAt: row.used_at,
    revokedAt: row.revoked_at,
  };
}

export function createRefreshTokensRepository(db: Kysely<Database>) {
  return {
    async insert(record: Omit<RefreshTokenRecord, 'usedAt' | 'revokedAt'>, tokenHash: string): Promise<void> {
      await db
        .insertInto('indieweb_refresh_token')
        .values({
          id: record.id,
          token_hash: tokenHash,
          grant_id: record.grantId,
          user_id: record.userId,
          client_id: record.clientId,
          me: record.me,
          scope: record.scope,
          created_at: record.createdAt,
          expires_at: record.expiresAt,
        })
        .execute();
    },

    async findByHash(tokenHash: string): Promise<RefreshTokenRecord | null> {
      const row = await db.selectFrom('indieweb_refresh_token').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
      return row === undefined ? null : toRefresh(row);
    },

    /** Marks the token used, once (rotation): of two parallel uses exactly one sees true. */
    async use(id: string, now: string): Promise<boolean> {
      const result = await db
        .updateTable('indieweb_refresh_token')
        .set({ used_at: now })
        .where('id', '=', id)
        .where('used_at', 'is', null)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    /** Newest first; all users when `userId` is absent. */
    async list(filter: { userId?: string } = {}): Promise<RefreshTokenRecord[]> {
      let query = db.selectFrom('indieweb_refresh_token').selectAll().orderBy('created_at', 'desc').orderBy('id');
      if (filter.userId !== undefined) query = query.where('user_id', '=', filter.userId);
      return (await query.execute()).map(toRefresh);
    },

    /** True when any token of the grant exists, revoked or not. */
    async hasGrant(grantId: string): Promise<boolean> {
      const row = await db.selectFrom('indieweb_refresh_token').select('id').where('grant_id', '=', grantId).limit(1).executeTakeFirst();
      return row !== undefined;
    },

    /** Revokes every refresh token of a grant; returns how many were not revoked yet. */
    async revokeGrant(grantId: string, now: string): Promise<number> {
      const result = await db
        .updateTable('indieweb_refresh_token')
        .set({ revoked_at: now })
        .where('grant_id', '=', grantId)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },
  };
}
