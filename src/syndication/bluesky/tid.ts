/**
 * Record keys for Bluesky copies: a TID (timestamp identifier) derived from
 * the syndication key, so every retry of one entry's job for one target
 * names the same record and can find it (`app.bsky.feed.post`, `like` and
 * `repost` take only TID keys).
 *
 * A TID is a 64-bit integer written as 13 base32-sortable characters: the
 * top bit 0, 53 bits of microseconds since the Unix epoch, 10 bits of "clock
 * identifier". Ours take the timestamp from a SHA-256 of the key, within a
 * window of 2^45 µs (about 407 days) from 2023-01-01, so it is never in the
 * future and the key keeps 55 bits of the hash.
 * @see https://atproto.com/specs/tid
 * @module
 */
import { createHash } from 'node:crypto';

const ALPHABET = '234567abcdefghijklmnopqrstuvwxyz';
/** 2023-01-01T00:00:00Z in microseconds. */
const WINDOW_START_US = 1_672_531_200_000_000n;
const WINDOW_BITS = 45n;
const TID_PATTERN = /^[234567abcdefghij][234567abcdefghijklmnopqrstuvwxyz]{12}$/;

/** The TID for `key`: the same key always gives the same TID. */
export function tidFromKey(key: string): string {
  const hash = createHash('sha256').update(key, 'utf8').digest();
  const bits = hash.readBigUInt64BE(0);
  const timestamp = WINDOW_START_US + ((bits >> 19n) % (1n << WINDOW_BITS));
  const clockId = bits & 0x3ffn;
  let value = (timestamp << 10n) | clockId;
  let out = '';
  for (let i = 0; i < 13; i += 1) {
    out = ALPHABET[Number(value & 31n)] + out;
    value >>= 5n;
  }
  return out;
}

/** Whether `value` is a syntactically valid TID. */
export function isTid(value: string): boolean {
  return TID_PATTERN.test(value);
}
