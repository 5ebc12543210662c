/**
 * What the entry pages read: the entries of the database handler, through a
 * narrow read-only view of its repository (`storage/repositories/entries.ts`
 * satisfies it), so the pages never write and tests can seed rows directly;
 * or those of the in-memory handler, through the same view of its store
 * (`content/handlers/memory.ts` `MemoryEntryPages`).
 * @module
 */
import type { EntryRow } from '../storage/repositories/entries.js';

export type { EntryRow } from '../storage/repositories/entries.js';

/** Where a page of a user's feed starts: entries strictly older than this (published, id). */
export interface EntryCursor {
  readonly published: string;
  readonly id: string;
}

export interface EntrySource {
  /**
   * Where the entries live when their paths are not `/{user}/{yyyy}/{MM}/{slug}/`: the in-memory
   * handler's `/indieweb/entries/` (`{slug}` alone, without a trailing slash). Absent: dated paths.
   */
  readonly pathPrefix?: string;
  /** The entry at this exact URL path, deleted and draft ones included (the caller decides). */
  findByPath(path: string): Promise<EntryRow | null>;
  /**
   * Listed entries (`isEntryListed` of `core/visibility.ts`: published, public, live), newest first
   * by (published, id); drafts, unlisted, private and deleted ones never, so neither the pages nor
   * their cursors see them.
   */
  listPublished(userId: string, page: { limit: number; before?: EntryCursor }): Promise<EntryRow[]>;
  /** The listed entries just newer than `after`, newest first (the previous page of a feed). */
  listPublishedAfter(userId: string, page: { limit: number; after: EntryCursor }): Promise<EntryRow[]>;
  /** How many entries {@link listPublished} pages through. */
  countPublished(userId: string): Promise<number>;
}
