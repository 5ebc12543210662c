import { describe, it, expect } from 'vitest';
import { constantTimeEqual, randomId, randomToken, sha256Base64Url } from './crypto.js';

const BASE64URL = /^[A-Za-z0-9_-]+$/;

describe('randomToken', () => {
  it('returns 43 base64url characters (256 bits) by default', () => {
    const token = randomToken();
    expect(token).toHaveLength(43);
    expect(token).toMatch(BASE64URL);
  });

  it('has no padding', () => {
    expect(randomToken()).not.toContain('=');
    expect(randomToken(16)).not.toContain('=');
  });

  it.each([
    [16, 22],
    [24, 32],
    [1, 2],
  ])('encodes %i bytes as %i characters', (bytes, length) => {
    expect(randomToken(bytes)).toHaveLength(length);
  });

  it('returns a different value on every call', () => {
    const tokens = new Set(Array.from({ length: 1000 }, () => randomToken()));
    expect(tokens.size).toBe(1000);
  });
});

describe('randomId', () => {
  it('returns 12 base64url characters', () => {
    const id = randomId();
    expect(id).toHaveLength(12);
    expect(id).toMatch(BASE64URL);
  });

  it('returns a different value on every call', () => {
    const ids = new Set(Array.from({ length: 1000 }, () => randomId()));
    expect(ids.size).toBe(1000);
  });

  it('never starts with "-", which a command line would read as an option', () => {
    // one in 64 would without the guard: 5,000 draws miss that with a chance of about 1e-34
    const ids = Array.from({ length: 5000 }, () => randomId());
    expect(ids.filter((id) => id.startsWith('-'))).toEqual([]);
    expect(ids.filter((id) => id.startsWith('_')).length).toBeGreaterThan(0);
  });
});

describe('sha256Base64Url', () => {
  it('matches the known digest of "abc"', () => {
    expect(sha256Base64Url('abc')).toBe('ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0');
  });

  it('matches the known digest of the empty string', () => {
    expect(sha256Base64Url('')).toBe('47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU');
  });

  it('returns 43 base64url characters', () => {
    const digest = sha256Base64Url('a code verifier with spaces and ünïcode');
    expect(digest).toHaveLength(43);
    expect(digest).toMatch(BASE64URL);
  });

  it('is deterministic', () => {
    expect(sha256Base64Url('token')).toBe(sha256Base64Url('token'));
  });

  it('hashes the UTF-8 bytes as given, without Unicode normalisation', () => {
    expect(sha256Base64Url('caf\u00e9')).not.toBe(sha256Base64Url('cafe\u0301'));
  });
});

describe('constantTimeEqual', () => {
  it.each([
    ['', ''],
    ['abc', 'abc'],
    ['caf\u00e9', 'caf\u00e9'],
    ['ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0', 'ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0'],
  ])('returns true for equal strings (%j)', (a, b) => {
    expect(constantTimeEqual(a, b)).toBe(true);
  });

  it.each([
    ['abc', 'abd'],
    ['abc', 'ABC'],
    ['abc', 'abcd'],
    ['abcd', 'abc'],
    ['', 'a'],
    ['a', ''],
    // same number of UTF-16 code units, different number of UTF-8 bytes
    ['\u00e9', 'e'],
    ['caf\u00e9', 'cafe\u0301'],
  ])('returns false for %j and %j', (a, b) => {
    expect(constantTimeEqual(a, b)).toBe(false);
  });
});
