import { describe, it, expect } from 'vitest';
import { createManualClock } from '../core/clock.js';
import { CSRF_LIFETIME_S, issueCsrfToken, verifyCsrfToken } from './csrf-token.js';
import { createSigner } from '../core/signing.js';

const signer = createSigner('csrf-test-secret-0123456789abcdefghi');
const BINDING = 'nonce-abc|user-1';

function setup() {
  const clock = createManualClock('2026-01-01T00:00:00.000Z');
  const token = issueCsrfToken(signer, BINDING, clock.now());
  return { clock, token };
}

describe('issueCsrfToken', () => {
  it('produces issuedAt.signature with a base-36 time', () => {
    const { token } = setup();
    expect(token).toMatch(/^[0-9a-z]+\.[A-Za-z0-9_-]{43}$/);
  });

  it('encodes the issue time in whole seconds', () => {
    const { clock, token } = setup();
    expect(parseInt(token.split('.')[0] ?? '', 36)).toBe(clock.now().getTime() / 1000);
  });

  it('gives different tokens for different bindings', () => {
    const { clock, token } = setup();
    expect(issueCsrfToken(signer, 'nonce-xyz|user-1', clock.now())).not.toBe(token);
  });
});

describe('verifyCsrfToken', () => {
  it('accepts a token for the same binding', () => {
    const { clock, token } = setup();
    expect(verifyCsrfToken(signer, BINDING, token, clock.now())).toBe(true);
  });

  it.each([
    ['another nonce', 'nonce-xyz|user-1'],
    ['another user', 'nonce-abc|user-2'],
    ['an empty binding', ''],
    ['a prefix of the binding', 'nonce-abc'],
  ])('refuses a token bound to %s', (_label, binding) => {
    const { clock, token } = setup();
    expect(verifyCsrfToken(signer, binding, token, clock.now())).toBe(false);
  });

  it('accepts a token exactly CSRF_LIFETIME_S old', () => {
    const { clock, token } = setup();
    clock.advance(CSRF_LIFETIME_S);
    expect(verifyCsrfToken(signer, BINDING, token, clock.now())).toBe(true);
  });

  it('refuses a token older than CSRF_LIFETIME_S', () => {
    const { clock, token } = setup();
    clock.advance(CSRF_LIFETIME_S + 1);
    expect(verifyCsrfToken(signer, BINDING, token, clock.now())).toBe(false);
  });

  it('accepts a token dated up to a minute in the future (clock skew)', () => {
    const { clock, token } = setup();
    clock.advance(-60);
    expect(verifyCsrfToken(signer, BINDING, token, clock.now())).toBe(true);
  });

  it('refuses a token dated more than a minute in the future', () => {
    const { clock, token } = setup();
    clock.advance(-61);
    expect(verifyCsrfToken(signer, BINDING, token, clock.now())).toBe(false);
  });

  it('refuses a token whose issue time was moved forward to extend it', () => {
    const { clock, token } = setup();
    clock.advance(CSRF_LIFETIME_S + 10);
    const [, signature] = token.split('.');
    const fresh = Math.floor(clock.now().getTime() / 1000).toString(36);
    expect(verifyCsrfToken(signer, BINDING, `${fresh}.${signature ?? ''}`, clock.now())).toBe(false);
  });

  it('refuses a token signed with another secret', () => {
    const { clock } = setup();
    const other = createSigner('another-secret-0123456789abcdefghij');
    expect(verifyCsrfToken(signer, BINDING, issueCsrfToken(other, BINDING, clock.now()), clock.now())).toBe(false);
  });

  it('refuses a session-purpose signature over the same text', () => {
    const { clock, token } = setup();
    const [issuedAt] = token.split('.');
    const forged = `${issuedAt ?? ''}.${signer.sign('session', `${BINDING}|${issuedAt ?? ''}`)}`;
    expect(verifyCsrfToken(signer, BINDING, forged, clock.now())).toBe(false);
  });

  it('refuses a token with a changed signature', () => {
    const { clock, token } = setup();
    const dot = token.indexOf('.');
    const replacement = token[dot + 3] === 'A' ? 'B' : 'A';
    const tampered = token.slice(0, dot + 3) + replacement + token.slice(dot + 4);
    expect(verifyCsrfToken(signer, BINDING, tampered, clock.now())).toBe(false);
  });

  it.each([
    ['undefined', undefined],
    ['null', null],
    ['a number', 12345],
    ['an object', { token: 'x' }],
    ['an array', ['a', 'b']],
    ['an empty string', ''],
    ['a dot', '.'],
    ['no dot', 'abcdef'],
    ['no signature', 'abc.'],
    ['no issue time', '.c2lnbmF0dXJl'],
    ['an upper-case issue time', 'ABC.c2lnbmF0dXJl'],
    ['a negative issue time', '-1.c2lnbmF0dXJl'],
    ['an issue time of 13 characters', `${'1'.repeat(13)}.c2lnbmF0dXJl`],
  ])('refuses a malformed token: %s', (_label, value) => {
    const { clock } = setup();
    expect(verifyCsrfToken(signer, BINDING, value, clock.now())).toBe(false);
  });

  it('refuses a valid token with an extra dot-separated part', () => {
    const { clock, token } = setup();
    expect(verifyCsrfToken(signer, BINDING, `${token}.extra`, clock.now())).toBe(false);
    expect(verifyCsrfToken(signer, BINDING, `${token}.`, clock.now())).toBe(false);
  });

  it('refuses a valid token in an array', () => {
    const { clock, token } = setup();
    expect(verifyCsrfToken(signer, BINDING, [token], clock.now())).toBe(false);
  });
});
