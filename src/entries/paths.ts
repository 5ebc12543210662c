/**
 * The public paths of entry pages, read strictly: `/{user}/`,
 * `/{user}/{yyyy}/{MM}/{slug}/` and the feeds. A path is looked up exactly as
 * it was sent (still percent-encoded), after its segments passed the checks
 * here, so traversal, odd Unicode or a different spelling never reaches
 * another entry: it is simply not found.
 * @module
 */
import { USER_NAME_PATTERN } from '../accounts/user-service.js';
import { trimEndOf } from '../core/text.js';

/** A slug segment as sent: unreserved URL characters and percent escapes, never `.` or `..` alone. */
const SLUG_SEGMENT = /^(?:[A-Za-z0-9._~-]|%[0-9A-F]{2})+$/;
/** A flat slug as the in-memory handler spells it (`encodeURIComponent` leaves `!'()*` as they are). */
const FLAT_SLUG_SEGMENT = /^(?:[A-Za-z0-9._~!'()*-]|%[0-9A-F]{2})+$/;
const YEAR = /^[0-9]{4}$/;
const MONTH = /^(?:0[1-9]|1[0-2])$/;
/** Longest path we look up; entry paths are far shorter. */
const MAX_PATH_LENGTH = 512;

/** The path of a request URL (no query), or null when it is no plain absolute path. */
export function requestPath(url: string): string | null {
  const end = url.search(/[?#]/);
  const path = end === -1 ? url : url.slice(0, end);
  if (!path.startsWith('/') || path.length > MAX_PATH_LENGTH) return null;
  return path;
}

/** The query string of a request URL, parsed. */
export function requestQuery(url: string): URLSearchParams {
  const start = url.indexOf('?');
  return new URLSearchParams(start === -1 ? '' : url.slice(start + 1));
}

export function isUserSegment(segment: string): boolean {
  return USER_NAME_PATTERN.test(segment);
}

function isSlugSegment(segment: string, pattern = SLUG_SEGMENT): boolean {
  if (!pattern.test(segment) || segment === '.' || segment === '..') return false;
  let decoded: string;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    return false;
  }
  // an escaped separator, dot segment or control character is never part of an entry's path
  return decoded !== '.' && decoded !== '..' && !/[/\\\u0000-\u001f\u007f-\u009f]/.test(decoded);
}

export interface EntryPath {
  /** The user the path names; null when it names none (the in-memory handler's `/indieweb/entries/{slug}`). */
  readonly user: string | null;
  /** The canonical path (with the base URL's path in front): a dated one with its trailing slash, a flat one without. */
  readonly path: string;
  /** Whether the request spelled the trailing slash. */
  readonly slash: boolean;
}

/** The path of the base URL, without trailing slash (`''` for a host's root): every page path starts with it. */
export function basePath(baseUrl: string): string {
  return trimEndOf(new URL(baseUrl).pathname, '/');
}

/**
 * `{prefix}/{user}/{yyyy}/{MM}/{slug}/` (trailing slash optional), or null
 * when it is not under the prefix or any segment is not well-formed.
 */
export function parseEntryPath(fullPath: string, prefix = ''): EntryPath | null {
  if (!fullPath.startsWith(`${prefix}/`)) return null;
  const path = fullPath.slice(prefix.length);
  const slash = path.endsWith('/');
  const segments = (slash ? path.slice(1, -1) : path.slice(1)).split('/');
  if (segments.length !== 4) return null;
  const [user, year, month, slug] = segments as [string, string, string, string];
  if (!isUserSegment(user) || !YEAR.test(year) || !MONTH.test(month) || !isSlugSegment(slug)) return null;
  return { user, path: `${prefix}/${user}/${year}/${month}/${slug}/`, slash };
}

/**
 * `{entryPrefix}{slug}` (trailing slash optional; `entryPrefix` is the whole
 * path before the slug, ending in `/`), or null when it is not below it or
 * the slug is not well-formed.
 */
export function parseFlatEntryPath(fullPath: string, entryPrefix: string): EntryPath | null {
  if (!fullPath.startsWith(entryPrefix)) return null;
  const rest = fullPath.slice(entryPrefix.length);
  const slash = rest.endsWith('/');
  const slug = slash ? rest.slice(0, -1) : rest;
  if (!isSlugSegment(slug, FLAT_SLUG_SEGMENT)) return null;
  return { user: null, path: `${entryPrefix}${slug}`, slash };
}

/** A user's home page path. */
export function homePath(user: string): string {
  return `/${user}/`;
}

/** Cursor of a feed page: `{published}~{id}`, base64url-encoded so it survives any id. */
export function encodeCursor(cursor: { published: string; id: string }): string {
  return Buffer.from(`${cursor.published}~${cursor.id}`, 'utf8').toString('base64url');
}

/** The cursor a `?before=` value holds, or null when it is not one of ours. */
export function decodeCursor(value: string): { published: string; id: string } | null {
  if (value.length > 300 || !/^[A-Za-z0-9_-]+$/.test(value)) return null;
  const text = Buffer.from(value, 'base64url').toString('utf8');
  const tilde = text.indexOf('~');
  if (tilde === -1) return null;
  const published = text.slice(0, tilde);
  const id = text.slice(tilde + 1);
  if (Number.isNaN(Date.parse(published)) || !/^\d{4}-\d{2}-\d{2}T/.test(published) || id === '' || /[\u0000-\u001f]/.test(id)) return null;
  return { published, id };
}
