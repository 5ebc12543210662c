import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A 256-bit random value, base64url without padding (43 characters). */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** A random identifier for rows that are shown to people or typed (token, user and webmention ids). */
export function randomId(bytes = 9): string {
  // never a leading "-": ids are typed as command-line arguments, where they would read as options
  for (;;) {
    const id = randomBytes(bytes).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}

export function sha256Base64Url(value: string): string {
  // the one-shot form: a bearer request hashes its token, and a Hash object per call cost a third of that
  return hash('sha256', value, 'base64url');
}

/** Compares two strings in time that depends only on their lengths. */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  if (left.length !== right.length) {
    // still spend the comparison so a length mismatch is not faster than a content one
    timingSafeEqual(left, left);
    return false;
  }
  return timingSafeEqual(left, right);
}
