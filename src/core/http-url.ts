/**
 * The one "is this an absolute http(s) URL?" used where stored or remote
 * values become links or fields (entry pages and feeds, the
 * webmention.io-compatible API, the import): stored values never become
 * `javascript:` links.
 * @module
 */

/** The URL, normalised by WHATWG parsing, when `value` is an absolute http(s) URL of at most `maxLength` characters; else null. */
export function httpUrl(value: unknown, maxLength = 4096): string | null {
  if (typeof value !== 'string' || value.length > maxLength) return null;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}
