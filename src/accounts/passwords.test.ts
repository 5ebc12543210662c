import { beforeAll, describe, it, expect } from 'vitest';
import { createPasswordHasher, dummyPasswordHash, hashPassword, verifyPassword } from './passwords.js';

// scrypt is deliberately slow, so the suite hashes only a handful of passwords
const PASSWORD = 'correct horse battery staple';
const COMPOSED = 'caf\u00e9 cr\u00e8me'; // é and è as single code points (NFC)
const DECOMPOSED = 'cafe\u0301 cre\u0300me'; // e + combining accent (NFD)

let stored: string;
let composedHash: string;
let decomposedHash: string;

beforeAll(async () => {
  [stored, composedHash, decomposedHash] = await Promise.all([hashPassword(PASSWORD), hashPassword(COMPOSED), hashPassword(DECOMPOSED)]);
});

/** Replaces the character at `index` with a different base64url character. */
function changeCharAt(value: string, index: number): string {
  const replacement = value[index] === 'A' ? 'B' : 'A';
  return value.slice(0, index) + replacement + value.slice(index + 1);
}

describe('hashPassword', () => {
  it('produces scrypt$N$r$p$salt$hash with base64url salt and hash', () => {
    expect(stored).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
  });

  it('does not contain the password', () => {
    expect(stored).not.toContain(PASSWORD);
  });

  it('uses a different salt, and so a different hash, for the same password', async () => {
    const again = await hashPassword(PASSWORD);
    expect(again).not.toBe(stored);
    expect(again.split('$')[4]).not.toBe(stored.split('$')[4]);
    expect(again.split('$')[5]).not.toBe(stored.split('$')[5]);
    expect(await verifyPassword(PASSWORD, again)).toBe(true);
  });
});

describe('verifyPassword', () => {
  it('accepts the password that was hashed', async () => {
    expect(await verifyPassword(PASSWORD, stored)).toBe(true);
  });

  it.each([
    ['a different password', 'correct horse battery stapler'],
    ['a different case', 'Correct horse battery staple'],
    ['a prefix', 'correct horse'],
    ['trailing whitespace', `${PASSWORD} `],
    ['an empty password', ''],
  ])('refuses %s', async (_label, candidate) => {
    expect(await verifyPassword(candidate, stored)).toBe(false);
  });

  it('refuses when the stored hash was altered', async () => {
    const parts = stored.split('$');
    parts[5] = changeCharAt(parts[5] ?? '', 10);
    expect(await verifyPassword(PASSWORD, parts.join('$'))).toBe(false);
  });

  it('refuses when the stored salt was altered', async () => {
    const parts = stored.split('$');
    parts[4] = changeCharAt(parts[4] ?? '', 3);
    expect(await verifyPassword(PASSWORD, parts.join('$'))).toBe(false);
  });

  it.each([
    ['an empty string', ''],
    ['a plain-text password', PASSWORD],
    ['another scheme', '$2b$12$abcdefghijklmnopqrstuuabcdefghijklmnopqrstuvwxyz01234'],
    ['a bcrypt-style prefix', 'bcrypt$32768$8$1$salt$hash'],
    ['a missing hash field', 'scrypt$32768$8$1$c2FsdA'],
    ['only the scheme', 'scrypt'],
  ])('returns false for a malformed stored hash (%s)', async (_label, malformed) => {
    expect(await verifyPassword(PASSWORD, malformed)).toBe(false);
  });

  it('treats composed and decomposed accents as the same password (NFC)', async () => {
    expect(await verifyPassword(DECOMPOSED, composedHash)).toBe(true);
    expect(await verifyPassword(COMPOSED, decomposedHash)).toBe(true);
  });

  it('still tells accented from unaccented letters apart', async () => {
    expect(await verifyPassword('cafe creme', composedHash)).toBe(false);
  });
});

describe('dummyPasswordHash', () => {
  it('returns the same scrypt hash on every call', async () => {
    const first = await dummyPasswordHash();
    expect(first).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(await dummyPasswordHash()).toBe(first);
  });

  it('matches no ordinary password', async () => {
    expect(await verifyPassword('', await dummyPasswordHash())).toBe(false);
  });
});

describe('verifyPassword fails closed on damaged hashes', () => {
  it.each([
    ['an empty hash field', 'scrypt$32768$8$1$c2FsdHNhbHRzYWx0c2FsdA$'],
    ['a hash that decodes to nothing', 'scrypt$32768$8$1$c2FsdHNhbHRzYWx0c2FsdA$!!!'],
    ['empty salt and hash', 'scrypt$32768$8$1$$'],
    ['zero parameters', 'scrypt$0$0$0$$'],
    ['a one-byte hash', 'scrypt$32768$8$1$c2FsdHNhbHRzYWx0c2FsdA$AA'],
    ['non-numeric N', 'scrypt$abc$8$1$AAAA$AAAA'],
    ['N = 1', 'scrypt$1$8$1$AAAA$AAAA'],
    ['an N past the memory limit', 'scrypt$1048576$8$1$AAAA$AAAA'],
    ['an extra field', 'scrypt$32768$8$1$c2FsdHNhbHRzYWx0c2FsdA$AAAA$x'],
  ])('returns false, never throws, for %s', async (_label, stored) => {
    await expect(verifyPassword('any password at all', stored)).resolves.toBe(false);
  });
});

describe('createPasswordHasher', () => {
  it('runs at most maxConcurrent hashes at once; the rest wait their turn and all finish', async () => {
    const hasher = createPasswordHasher({ maxConcurrent: 2 });
    const verifications = Array.from({ length: 6 }, (_, index) => hasher.verify(index === 0 ? PASSWORD : `wrong ${index}`, stored));
    expect(hasher.load).toEqual({ running: 2, waiting: 4 });
    expect(await Promise.all(verifications)).toEqual([true, false, false, false, false, false]);
    expect(hasher.load).toEqual({ running: 0, waiting: 0 });
  });

  it('hashes through the same slots, and what it hashes verifies', async () => {
    const hasher = createPasswordHasher({ maxConcurrent: 1 });
    const hashing = hasher.hash(PASSWORD);
    const waiting = hasher.verify(PASSWORD, stored);
    expect(hasher.load).toEqual({ running: 1, waiting: 1 });
    expect(await verifyPassword(PASSWORD, await hashing)).toBe(true);
    expect(await waiting).toBe(true);
  });
});
