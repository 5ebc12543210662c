import type { FastifyReply, FastifyRequest } from 'fastify';
import { CSRF_COOKIE, issueCsrfToken, verifyCsrfToken } from './csrf-token.js';
import { randomToken } from '../core/crypto.js';
import { readCookie, setCookie } from './cookies.js';
import type { IndieWebContext } from '../app/context.js';

const NONCE_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** A CSRF token for a form of ours, bound to this browser (nonce cookie) and the signed-in user. */
export function csrfTokenFor(ctx: IndieWebContext, request: FastifyRequest, reply: FastifyReply, userId: string | null): string {
  let nonce = readCookie(request, CSRF_COOKIE);
  if (nonce === undefined || !NONCE_PATTERN.test(nonce)) {
    nonce = randomToken();
    setCookie(reply, CSRF_COOKIE, nonce, { secure: ctx.secureCookies, sameSite: 'lax' });
  }
  return issueCsrfToken(ctx.signer, `${nonce}|${userId ?? ''}`, ctx.clock.now());
}

export function isValidCsrf(ctx: IndieWebContext, request: FastifyRequest, userId: string | null, token: unknown): boolean {
  const nonce = readCookie(request, CSRF_COOKIE);
  if (nonce === undefined || !NONCE_PATTERN.test(nonce)) return false;
  return verifyCsrfToken(ctx.signer, `${nonce}|${userId ?? ''}`, token, ctx.clock.now());
}
