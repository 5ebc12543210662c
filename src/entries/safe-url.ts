/**
 * Which URLs a page may put into `href` and `src`: absolute http(s) only, so
 * stored or remote values never become `javascript:` links.
 * @module
 */

/** The URL when it is an absolute http(s) URL, else null. */
export function httpUrl(value: unknown): string | null {
  if (typeof value !== 'string' || value.length > 4096) return null;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}
