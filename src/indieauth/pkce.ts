import { createHash } from 'node:crypto';
import { constantTimeEqual } from '../core/crypto.js';

export const PKCE_METHODS = ['S256', 'plain'] as const;
export type PkceMethod = (typeof PKCE_METHODS)[number];

/** @see SPEC.md "Limits": 43-128 characters from `[A-Za-z0-9._~-]` */
const PKCE_VALUE = /^[A-Za-z0-9._~-]{43,128}$/;

export function isPkceValue(value: string): boolean {
  return PKCE_VALUE.test(value);
}

export function isPkceMethod(value: string): value is PkceMethod {
  return (PKCE_METHODS as readonly string[]).includes(value);
}

/** Does the verifier answer the stored challenge under the stored method? Constant-time comparison. */
export function verifyPkce(method: string, challenge: string, verifier: string): boolean {
  if (!isPkceValue(verifier)) return false;
  if (method === 'S256') return constantTimeEqual(createHash('sha256').update(verifier, 'ascii').digest('base64url'), challenge);
  if (method === 'plain') return constantTimeEqual(verifier, challenge);
  return false;
}
