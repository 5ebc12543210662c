/**
 * The one URL matching policy of Webmention: fragments ignored; scheme and
 * host (host.ts: case, IDNA, a trailing dot, a leading `www.`), one non-root trailing slash and the order of
 * query parameters normalized.
 * @see SPEC.md "Webmention endpoints" rule 1
 * @module
 */
import { bareHost } from './host.js';

/** The comparison key of a URL (resolved against `base` when relative), or null when it is no http(s) URL. */
export function canonicalUrl(value: string, base?: string): string | null {
  let url: URL;
  try {
    url = base === undefined ? new URL(value) : new URL(value, base);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  const host = bareHost(url.hostname) + (url.port === '' ? '' : `:${url.port}`);
  let path = url.pathname;
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  const params = [...url.searchParams].sort(([a, av], [b, bv]) => (a === b ? (av < bv ? -1 : av > bv ? 1 : 0) : a < b ? -1 : 1));
  const query = params.length === 0 ? '' : `?${new URLSearchParams(params).toString()}`;
  return `${url.protocol}//${host}${path}${query}`;
}

export function sameCanonicalUrl(a: string, b: string, base?: string): boolean {
  const left = canonicalUrl(a, base);
  return left !== null && left === canonicalUrl(b, base);
}
