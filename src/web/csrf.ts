/**
 * CSRF protection of our own forms: a token bound to this browser (a nonce
 * cookie) and the signed-in user (see csrf-token.ts for the token itself).
 * @module
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../core/clock.js';
import { randomToken } from '../core/crypto.js';
import type { Signer } from '../core/signing.js';
import { readCookie, setCookie } from './cookies.js';
import { CSRF_COOKIE, issueCsrfToken, verifyCsrfToken } from './csrf-token.js';

const NONCE_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export interface Csrf {
  /** A CSRF token for a form of ours, bound to this browser (nonce cookie, set when missing) and the signed-in user. */
  tokenFor(request: FastifyRequest, reply: FastifyReply, userId: string | null): string;
  /** Whether `token` was issued to this browser and user and has not expired. */
  isValid(request: FastifyRequest, userId: string | null, token: unknown): boolean;
}

export function createCsrf(deps: { signer: Signer; clock: Clock; secureCookies: boolean }): Csrf {
  const { signer, clock, secureCookies } = deps;
  return {
    tokenFor(request, reply, userId) {
      let nonce = readCookie(request, CSRF_COOKIE);
      if (nonce === undefined || !NONCE_PATTERN.test(nonce)) {
        nonce = randomToken();
        setCookie(reply, CSRF_COOKIE, nonce, { secure: secureCookies, sameSite: 'lax' });
      }
      return issueCsrfToken(signer, `${nonce}|${userId ?? ''}`, clock.now());
    },
    isValid(request, userId, token) {
      const nonce = readCookie(request, CSRF_COOKIE);
      if (nonce === undefined || !NONCE_PATTERN.test(nonce)) return false;
      return verifyCsrfToken(signer, `${nonce}|${userId ?? ''}`, token, clock.now());
    },
  };
}
