/**
 * Who may see an entry: the one rule every reader of entries follows (the
 * entry pages, the home page's list, count and cursors, the feeds, sending
 * webmentions on publish). An entry's `post-status` and `visibility` are
 * read the same way everywhere: the first value that is not a blank string,
 * trimmed and lower-cased. What the rule does not know hides the entry:
 *
 * | `post-status`                | →         | `visibility`                 | →          |
 * |------------------------------|-----------|------------------------------|------------|
 * | absent, blank, `published`   | published | absent, blank, `public`      | public     |
 * | `draft`, anything else       | draft     | `unlisted`                   | unlisted   |
 * |                              |           | `private`, anything else     | private    |
 *
 * A visitor may open an entry at its URL when it is published and not
 * private ({@link isEntryVisible}); it is listed (home page, counts, feeds,
 * webmentions sent on publish) when it is also public and not deleted
 * ({@link isEntryListed}). The database handler stores both words as columns
 * (`post_status`, `visibility`), written from the properties on every write,
 * so its listings apply {@link LISTED} in SQL.
 * @module
 */
import type { MicropubProperties } from '../contracts/micropub-types.js';

export type PostStatus = 'published' | 'draft';
export type Visibility = 'public' | 'unlisted' | 'private';

/** What the rule reads of an entry. `deletedAt` is null (or absent) while it is live. */
export interface EntryAudience {
  readonly postStatus: PostStatus;
  readonly visibility: Visibility;
  readonly deletedAt?: string | null;
}

/** The column values of a listed entry (and `deleted_at` null): the SQL form of {@link isEntryListed}. */
export const LISTED = Object.freeze({ postStatus: 'published', visibility: 'public' } as const);

/**
 * The word a property says: its first value that is not a blank string,
 * trimmed and lower-cased; undefined when it says nothing (absent, empty,
 * only blanks); null when that value is not a string (an object, a number),
 * which no rule knows.
 */
function wordOf(values: readonly unknown[] | undefined): string | null | undefined {
  const first = values?.find((value) => typeof value !== 'string' || value.trim() !== '');
  if (first === undefined) return undefined;
  return typeof first === 'string' ? first.trim().toLowerCase() : null;
}

/** `published` when `post-status` says nothing or says `published`; any other word is a draft. */
export function postStatusOf(properties: MicropubProperties): PostStatus {
  const word = wordOf(properties['post-status']);
  return word === undefined || word === 'published' ? 'published' : 'draft';
}

/** `public` when `visibility` says nothing or says `public`, `unlisted` for `unlisted`; any other word is private. */
export function visibilityOf(properties: MicropubProperties): Visibility {
  const word = wordOf(properties.visibility);
  if (word === undefined || word === 'public') return 'public';
  return word === 'unlisted' ? 'unlisted' : 'private';
}

/** Both words of a live entry's properties. */
export function audienceOf(properties: MicropubProperties): EntryAudience {
  return { postStatus: postStatusOf(properties), visibility: visibilityOf(properties) };
}

/** A visitor may open it at its URL (a deleted one then answers 410): published and not private. */
export function isEntryVisible(entry: EntryAudience): boolean {
  return entry.postStatus === 'published' && entry.visibility !== 'private';
}

/** It is listed (home page, counts, feeds) and announced (webmentions on publish): published, public, not deleted. */
export function isEntryListed(entry: EntryAudience): boolean {
  return entry.postStatus === LISTED.postStatus && entry.visibility === LISTED.visibility && (entry.deletedAt ?? null) === null;
}
