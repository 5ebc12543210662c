/**
 * A user's listed entries as a feed: what Atom 1.0 (`atom.ts`) and JSON Feed
 * 1.1 (`json-feed.ts`) both write, from the same document. Content is the entry's sanitized HTML (or
 * its escaped text); titles, categories and names are plain text, which each
 * writer escapes for its format.
 * @module
 */
import { escapeHtml } from '../web/html.js';
import { sanitizeEntryHtml } from './content-html.js';
import type { EntryRow } from './entry-source.js';
import { entryTitle, plainText } from './h-entry.js';
import { httpUrl } from './safe-url.js';
import type { OwnerView } from './templates.js';

/** Entries in a feed. */
export const FEED_SIZE = 20;

/** A feed, whatever its format. Dates are ISO-8601 UTC; every string is the value itself (unescaped). */
export interface FeedDocument {
  readonly id: string;
  readonly title: string;
  readonly homeUrl: string;
  readonly atomUrl: string;
  readonly jsonFeedUrl: string;
  readonly updated: string;
  readonly language: string;
  readonly author: FeedAuthor;
  readonly items: readonly FeedItem[];
}

export interface FeedAuthor {
  readonly name: string;
  readonly url: string;
  /** An absolute http(s) URL, or null. */
  readonly avatar: string | null;
}

export interface FeedItem {
  /** The entry's URL: its id and its link. */
  readonly url: string;
  readonly title: string;
  readonly contentHtml: string;
  readonly published: string;
  readonly updated: string;
  readonly tags: readonly string[];
  /** An absolute http(s) URL, or null. */
  readonly image: string | null;
}

function contentHtml(row: EntryRow): string {
  const parts: string[] = [];
  for (const value of [...(row.properties.summary ?? []), ...(row.properties.content ?? [])]) {
    if (typeof value === 'object' && value !== null && typeof (value as { html?: unknown }).html === 'string')
      parts.push(sanitizeEntryHtml((value as { html: string }).html));
    else {
      const text = plainText(value);
      if (text !== null) parts.push(`<p>${escapeHtml(text).replace(/\n/g, '<br>')}</p>`);
    }
  }
  for (const value of row.properties.photo ?? []) {
    const url = httpUrl(typeof value === 'object' && value !== null ? (value as { value?: unknown }).value : value);
    const alt =
      typeof value === 'object' && value !== null && typeof (value as { alt?: unknown }).alt === 'string'
        ? (value as { alt: string }).alt
        : '';
    if (url !== null) parts.push(`<p><img src="${escapeHtml(url)}" alt="${escapeHtml(alt)}"></p>`);
  }
  for (const name of ['in-reply-to', 'like-of', 'repost-of', 'bookmark-of'] as const) {
    for (const value of row.properties[name] ?? []) {
      const url = httpUrl(
        typeof value === 'object' && value !== null
          ? ((value as { properties?: { url?: unknown[] } }).properties?.url?.[0] ?? (value as { value?: unknown }).value)
          : value,
      );
      if (url !== null) parts.push(`<p>${escapeHtml(name)}: <a href="${escapeHtml(url)}">${escapeHtml(url)}</a></p>`);
    }
  }
  return parts.join('\n');
}

function tags(row: EntryRow): string[] {
  return (row.properties.category ?? []).filter((value): value is string => typeof value === 'string' && value.trim() !== '');
}

/** An ISO instant of a stored date; `fallback` when it is none. */
function instant(value: string, fallback: string): string {
  const time = Date.parse(value);
  return Number.isNaN(time) ? fallback : new Date(time).toISOString();
}

/** The feed of a user's newest listed entries. */
export function feedDocument(owner: OwnerView, entries: readonly EntryRow[]): FeedDocument {
  const epoch = new Date(0).toISOString();
  const updated = entries.reduce(
    (latest, row) => (row.updatedAt > latest ? row.updatedAt : latest),
    entries[0]?.updatedAt ?? owner.profile.updatedAt,
  );
  return {
    id: owner.homeUrl,
    title: `Posts by ${owner.displayName}`,
    homeUrl: owner.homeUrl,
    atomUrl: owner.atomUrl,
    jsonFeedUrl: owner.jsonFeedUrl,
    updated: instant(updated, epoch),
    language: 'en',
    author: { name: owner.displayName, url: owner.homeUrl, avatar: httpUrl(owner.profile.photoUrl) },
    items: entries.map((row) => {
      const photo = row.properties.photo?.[0];
      return {
        url: row.url,
        title: entryTitle(row),
        contentHtml: contentHtml(row),
        published: instant(row.published, epoch),
        updated: instant(row.updatedAt, epoch),
        tags: tags(row),
        image: httpUrl(typeof photo === 'object' && photo !== null ? (photo as { value?: unknown }).value : photo),
      };
    }),
  };
}
