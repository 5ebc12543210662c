/**
 * CSRF tokens for our own forms: an HMAC over a per-browser nonce (kept in a
 * cookie), the signed-in user, and the time of issue. Stateless, so any
 * instance can check them.
 * @module
 */
import type { Signer } from '../core/signing.js';

export const CSRF_COOKIE = 'indiestack_csrf';
export const CSRF_FIELD = '_csrf';
export const CSRF_LIFETIME_S = 4 * 3600;

export function issueCsrfToken(signer: Signer, binding: string, now: Date): string {
  const issuedAt = Math.floor(now.getTime() / 1000).toString(36);
  return `${issuedAt}.${signer.sign('csrf', `${binding}|${issuedAt}`)}`;
}

export function verifyCsrfToken(signer: Signer, binding: string, token: unknown, now: Date): boolean {
  if (typeof token !== 'string') return false;
  const [issuedAt, signature, extra] = token.split('.');
  if (issuedAt === undefined || signature === undefined || extra !== undefined || !/^[0-9a-z]{1,12}$/.test(issuedAt)) return false;
  const age = Math.floor(now.getTime() / 1000) - parseInt(issuedAt, 36);
  if (age < -60 || age > CSRF_LIFETIME_S) return false;
  return signer.verify('csrf', `${binding}|${issuedAt}`, signature);
}
