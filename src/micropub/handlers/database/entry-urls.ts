/**
 * Where the database handler's entries live: `{baseUrl}/{user}/{yyyy}/{MM}/{slug}/`,
 * `yyyy`/`MM` the published date in UTC, `slug` from `mp-slug`, else the
 * name, else the first words of the content, else the kind of post (`like`,
 * `photo`…); `-2`, `-3`… when the user already has that slug in that month.
 * @module
 */
import type { HostUser } from '../../../contracts/accounts.js';
import type { MicropubProperties } from '../../../contracts/micropub-types.js';
import { sanitizeSlug, userSegment } from '../files/templates.js';
import { kindOf, slugSource } from './entry-fields.js';

/** An account name that is a path segment as it is (the built-in accounts' names always are). */
const PLAIN_SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** The URL path segment of a user: the account name as it is when URL-safe, else a cleaned-up form of it. */
export function userPathSegment(user: HostUser): string {
  return PLAIN_SEGMENT.test(user.name) ? user.name : userSegment(user);
}

/** The slug an entry asks for (before making it unique). */
export function baseSlug(type: readonly string[], properties: MicropubProperties): string {
  for (const source of slugSource(properties)) {
    const slug = sanitizeSlug(source);
    if (slug !== '') return slug;
  }
  return kindOf(type, properties);
}

/** The slug with `-n` appended, cut so the whole stays within the slug length. */
export function numberedSlug(base: string, n: number): string {
  if (n === 1) return base;
  const suffix = `-${n}`;
  return `${sanitizeSlug(base, 60 - suffix.length) || 'entry'}${suffix}`;
}

/** Builds entry URLs under one base URL (no trailing slash; it may have a path of its own). */
export function createEntryUrls(baseUrl: string) {
  const base = baseUrl.replace(/\/+$/, '');
  return {
    /** The month's folder of a user's entries, as a URL path: `/{user}/{yyyy}/{MM}/` (with the base URL's own path in front). */
    monthPath(user: HostUser, published: string): string {
      const folder = `${base}/${encodeURIComponent(userPathSegment(user))}/${published.slice(0, 4)}/${published.slice(5, 7)}/`;
      return new URL(folder).pathname;
    },

    /** The absolute URL and the path of an entry in a month folder. */
    entry(monthPath: string, slug: string): { url: string; path: string } {
      const url = new URL(`${monthPath}${encodeURIComponent(slug)}/`, `${base}/`);
      return { url: url.href, path: url.pathname };
    },

    /** A submitted entry URL (maybe relative) as stored, or null when it is no URL. */
    resolve(submitted: string): string | null {
      try {
        return new URL(submitted, `${base}/`).href;
      } catch {
        return null;
      }
    },
  };
}

export type EntryUrls = ReturnType<typeof createEntryUrls>;
