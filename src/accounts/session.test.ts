import { describe, it, expect } from 'vitest';
import { createManualClock } from '../core/clock.js';
import { SESSION_LIFETIME_S, decodeSession, encodeSession, type SessionClaims } from './session.js';
import { createSigner } from '../core/signing.js';

const signer = createSigner('session-test-secret-0123456789abcdef');
const clock = createManualClock('2026-01-01T00:00:00.000Z');
const nowS = Math.floor(clock.now().getTime() / 1000);
const claims: SessionClaims = { userId: 'u_123', epoch: 2, expiresAt: nowS + SESSION_LIFETIME_S };

function encodePayload(json: string): string {
  return Buffer.from(json, 'utf8').toString('base64url');
}

/** A value whose signature is valid but whose payload is the given JSON text. */
function signedPayload(json: string): string {
  const payload = encodePayload(json);
  return `${payload}.${signer.sign('session', payload)}`;
}

describe('encodeSession', () => {
  it('produces payload.signature in base64url', () => {
    expect(encodeSession(signer, claims)).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
  });

  it('uses only cookie-safe characters, whatever the user id', () => {
    expect(encodeSession(signer, { ...claims, userId: 'a;b=c, "d"' })).toMatch(/^[A-Za-z0-9_.-]+$/);
  });
});

describe('decodeSession', () => {
  it('returns the claims that were encoded', () => {
    expect(decodeSession(signer, encodeSession(signer, claims), clock.now())).toEqual(claims);
  });

  it('carries the time of the last proof (issue 28 F6); a value without it is read as never proven', () => {
    const proven = { ...claims, provenAt: nowS - 10 };
    expect(decodeSession(signer, encodeSession(signer, proven), clock.now())).toEqual(proven);
    expect(decodeSession(signer, encodeSession(signer, claims), clock.now())?.provenAt).toBeUndefined();
    expect(decodeSession(signer, signedPayload(JSON.stringify(['u_1', 1, nowS + 60, '12'])), clock.now())).toBeNull();
  });

  it('round-trips user ids with non-ASCII and separator characters', () => {
    const odd = { ...claims, userId: 'ünï.cödé|"x"' };
    expect(decodeSession(signer, encodeSession(signer, odd), clock.now())).toEqual(odd);
  });

  it('accepts the value one second before it expires', () => {
    const value = encodeSession(signer, claims);
    expect(decodeSession(signer, value, new Date((claims.expiresAt - 1) * 1000))).toEqual(claims);
  });

  it('returns null at the moment of expiry', () => {
    const value = encodeSession(signer, claims);
    expect(decodeSession(signer, value, new Date(claims.expiresAt * 1000))).toBeNull();
  });

  it('returns null after expiry', () => {
    const value = encodeSession(signer, { ...claims, expiresAt: nowS + 60 });
    const later = createManualClock(clock.now());
    later.advance(61);
    expect(decodeSession(signer, value, later.now())).toBeNull();
  });

  it('returns null when the payload was changed', () => {
    const [, signature] = encodeSession(signer, claims).split('.');
    const forged = encodePayload(JSON.stringify(['u_admin', claims.epoch, claims.expiresAt]));
    expect(decodeSession(signer, `${forged}.${signature ?? ''}`, clock.now())).toBeNull();
  });

  it('returns null when the expiry in the payload was extended', () => {
    const [, signature] = encodeSession(signer, claims).split('.');
    const forged = encodePayload(JSON.stringify([claims.userId, claims.epoch, claims.expiresAt + 365 * 86_400]));
    expect(decodeSession(signer, `${forged}.${signature ?? ''}`, clock.now())).toBeNull();
  });

  it('returns null when the signature was changed', () => {
    const value = encodeSession(signer, claims);
    const dot = value.indexOf('.');
    const replacement = value[dot + 5] === 'A' ? 'B' : 'A';
    const tampered = value.slice(0, dot + 5) + replacement + value.slice(dot + 6);
    expect(decodeSession(signer, tampered, clock.now())).toBeNull();
  });

  it('returns null for a value signed with another secret', () => {
    const other = createSigner('another-secret-0123456789abcdefghij');
    expect(decodeSession(signer, encodeSession(other, claims), clock.now())).toBeNull();
  });

  it('returns null for a signature made for another purpose', () => {
    const payload = encodeSession(signer, claims).split('.')[0] ?? '';
    expect(decodeSession(signer, `${payload}.${signer.sign('csrf', payload)}`, clock.now())).toBeNull();
  });

  it.each([
    ['an empty string', ''],
    ['a dot', '.'],
    ['no dot', 'abcdef'],
    ['no payload', '.c2lnbmF0dXJl'],
    ['no signature', 'cGF5bG9hZA.'],
    ['random text', 'hello.world'],
    ['three parts', 'a.b.c'],
    ['non-base64 characters', '!!!.???'],
  ])('returns null for garbage: %s', (_label, value) => {
    expect(decodeSession(signer, value, clock.now())).toBeNull();
  });

  it('returns null when a valid value has extra text appended', () => {
    expect(decodeSession(signer, `${encodeSession(signer, claims)}.extra`, clock.now())).toBeNull();
  });

  it.each([
    ['text that is not JSON', 'not json'],
    ['an object', JSON.stringify({ userId: 'u_1', epoch: 1, expiresAt: nowS + 60 })],
    ['too few entries', JSON.stringify(['u_1', 1])],
    ['too many entries', JSON.stringify(['u_1', 1, nowS + 60, 'extra'])],
    ['a numeric user id', JSON.stringify([1, 1, nowS + 60])],
    ['a string epoch', JSON.stringify(['u_1', '1', nowS + 60])],
    ['a string expiry', JSON.stringify(['u_1', 1, String(nowS + 60)])],
    ['a null expiry', JSON.stringify(['u_1', 1, null])],
    ['null', 'null'],
  ])('returns null for a well-signed payload holding %s', (_label, json) => {
    expect(decodeSession(signer, signedPayload(json), clock.now())).toBeNull();
  });
});
