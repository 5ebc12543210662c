/**
 * Challenges of passkey sign-in that cost nothing to hand out (issue 28 F8).
 * Anyone who loads the sign-in page may ask for one, so asking must not
 * write: the challenge id carries its time of issue (4 bytes) and 12 random
 * bytes, and the challenge itself is the server's HMAC of that id. Any
 * instance holding the secret can check an answer's challenge without a
 * lookup, and refuse it once it is older than the lifetime.
 *
 * Single use is kept in two places:
 * - in this instance's memory, every challenge an answer was checked against
 *   (at most {@link MAX_REMEMBERED} at once, each forgotten when it expires):
 *   a second answer to it here is "already used", whatever the first one got;
 * - in the database, only the challenge of an answer whose signature
 *   verified, inserted under its id just before the sign-in is granted: the
 *   insert that loses the race (a replay on another instance) refuses the
 *   sign-in. So only real sign-ins write a row, and a flood of requests and
 *   forged answers writes none.
 * @module
 */
import { randomBytes } from 'node:crypto';
import type { Clock } from '../../core/clock.js';
import { addSeconds } from '../../core/clock.js';
import type { Signer } from '../../core/signing.js';
import { isUniqueViolation } from '../../storage/errors.js';
import type { WebauthnChallengesRepository } from '../../storage/repositories/webauthn-challenges.js';

const PURPOSE = 'passkey-sign-in-challenge';
/** Challenge ids remembered at once in one instance (16 bytes each, plus the map's overhead). */
export const MAX_REMEMBERED = 10_000;
/** A challenge issued this far in the future (another instance's clock) is still accepted. */
const CLOCK_SKEW_S = 60;
const ID_PATTERN = /^[A-Za-z0-9_-]{22}$/;

export interface OpenChallenge {
  readonly id: string;
  /** base64url, as the browser signs it. */
  readonly challenge: string;
  readonly expiresAt: Date;
}

export type SignInChallenges = ReturnType<typeof createSignInChallenges>;

export function createSignInChallenges(deps: {
  signer: Signer;
  clock: Clock;
  lifetimeSeconds: number;
  used: WebauthnChallengesRepository;
}) {
  const { signer, clock, lifetimeSeconds, used } = deps;
  /** Checked ids and when each expires (ms), oldest first. */
  const remembered = new Map<string, number>();

  function forgetExpired(nowMs: number): void {
    for (const [id, expiresMs] of remembered) {
      if (expiresMs > nowMs && remembered.size < MAX_REMEMBERED) break;
      remembered.delete(id);
    }
  }

  return {
    /** A new challenge: nothing is stored. */
    issue(): { id: string; challenge: Uint8Array<ArrayBuffer> } {
      const raw = Buffer.alloc(16);
      raw.writeUInt32BE(Math.floor(clock.now().getTime() / 1000), 0);
      randomBytes(12).copy(raw, 4);
      const id = raw.toString('base64url');
      const challenge = new Uint8Array(32);
      challenge.set(Buffer.from(signer.sign(PURPOSE, id), 'base64url'));
      return { id, challenge };
    },

    /**
     * The challenge of an id we issued, not expired and not yet answered on
     * this instance; null otherwise. Opening it counts as its one answer here.
     */
    open(id: string): OpenChallenge | null {
      if (!ID_PATTERN.test(id)) return null;
      const raw = Buffer.from(id, 'base64url');
      if (raw.length !== 16) return null;
      const issuedS = raw.readUInt32BE(0);
      const nowMs = clock.now().getTime();
      const expiresMs = (issuedS + lifetimeSeconds) * 1000;
      if (expiresMs <= nowMs || issuedS * 1000 > nowMs + CLOCK_SKEW_S * 1000) return null;
      forgetExpired(nowMs);
      if (remembered.has(id)) return null;
      remembered.set(id, expiresMs);
      return { id, challenge: signer.sign(PURPOSE, id), expiresAt: new Date(expiresMs) };
    },

    /** Records a verified answer's challenge as used on every instance; false when another answer already used it. */
    async useOnce(open: OpenChallenge): Promise<boolean> {
      const now = clock.now();
      // rows of challenges that expired are of no use to anyone: they go as new sign-ins come
      await used.deleteExpired(now.toISOString());
      try {
        await used.insert({
          id: open.id,
          challenge: open.challenge,
          purpose: 'authentication',
          userId: null,
          createdAt: now.toISOString(),
          expiresAt: (open.expiresAt > now ? open.expiresAt : addSeconds(now, 1)).toISOString(),
        });
        return true;
      } catch (error) {
        if (isUniqueViolation(error)) return false;
        throw error;
      }
    },
  };
}
