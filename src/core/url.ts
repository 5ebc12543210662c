/**
 * URL rules shared by every feature: which URLs are acceptable as client,
 * redirect and profile URLs, and how two of them are compared.
 * @module
 */

/**
 * Parses an absolute http(s) URL with no fragment and no userinfo.
 * Returns null for anything else.
 * @see SPEC.md "Authorization endpoint" (client_id, redirect_uri rules)
 */
export function parseStrictHttpUrl(value: string): URL | null {
  if (value.includes('#') || value.includes('\\')) return null;
  // control characters and whitespace never belong in these URLs; WHATWG parsing would silently strip some
  if (/[\u0000-\u0020\u007f]/.test(value)) return null;
  // the URL parser repairs "http:example.com", "http:///x" and drops empty userinfo; we want the text to be exact
  const parts = /^https?:\/\/([^/?#]+)([^?#]*)/i.exec(value);
  if (parts === null || (parts[1] ?? '').includes('@')) return null;
  if ((parts[2] ?? '').split('/').some((segment) => /^(\.|%2e){1,2}$/i.test(segment))) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.username !== '' || url.password !== '') return null;
  if (url.hostname === '') return null;
  return url;
}

/** `value` resolved against `base` (or taken as absolute without one), when the result is an http(s) URL. */
export function resolveHttpUrl(value: string, base?: string): string | null {
  let url: URL;
  try {
    url = new URL(value, base);
  } catch {
    return null;
  }
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
}

export function isStrictHttpUrl(value: string): boolean {
  return parseStrictHttpUrl(value) !== null;
}

/**
 * The comparison key of a profile URL: scheme and host lowercased (the URL
 * parser does that), an empty path normalised to `/`, path and query kept verbatim.
 */
export function profileUrlKey(value: string): string | null {
  const url = parseStrictHttpUrl(value);
  if (url === null) return null;
  const path = url.pathname === '' ? '/' : url.pathname;
  return `${url.protocol}//${url.host}${path}${url.search}`;
}

/**
 * Compares two URLs after lowercasing scheme and host only; path and query verbatim.
 * @see SPEC.md "Token endpoint" (redirect_uri)
 */
export function sameUrlIgnoringSchemeHostCase(a: string, b: string): boolean {
  const left = splitSchemeHost(a);
  const right = splitSchemeHost(b);
  if (left === null || right === null) return false;
  return left.head === right.head && left.rest === right.rest;
}

function splitSchemeHost(value: string): { head: string; rest: string } | null {
  const match = /^([a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/?#]*)(.*)$/s.exec(value);
  if (match === null) return null;
  return { head: (match[1] ?? '').toLowerCase(), rest: match[2] ?? '' };
}

/** True when `path` is a same-origin path safe to redirect to after login. */
export function isSafeReturnPath(path: string): boolean {
  if (!path.startsWith('/')) return false;
  // "//host" and "/\host" are protocol-relative in browsers
  if (path.startsWith('//') || path.startsWith('/\\')) return false;
  if (/[\u0000-\u001f\u007f\\]/.test(path)) return false;
  try {
    const base = new URL('http://indiestack.invalid');
    return new URL(path, base).origin === base.origin;
  } catch {
    return false;
  }
}

/** The URL as written, with "/" added when it has no path (`https://example.com` → `https://example.com/`). */
export function withRootPath(value: string): string {
  const match = /^([a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/?#]*)(.*)$/s.exec(value);
  if (match === null) return value;
  const rest = match[2] ?? '';
  return rest.startsWith('/') ? value : `${match[1]}/${rest}`;
}
