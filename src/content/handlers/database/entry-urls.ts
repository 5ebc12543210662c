/**
 * Where the database handler's entries live: `{baseUrl}/{user}/{yyyy}/{MM}/{slug}/`,
 * `yyyy`/`MM` the published date in UTC, `slug` from `mp-slug`, else the
 * name, else the first words of the content, else the kind of post (`like`,
 * `photo`…); `-2`, `-3`… when the user already has that slug in that month.
 * @module
 */
import type { HostUser } from '../../../contracts/accounts.js';
import type { MicropubProperties } from '../../../contracts/micropub-types.js';
import { createHash } from 'node:crypto';
import { sanitizeSlug } from '../files/templates.js';
import { postKindOf } from '../../../core/post-kind.js';
import { slugSource } from './entry-fields.js';
import { trimEndOf } from '../../../core/text.js';

/**
 * The URL path segment of a user (not yet percent-encoded): the account name
 * as it is (the built-in accounts' names are URL-safe; a host's may not be,
 * and {@link createEntryUrls} percent-encodes it, one-to-one, so two users
 * never share a folder). Only a name that would be a dot segment (`.`, `..`)
 * or empty is replaced by a hash of the user's id.
 */
export function userPathSegment(user: HostUser): string {
  if (!/^\.{0,2}$/.test(user.name)) return user.name;
  return `user-${createHash('sha256').update(user.id).digest('hex').slice(0, 12)}`;
}

/** The slug an entry asks for (before making it unique). */
export function baseSlug(type: readonly string[], properties: MicropubProperties): string {
  for (const source of slugSource(properties)) {
    const slug = sanitizeSlug(source);
    if (slug !== '') return slug;
  }
  // nothing to make a slug from (a like, a repost, a photo without text): its post kind
  return postKindOf(type, properties);
}

/** The slug with `-n` appended, cut so the whole stays within the slug length. */
export function numberedSlug(base: string, n: number): string {
  if (n === 1) return base;
  const suffix = `-${n}`;
  return `${sanitizeSlug(base, 60 - suffix.length) || 'entry'}${suffix}`;
}

/** Builds entry URLs under one base URL (no trailing slash; it may have a path of its own). */
export function createEntryUrls(baseUrl: string) {
  const base = trimEndOf(baseUrl, '/');
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
