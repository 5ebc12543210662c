/**
 * Signed session cookies: verifiable by any instance holding the secret, no
 * server-side store. A per-user epoch in the database ends every session of
 * a user at once (password change, "sign out everywhere").
 * @module
 */
import type { Signer } from '../core/signing.js';

export const SESSION_COOKIE = 'indiestack_session';
export const SESSION_LIFETIME_S = 14 * 24 * 3600;

export interface SessionClaims {
  readonly userId: string;
  readonly epoch: number;
  /** Unix seconds. */
  readonly expiresAt: number;
  /**
   * Unix seconds of the last time the person proved who they are in this
   * session (a sign-in, or the admin's "Confirm it's you"); absent in a
   * cookie from before issue 28, which then counts as never proven.
   */
  readonly provenAt?: number;
}

export function encodeSession(signer: Signer, claims: SessionClaims): string {
  const fields = [claims.userId, claims.epoch, claims.expiresAt, ...(claims.provenAt === undefined ? [] : [claims.provenAt])];
  const payload = Buffer.from(JSON.stringify(fields), 'utf8').toString('base64url');
  return `${payload}.${signer.sign('session', payload)}`;
}

/** The claims of a well-signed, unexpired session value, or null. */
export function decodeSession(signer: Signer, value: string, now: Date): SessionClaims | null {
  const dot = value.indexOf('.');
  if (dot <= 0) return null;
  const payload = value.slice(0, dot);
  if (!signer.verify('session', payload, value.slice(dot + 1))) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (!Array.isArray(parsed) || (parsed.length !== 3 && parsed.length !== 4)) return null;
  const [userId, epoch, expiresAt, provenAt] = parsed as unknown[];
  if (typeof userId !== 'string' || typeof epoch !== 'number' || typeof expiresAt !== 'number') return null;
  if (parsed.length === 4 && typeof provenAt !== 'number') return null;
  if (expiresAt * 1000 <= now.getTime()) return null;
  return typeof provenAt === 'number' ? { userId, epoch, expiresAt, provenAt } : { userId, epoch, expiresAt };
}
