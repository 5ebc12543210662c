import type { FastifyReply } from 'fastify';
import type { Clock } from '../core/clock.js';
import type { Signer } from '../core/signing.js';
import { setCookie } from '../web/cookies.js';
import { encodeSession, SESSION_COOKIE, SESSION_LIFETIME_S, type SessionClaims } from './session.js';

export interface SessionCookieDeps {
  readonly signer: Signer;
  readonly clock: Clock;
  readonly secureCookies: boolean;
}

/** Writes the session cookie of `claims` (it ends when they expire). */
export function writeSession(reply: FastifyReply, deps: SessionCookieDeps, claims: SessionClaims): void {
  const maxAge = Math.max(0, claims.expiresAt - Math.floor(deps.clock.now().getTime() / 1000));
  setCookie(reply, SESSION_COOKIE, encodeSession(deps.signer, claims), { secure: deps.secureCookies, maxAge });
}

/** Signs the user in on this browser: the signed session cookie, whichever way they proved who they are (a proof made now). */
export function startSession(
  reply: FastifyReply,
  deps: SessionCookieDeps,
  user: { readonly id: string; readonly sessionEpoch: number },
): void {
  const nowS = Math.floor(deps.clock.now().getTime() / 1000);
  writeSession(reply, deps, { userId: user.id, epoch: user.sessionEpoch, expiresAt: nowS + SESSION_LIFETIME_S, provenAt: nowS });
}
