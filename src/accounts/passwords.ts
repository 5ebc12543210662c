/**
 * Password hashing with scrypt from `node:crypto`. scrypt runs on libuv's
 * thread pool, which file reads and DNS lookups share: a
 * {@link PasswordHasher} lets only a few hashes run at once so that sign-ins
 * queue among themselves instead of filling the pool (docs/reliability.md).
 * @module
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { createSemaphore } from '../core/semaphore.js';

const PARAMS = { N: 2 ** 15, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;
const MAX_MEMORY = 128 * PARAMS.N * PARAMS.r * 2;

function derive(password: string, salt: Buffer, options: ScryptOptions, keyLength: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, keyLength, { ...options, maxmem: MAX_MEMORY }, (error, key) => {
      if (error) reject(error);
      else resolve(key);
    });
  });
}

/** `scrypt$N$r$p$salt$hash`, salt and hash base64url. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, PARAMS, KEY_LENGTH);
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash, extra] = stored.split('$');
  // only parameters we write are accepted, so a damaged or foreign hash fails closed
  if (scheme !== 'scrypt' || extra !== undefined || n !== String(PARAMS.N) || r !== String(PARAMS.r) || p !== String(PARAMS.p))
    return false;
  if (salt === undefined || hash === undefined) return false;
  const expected = Buffer.from(hash, 'base64url');
  const saltBytes = Buffer.from(salt, 'base64url');
  if (expected.length !== KEY_LENGTH || saltBytes.length < 16) return false;
  try {
    const key = await derive(password, saltBytes, PARAMS, KEY_LENGTH);
    return timingSafeEqual(key, expected);
  } catch {
    return false;
  }
}

let dummyHash: Promise<string> | undefined;

/**
 * A hash to verify against when the user does not exist, so a login attempt
 * costs the same time either way.
 */
export function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hashPassword(randomBytes(16).toString('base64url'));
  return dummyHash;
}

/** Hashing and verification with a bound on how many run at once. */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(password: string, stored: string): Promise<boolean>;
  /** Hashes running now and waiting for a turn. */
  readonly load: { readonly running: number; readonly waiting: number };
}

/**
 * A hasher that runs at most `maxConcurrent` scrypt computations at once; the
 * others wait their turn in arrival order.
 */
export function createPasswordHasher(options: { maxConcurrent: number }): PasswordHasher {
  const slots = createSemaphore(options.maxConcurrent);
  return {
    hash: (password) => slots.run(() => hashPassword(password)),
    verify: (password, stored) => slots.run(() => verifyPassword(password, stored)),
    load: {
      get running() {
        return slots.running;
      },
      get waiting() {
        return slots.waiting;
      },
    },
  };
}
