import type { Kysely } from 'kysely';
import type { AuthCodeRow, Database } from '../schema.js';
import { createRowsByKey } from './rows-by-key.js';

/** An authorization code as stored: only its hash, never the code. */
export interface AuthCodeRecord {
  readonly userId: string;
  readonly clientId: string;
  readonly redirectUri: string;
  readonly me: string;
  readonly scope: string;
  readonly codeChallenge: string | null;
  readonly codeChallengeMethod: string | null;
  readonly createdAt: string;
  readonly expiresAt: string;
  readonly consumedAt: string | null;
  /** The grant issued from the code at the token endpoint; null before, and for codes only verified. */
  readonly grantId: string | null;
}

export type AuthCodesRepository = ReturnType<typeof createAuthCodesRepository>;

function toAuthCode(row: AuthCodeRow): AuthCodeRecord {
  return {
    userId: row.user_id,
    clientId: row.client_id,
    redirectUri: row.redirect_uri,
    me: row.me,
    scope: row.scope,
    codeChallenge: row.code_challenge,
    codeChallengeMethod: row.code_challenge_method,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    consumedAt: row.consumed_at,
    grantId: row.grant_id,
  };
}

export function createAuthCodesRepository(db: Kysely<Database>) {
  const byHash = createRowsByKey(db, { table: 'indieweb_auth_code', key: 'code_hash', order: [], when: 'turn' });

  return {
    async insert(codeHash: string, code: Omit<AuthCodeRecord, 'consumedAt' | 'grantId'>): Promise<void> {
      await db
        .insertInto('indieweb_auth_code')
        .values({
          code_hash: codeHash,
          user_id: code.userId,
          client_id: code.clientId,
          redirect_uri: code.redirectUri,
          me: code.me,
          scope: code.scope,
          code_challenge: code.codeChallenge,
          code_challenge_method: code.codeChallengeMethod,
          created_at: code.createdAt,
          expires_at: code.expiresAt,
        })
        .execute();
    },

    async findByHash(codeHash: string): Promise<AuthCodeRecord | null> {
      const row = await db.selectFrom('indieweb_auth_code').selectAll().where('code_hash', '=', codeHash).executeTakeFirst();
      return row === undefined ? null : toAuthCode(row);
    },

    /**
     * {@link findByHash}, looked up in the loop's check phase together with
     * every other code asked for during this turn of the event loop: one
     * query for all the token requests that arrived together (issue 31: a
     * flood of bad codes cost a query and an answer written on its own each;
     * rows-by-key.ts, `when: 'turn'`). The lookup still happens after the
     * request arrived. Not for use inside a transaction (it runs on the
     * repository's own executor).
     */
    async findByHashInTurn(codeHash: string): Promise<AuthCodeRecord | null> {
      const [row] = await byHash([codeHash]);
      return row === undefined ? null : toAuthCode(row);
    },

    /**
     * Marks the code used, once: a single conditional UPDATE, so of two
     * concurrent exchanges exactly one sees `true`. The row stays (until a
     * day past its expiry) so that a replay is recognised, and names the
     * grant issued from it.
     */
    async consume(codeHash: string, now: string, grantId: string | null = null): Promise<boolean> {
      const result = await db
        .updateTable('indieweb_auth_code')
        .set({ consumed_at: now, grant_id: grantId })
        .where('code_hash', '=', codeHash)
        .where('consumed_at', 'is', null)
        .where('expires_at', '>', now)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    /** Removes codes that expired before `before`; returns how many. */
    async deleteExpired(before: string): Promise<number> {
      const result = await db.deleteFrom('indieweb_auth_code').where('expires_at', '<', before).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
