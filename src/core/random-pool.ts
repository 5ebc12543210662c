import { randomBytes } from 'node:crypto';

/** Random bytes cut from a pooled buffer: one getrandom call per 8 KiB instead of one per call (ids and slugs on the create path). */
let pool = Buffer.alloc(0);
let offset = 0;

/** `size` fresh random bytes (at most 8 KiB); never handed out twice. */
export function pooledRandomBytes(size: number): Buffer {
  if (offset + size > pool.length) {
    pool = randomBytes(Math.max(8192, size));
    offset = 0;
  }
  offset += size;
  return pool.subarray(offset - size, offset);
}
