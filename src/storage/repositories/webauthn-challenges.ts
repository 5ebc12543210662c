import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';

export const CHALLENGE_PURPOSES = ['registration', 'authentication'] as const;
export type ChallengePurpose = (typeof CHALLENGE_PURPOSES)[number];

/** A WebAuthn challenge handed to a browser, waiting for its one answer. */
export interface ChallengeRecord {
  readonly id: string;
  /** base64url, as sent in the options. */
  readonly challenge: string;
  readonly purpose: ChallengePurpose;
  /** Who registers (registration); null for a sign-in, where the passkey names the user. */
  readonly userId: string | null;
  readonly createdAt: string;
  readonly expiresAt: string;
}

export type WebauthnChallengesRepository = ReturnType<typeof createWebauthnChallengesRepository>;

export function createWebauthnChallengesRepository(db: Kysely<Database>) {
  return {
    async insert(challenge: ChallengeRecord): Promise<void> {
      await db
        .insertInto('indieweb_webauthn_challenge')
        .values({
          id: challenge.id,
          challenge: challenge.challenge,
          purpose: challenge.purpose,
          user_id: challenge.userId,
          created_at: challenge.createdAt,
          expires_at: challenge.expiresAt,
        })
        .execute();
    },

    /**
     * Takes the challenge for good: it is deleted, and returned only to the
     * one caller whose DELETE removed it, and only when unexpired and of the
     * purpose asked for. A second answer to the same challenge, on this
     * instance or another, gets null.
     */
    async take(id: string, purpose: ChallengePurpose, now: string): Promise<ChallengeRecord | null> {
      const row = await db.selectFrom('indieweb_webauthn_challenge').selectAll().where('id', '=', id).executeTakeFirst();
      if (row === undefined) return null;
      const result = await db.deleteFrom('indieweb_webauthn_challenge').where('id', '=', id).executeTakeFirst();
      if (Number(result.numDeletedRows) !== 1 || row.purpose !== purpose || row.expires_at <= now) return null;
      return { id: row.id, challenge: row.challenge, purpose, userId: row.user_id, createdAt: row.created_at, expiresAt: row.expires_at };
    },

    /** Removes challenges that expired before `before`; returns how many. */
    async deleteExpired(before: string): Promise<number> {
      const result = await db.deleteFrom('indieweb_webauthn_challenge').where('expires_at', '<', before).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
