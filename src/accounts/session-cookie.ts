import type { FastifyReply } from 'fastify';
import type { Clock } from '../core/clock.js';
import type { Signer } from '../core/signing.js';
import { setCookie } from '../web/cookies.js';
import { encodeSession, SESSION_COOKIE, SESSION_LIFETIME_S } from './session.js';

/** Signs the user in on this browser: the signed session cookie, whichever way they proved who they are. */
export function startSession(reply: FastifyReply, deps: { signer: Signer; clock: Clock; secureCookies: boolean }, user: { readonly id: string; readonly sessionEpoch: number }): void {
  const expiresAt = Math.floor(deps.clock.now().getTime() / 1000) + SESSION_LIFETIME_S;
  setCookie(reply, SESSION_COOKIE, encodeSession(deps.signer, { userId: user.id, epoch: user.sessionEpoch, expiresAt }), { secure: deps.secureCookies, maxAge: SESSION_LIFETIME_S });
}
