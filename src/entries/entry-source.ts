/**
 * What the entry pages read: the entries of the database handler, through a
 * narrow read-only view of its repository (`storage/repositories/entries.ts`
 * satisfies it), so the pages never write and tests can seed rows directly.
 * @module
 */
import type { MicropubProperties } from '../contracts/micropub-types.js';

/** One stored entry, as the database handler keeps it. */
export interface EntryRow {
  readonly id: string;
  readonly userId: string;
  /** Absolute URL: `{baseUrl}/{user}/{yyyy}/{MM}/{slug}/`. */
  readonly url: string;
  /** The URL's path, `/{user}/{yyyy}/{MM}/{slug}/`. */
  readonly path: string;
  readonly type: readonly string[];
  readonly properties: MicropubProperties;
  readonly postStatus: 'published' | 'draft';
  /** ISO 8601, UTC. */
  readonly published: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly deletedAt: string | null;
  readonly version: number;
}

/** Where a page of a user's feed starts: entries strictly older than this (published, id). */
export interface EntryCursor {
  readonly published: string;
  readonly id: string;
}

export interface EntrySource {
  /** The entry at this exact URL path, deleted and draft ones included (the caller decides). */
  findByPath(path: string): Promise<EntryRow | null>;
  /** Published entries, newest first by (published, id); deleted ones and drafts left out. */
  listPublished(userId: string, page: { limit: number; before?: EntryCursor }): Promise<EntryRow[]>;
  countPublished(userId: string): Promise<number>;
}
