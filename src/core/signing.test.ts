import { describe, it, expect } from 'vitest';
import { createSigner } from './signing.js';

const signer = createSigner('k'.repeat(32));

describe('createSigner', () => {
  it('signs with a 43-character base64url HMAC-SHA256', () => {
    expect(signer.sign('session', 'value')).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('gives the same signature for the same purpose and value', () => {
    expect(signer.sign('session', 'value')).toBe(createSigner('k'.repeat(32)).sign('session', 'value'));
  });

  it('verifies its own signature', () => {
    expect(signer.verify('session', 'value', signer.sign('session', 'value'))).toBe(true);
  });

  it('refuses a signature made for another value', () => {
    expect(signer.verify('session', 'value2', signer.sign('session', 'value'))).toBe(false);
  });

  it('refuses a signature made for another purpose', () => {
    expect(signer.verify('csrf', 'value', signer.sign('session', 'value'))).toBe(false);
  });

  it('keeps purpose and value apart (no ambiguity at the boundary)', () => {
    expect(signer.sign('ab', 'c')).not.toBe(signer.sign('a', 'bc'));
  });

  it('refuses a signature made with another secret', () => {
    const other = createSigner('o'.repeat(32));
    expect(signer.verify('session', 'value', other.sign('session', 'value'))).toBe(false);
  });

  it.each(['', 'not-a-signature', 'A'.repeat(43)])('refuses the signature %j', (signature) => {
    expect(signer.verify('session', 'value', signature)).toBe(false);
  });
});
