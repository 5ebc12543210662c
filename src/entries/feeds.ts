/**
 * A user's published entries as Atom 1.0 and JSON Feed 1.1, written by the
 * `feed` package. Content is the entry's sanitized HTML (or its escaped
 * text); titles are plain text (escaped for Atom's `type="html"`).
 * @module
 */
import { Feed, type Item } from 'feed';
import { escapeHtml } from '../web/html.js';
import { sanitizeEntryHtml } from './content-html.js';
import type { EntryRow } from './entry-source.js';
import { entryTitle, plainText } from './h-entry.js';
import type { OwnerView } from './templates.js';
import { httpUrl } from './safe-url.js';

/** Entries in a feed. */
export const FEED_SIZE = 20;

function contentHtml(row: EntryRow): string {
  const parts: string[] = [];
  for (const value of [...(row.properties.summary ?? []), ...(row.properties.content ?? [])]) {
    if (typeof value === 'object' && value !== null && typeof (value as { html?: unknown }).html === 'string') parts.push(sanitizeEntryHtml((value as { html: string }).html));
    else {
      const text = plainText(value);
      if (text !== null) parts.push(`<p>${escapeHtml(text).replace(/\n/g, '<br>')}</p>`);
    }
  }
  for (const value of row.properties.photo ?? []) {
    const url = httpUrl(typeof value === 'object' && value !== null ? (value as { value?: unknown }).value : value);
    const alt = typeof value === 'object' && value !== null && typeof (value as { alt?: unknown }).alt === 'string' ? (value as { alt: string }).alt : '';
    if (url !== null) parts.push(`<p><img src="${escapeHtml(url)}" alt="${escapeHtml(alt)}"></p>`);
  }
  for (const name of ['in-reply-to', 'like-of', 'repost-of', 'bookmark-of'] as const) {
    for (const value of row.properties[name] ?? []) {
      const url = httpUrl(typeof value === 'object' && value !== null ? ((value as { properties?: { url?: unknown[] } }).properties?.url?.[0] ?? (value as { value?: unknown }).value) : value);
      if (url !== null) parts.push(`<p>${escapeHtml(name)}: <a href="${escapeHtml(url)}">${escapeHtml(url)}</a></p>`);
    }
  }
  return parts.join('\n');
}

function categories(row: EntryRow): string[] {
  return (row.properties.category ?? []).filter((value): value is string => typeof value === 'string');
}

function buildFeed(owner: OwnerView, entries: readonly EntryRow[], format: 'atom' | 'json'): Feed {
  const updated = entries.reduce((latest, row) => (row.updatedAt > latest ? row.updatedAt : latest), entries[0]?.updatedAt ?? owner.profile.updatedAt);
  const author = { name: owner.displayName, link: owner.homeUrl, ...(httpUrl(owner.profile.photoUrl) === null ? {} : { avatar: httpUrl(owner.profile.photoUrl)! }) };
  const feed = new Feed({
    id: owner.homeUrl,
    title: `Posts by ${owner.displayName}`,
    link: owner.homeUrl,
    updated: new Date(updated),
    generator: 'indiestack',
    language: 'en',
    feedLinks: { atom: owner.atomUrl, json: owner.jsonFeedUrl },
    author,
    copyright: '',
  });
  for (const row of entries) {
    const title = entryTitle(row);
    const item: Item = {
      title: format === 'atom' ? escapeHtml(title) : title,
      id: row.url,
      link: row.url,
      date: new Date(row.updatedAt),
      published: new Date(row.published),
      content: contentHtml(row),
      category: categories(row).map((name) => ({ name, term: name })),
      author: [author],
    };
    const photo = row.properties.photo?.[0];
    const image = httpUrl(typeof photo === 'object' && photo !== null ? (photo as { value?: unknown }).value : photo);
    if (image !== null && format === 'json') item.image = image;
    feed.addItem(item);
  }
  return feed;
}

export function atomFeed(owner: OwnerView, entries: readonly EntryRow[]): string {
  return buildFeed(owner, entries, 'atom').atom1();
}

/** JSON Feed 1.1: the package writes 1.0; 1.1 adds `authors` (1.0's `author` is kept for older readers) and `language`. */
export function jsonFeed(owner: OwnerView, entries: readonly EntryRow[]): string {
  const document = JSON.parse(buildFeed(owner, entries, 'json').json1()) as Record<string, unknown> & { items?: Record<string, unknown>[] };
  document.version = 'https://jsonfeed.org/version/1.1';
  document.language = 'en';
  if (document.author !== undefined) document.authors = [document.author];
  for (const item of document.items ?? []) if (item.author !== undefined) item.authors = [item.author];
  return JSON.stringify(document, null, 2);
}
