/**
 * Fresh proof: when the person in this session last proved who they are
 * (signed in with a password or a passkey, or confirmed it on the admin's
 * "Confirm it's you" step). It travels in the signed session cookie, so any
 * instance can read it and nothing is stored. The actions that could lock
 * the owner out or let someone in for good — adding or removing a passkey,
 * switching passkey-only sign-in, changing the password — need a proof
 * younger than {@link FRESH_PROOF_S}: a session cookie alone (stolen,
 * or left open on a shared computer) is not enough (issue 28 F6).
 * @see docs/security.md "Fresh proof for account changes"
 * @module
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { parseCookie } from 'cookie';
import { decodeSession, SESSION_COOKIE, SESSION_LIFETIME_S, type SessionClaims } from './session.js';
import { writeSession, type SessionCookieDeps } from './session-cookie.js';

/** Seconds a proof stays fresh. */
export const FRESH_PROOF_S = 300;

/** When this session began and when its person last proved who they are (unix seconds; 0: never). */
export interface SessionProof {
  readonly userId: string;
  readonly signedInAt: number;
  readonly provenAt: number;
}

export type SessionProofs = ReturnType<typeof createSessionProofs>;

export function createSessionProofs(deps: SessionCookieDeps) {
  const { signer, clock } = deps;

  function claimsOf(request: FastifyRequest): SessionClaims | null {
    const header = request.headers.cookie;
    if (typeof header !== 'string') return null;
    const value = parseCookie(header)[SESSION_COOKIE];
    return value === undefined ? null : decodeSession(signer, value, clock.now());
  }

  const nowS = () => Math.floor(clock.now().getTime() / 1000);

  /** The proof of the request's session cookie; null without a valid one. */
  function of(request: FastifyRequest): SessionProof | null {
    const claims = claimsOf(request);
    if (claims === null) return null;
    // a session lasts SESSION_LIFETIME_S from its sign-in, and a renewed proof keeps its expiry: so it began here
    return { userId: claims.userId, signedInAt: claims.expiresAt - SESSION_LIFETIME_S, provenAt: claims.provenAt ?? 0 };
  }

  return {
    of,

    /** True when the signed-in `userId` proved who they are in this session less than {@link FRESH_PROOF_S} ago. */
    isFresh(request: FastifyRequest, userId: string): boolean {
      const proof = of(request);
      if (proof === null || proof.userId !== userId) return false;
      const age = nowS() - proof.provenAt;
      return age >= 0 && age < FRESH_PROOF_S;
    },

    /** Records a proof made now in this browser's session cookie (same user, epoch and expiry). */
    renew(request: FastifyRequest, reply: FastifyReply, userId: string): boolean {
      const claims = claimsOf(request);
      if (claims === null || claims.userId !== userId) return false;
      writeSession(reply, deps, { ...claims, provenAt: nowS() });
      return true;
    },
  };
}
