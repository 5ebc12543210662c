import { createHmac } from 'node:crypto';
import { constantTimeEqual } from './crypto.js';

/**
 * HMAC-SHA256 signatures under the server secret, kept apart by purpose so a
 * value signed for one use is never accepted for another.
 */
export interface Signer {
  sign(purpose: string, value: string): string;
  verify(purpose: string, value: string, signature: string): boolean;
}

export function createSigner(secret: string): Signer {
  const sign = (purpose: string, value: string) =>
    createHmac('sha256', secret).update(purpose).update('\u0000').update(value).digest('base64url');
  return {
    sign,
    verify: (purpose, value, signature) => constantTimeEqual(sign(purpose, value), signature),
  };
}
