/**
 * What every built-in content handler agrees on about entries: the post
 * types and queries they advertise, and how an update changes an entry's
 * properties. `indiestack/testing` offers the same to authors of host
 * handlers, so theirs can answer exactly as ours do.
 * @see SPEC.md "Handler contract"
 * @module
 */
import type { MicropubConfig, MicropubProperties, PostType, UpdateOperations } from '../../contracts/micropub-types.js';
import { stableStringify } from '../../core/stable-json.js';

/** @see SPEC.md "Handler contract" (built-in handler post types) */
export const BUILT_IN_POST_TYPES: readonly PostType[] = Object.freeze([
  { type: 'note', name: 'Note', properties: ['content'] },
  { type: 'article', name: 'Article', properties: ['name', 'content'] },
  { type: 'photo', name: 'Photo', properties: ['photo', 'content', 'category'] },
  { type: 'audio', name: 'Audio', properties: ['audio', 'content', 'category'] },
  { type: 'video', name: 'Video', properties: ['video', 'content', 'category'] },
  { type: 'reply', name: 'Reply', properties: ['in-reply-to', 'content'] },
  { type: 'bookmark', name: 'Bookmark', properties: ['bookmark-of', 'name', 'content'] },
  { type: 'like', name: 'Like', properties: ['like-of'] },
  { type: 'repost', name: 'Repost', properties: ['repost-of'] },
  {
    type: 'event',
    name: 'Event',
    properties: ['name', 'summary', 'description', 'start', 'end', 'location', 'category', 'url', 'published'],
  },
  { type: 'rsvp', name: 'RSVP', properties: ['rsvp', 'in-reply-to', 'name', 'content'] },
]);

/** The query names the built-in handlers support and advertise. */
export const BUILT_IN_QUERIES: readonly string[] = Object.freeze([
  'config',
  'source',
  'syndicate-to',
  'category',
  'channel',
  'media-endpoint',
  'post-types',
]);

/** What `q=config` of the built-in handlers answers: empty syndication targets, categories and channels; frozen and shared, so nothing is copied per request. */
export const BUILT_IN_CONFIG: MicropubConfig = Object.freeze({
  'syndicate-to': Object.freeze([]),
  categories: Object.freeze([]),
  channels: Object.freeze([]),
  'post-types': Object.freeze(
    BUILT_IN_POST_TYPES.map((postType) => Object.freeze({ ...postType, properties: Object.freeze([...postType.properties]) })),
  ),
  q: BUILT_IN_QUERIES,
});

/**
 * The `categories` of `q=category` (and `q=config`): every plain-text category
 * of the given entries, once each, sorted — the suggestions the Write page
 * offers.
 */
export function categoriesOf(entries: Iterable<{ readonly properties: MicropubProperties }>): string[] {
  const found = new Set<string>();
  for (const entry of entries)
    for (const category of entry.properties.category ?? [])
      if (typeof category === 'string' && category.trim() !== '') found.add(category.trim());
  return [...found].sort((a, b) => a.localeCompare(b));
}

/** The built-in config with the account's own categories; the shared frozen object itself while there are none. */
export function configWithCategories(categories: readonly string[]): MicropubConfig {
  return categories.length === 0 ? BUILT_IN_CONFIG : { ...BUILT_IN_CONFIG, categories: [...categories] };
}

/** A deep copy of JSON-shaped data (Micropub properties); several times cheaper than structuredClone for small values. */
export function cloneJson<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((item) => cloneJson(item)) as T;
  // defined, not assigned: a key named __proto__ stays an own property and never becomes a prototype
  return Object.fromEntries(Object.keys(value).map((key) => [key, cloneJson((value as Record<string, unknown>)[key])])) as T;
}

/**
 * The properties an entry has after an update: `replace` first (an empty
 * list removes the property), then `add` (appends), then `delete` (a list of
 * names removes whole properties; a map removes single values, compared as
 * key-sorted JSON, and a property left empty disappears).
 *
 * Neither argument is changed. Values taken from `operations` are copied
 * with `copy` (default {@link cloneJson}), so the result never shares them
 * with the caller; lists left untouched are the ones in `current`.
 *
 * @example
 * ```ts
 * applyUpdate({ content: ['a'], category: ['x', 'y'] }, { replace: { content: ['b'] }, delete: { category: ['x'] } });
 * // → { content: ['b'], category: ['y'] }
 * ```
 * @see SPEC.md "Micropub endpoint" (update)
 */
export function applyUpdate(
  current: MicropubProperties,
  operations: UpdateOperations,
  copy: <T>(value: T) => T = cloneJson,
): MicropubProperties {
  const properties = new Map<string, unknown[]>(Object.entries(current));
  for (const [name, values] of Object.entries(operations.replace ?? {})) {
    if (values.length === 0) properties.delete(name);
    else properties.set(name, copy(values));
  }
  for (const [name, values] of Object.entries(operations.add ?? {})) {
    properties.set(name, [...(properties.get(name) ?? []), ...copy(values)]);
  }
  const deletions = operations.delete;
  if (Array.isArray(deletions)) {
    for (const name of deletions) properties.delete(name);
  } else if (deletions !== undefined) {
    for (const [name, values] of Object.entries(deletions as MicropubProperties)) {
      const drop = new Set(values.map((value) => stableStringify(value)));
      const kept = (properties.get(name) ?? []).filter((value) => !drop.has(stableStringify(value)));
      if (kept.length === 0) properties.delete(name);
      else properties.set(name, kept);
    }
  }
  return Object.fromEntries(properties) as MicropubProperties;
}
