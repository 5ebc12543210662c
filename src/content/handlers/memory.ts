/**
 * The built-in development handler: entries live in this process's memory
 * and are lost on restart. It is also the reference implementation of the
 * handler contract and passes the conformance suite in `indiestack/testing`.
 * Its entries are read by the entry pages (`entries/`) through
 * {@link MemoryEntryPages}, the same read-only view the database handler's
 * repository gives them.
 * @module
 */
import type { HostUser } from '../../contracts/accounts.js';
import { HandlerValueError } from '../../contracts/handler-errors.js';
import type { MicropubHandler } from '../../contracts/micropub-handler.js';
import type {
  MicropubConfig,
  MicropubEntry,
  MicropubProperties,
  NewEntry,
  Page,
  PageRequest,
  UpdateOperations,
} from '../../contracts/micropub-types.js';
import { pooledRandomBytes } from '../../core/random-pool.js';
import { matchesFilter } from '../../core/list-params.js';
import { audienceOf, isEntryListed } from '../../core/visibility.js';
import type { EntryRow } from '../../storage/repositories/entries.js';
import { publishedOf } from './database/entry-fields.js';
import { applyUpdate, BUILT_IN_CONFIG, cloneJson } from './entry-rules.js';

const CONFIG: MicropubConfig = BUILT_IN_CONFIG;

interface StoredEntry {
  /** The creation number, zero-padded: sorts as text in creation order (the pages' cursors). */
  readonly id: string;
  readonly owner: string;
  url: string;
  type: string[];
  properties: MicropubProperties;
  /** When it was created (ISO): listed as its `published` when it has none of its own. */
  readonly created: string;
  updated: string;
  /** When it was deleted (ISO), null while live. */
  deletedAt: string | null;
  /** 1 when created, one more with every change. */
  version: number;
}

/** A position in a user's listed entries, as the entry pages' cursors hold it. */
export interface MemoryEntryCursor {
  readonly published: string;
  readonly id: string;
}

/**
 * The entries as the entry pages read them: the shape of the database
 * handler's repository (`EntrySource` of `entries/entry-source.ts`), so one
 * renderer serves both. Listings hold what `isEntryListed` accepts, newest
 * first by (published, id).
 */
export interface MemoryEntryPages {
  /** Where the entries' paths start (`/indieweb/entries/`, after the base URL's own path). */
  readonly pathPrefix: string;
  findByPath(path: string): Promise<EntryRow | null>;
  listPublished(userId: string, page: { limit: number; before?: MemoryEntryCursor }): Promise<EntryRow[]>;
  listPublishedAfter(userId: string, page: { limit: number; after: MemoryEntryCursor }): Promise<EntryRow[]>;
  countPublished(userId: string): Promise<number>;
}

export interface MemoryHandlerOptions {
  /** Entry URLs are `{baseUrl}/indieweb/entries/{slug}`. */
  readonly baseUrl: string;
  /**
   * The most entries kept (deleted ones included); creating one more forgets
   * the oldest. Each entry costs about 0.5 KiB plus its properties
   * (docs/performance.md). null or absent: no cap.
   */
  readonly maxEntries?: number | null;
  /** @defaultValue the system time */
  readonly now?: () => Date;
}

/** A random slug, from the pooled random bytes. */
function randomSlug(): string {
  return pooledRandomBytes(6).toString('base64url');
}

function appendTo(list: StoredEntry[] | undefined, entry: StoredEntry): StoredEntry[] {
  if (list === undefined) return [entry];
  list.push(entry);
  return list;
}

/** The last segment the entry pages serve themselves under `/indieweb/entries/` (`entries/document.ts`): never an entry's. */
const RESERVED_SLUGS = new Set(['style.css']);

/** Creates an empty in-memory handler. */
export function createMemoryHandler(options: MemoryHandlerOptions): MicropubHandler {
  return createMemoryHandlerWithPages(options).handler;
}

/** An empty in-memory handler and the read-only view of its entries the entry pages serve. */
export function createMemoryHandlerWithPages(options: MemoryHandlerOptions): { handler: MicropubHandler; pages: MemoryEntryPages } {
  const prefix = `${options.baseUrl}/indieweb/entries/`;
  const now = options.now ?? (() => new Date());
  let created = 0;
  const entries = new Map<string, StoredEntry>();
  /** Each user's entries in creation order, and how many are live: a list page costs its own size, not the store's. */
  const byOwner = new Map<string, StoredEntry[]>();
  const liveCount = new Map<string, number>();
  const adjustLive = (owner: string, delta: number) => liveCount.set(owner, (liveCount.get(owner) ?? 0) + delta);
  const maxEntries = options.maxEntries ?? null;

  /** The cap: the oldest entry (the map keeps creation order) goes, from its owner's list too, which it heads. */
  function forgetOldest(): void {
    const [url, oldest] = entries.entries().next().value as [string, StoredEntry];
    entries.delete(url);
    const list = byOwner.get(oldest.owner);
    if (list?.[0] === oldest) list.shift();
    else if (list !== undefined) list.splice(list.indexOf(oldest), 1);
    if (list?.length === 0) {
      byOwner.delete(oldest.owner);
      liveCount.delete(oldest.owner);
    } else if (oldest.deletedAt === null) adjustLive(oldest.owner, -1);
  }

  const resolve = (url: string): string | null => {
    try {
      return new URL(url, prefix).href;
    } catch {
      return null;
    }
  };

  /** The user's entry at `url`; deleted ones only when asked for. */
  function find(url: string, user: HostUser, state: 'live' | 'deleted'): StoredEntry | null {
    const key = resolve(url);
    const entry = key === null ? undefined : entries.get(key);
    // another user's entry is "unknown": ownership never leaks
    if (entry === undefined || entry.owner !== user.id) return null;
    return (entry.deletedAt !== null) === (state === 'deleted') ? entry : null;
  }

  const toEntry = (entry: StoredEntry): MicropubEntry => ({
    url: entry.url,
    type: cloneJson(entry.type),
    properties: cloneJson(entry.properties),
  });

  function newUrl(properties: MicropubProperties): string {
    const wanted = properties['mp-slug']?.find((slug): slug is string => typeof slug === 'string' && slug !== '');
    const base = encodeURIComponent(wanted ?? randomSlug());
    let url = `${prefix}${base}`;
    for (let n = 2; entries.has(url) || RESERVED_SLUGS.has(url.slice(prefix.length)); n++) url = `${prefix}${base}-${n}`;
    return url;
  }

  const handler: MicropubHandler = {
    async createEntry(entry: NewEntry, user: HostUser): Promise<MicropubEntry> {
      const url = newUrl(entry.properties);
      const at = now().toISOString();
      created += 1;
      const stored: StoredEntry = {
        id: String(created).padStart(12, '0'),
        owner: user.id,
        url,
        type: [...entry.type],
        properties: cloneJson(entry.properties),
        created: at,
        updated: at,
        deletedAt: null,
        version: 1,
      };
      entries.set(url, stored);
      byOwner.set(user.id, appendTo(byOwner.get(user.id), stored));
      adjustLive(user.id, 1);
      if (maxEntries !== null && entries.size > maxEntries) forgetOldest();
      // the store holds its own copy; the caller's objects go back to it instead of a second copy
      return { url, type: entry.type, properties: entry.properties };
    },

    async getEntry(url: string, user: HostUser): Promise<MicropubEntry | null> {
      const entry = find(url, user, 'live');
      return entry === null ? null : toEntry(entry);
    },

    async updateEntry(url: string, operations: UpdateOperations, user: HostUser): Promise<MicropubEntry> {
      const entry = find(url, user, 'live');
      if (entry === null) throw new HandlerValueError('no such entry');
      // the new value is computed completely, apart from the stored one, and only then stored:
      // an update that fails half-way changes nothing
      const next = applyUpdate(entry.properties, operations);
      const answer = toEntry({ ...entry, properties: next });
      entry.properties = next;
      entry.updated = now().toISOString();
      entry.version += 1;
      return answer;
    },

    async deleteEntry(url: string, user: HostUser): Promise<void> {
      const entry = find(url, user, 'live');
      if (entry === null) throw new HandlerValueError('no such entry');
      entry.deletedAt = now().toISOString();
      entry.updated = entry.deletedAt;
      entry.version += 1;
      adjustLive(user.id, -1);
    },

    async undeleteEntry(url: string, user: HostUser): Promise<MicropubEntry> {
      const entry = find(url, user, 'deleted');
      if (entry === null) throw new HandlerValueError('no such deleted entry');
      entry.deletedAt = null;
      entry.updated = now().toISOString();
      entry.version += 1;
      adjustLive(user.id, 1);
      return toEntry(entry);
    },

    async getConfig(): Promise<MicropubConfig> {
      // frozen and shared: nothing downstream changes it, so nothing is copied per request
      // (SPEC.md: the built-in handler's syndicate-to, categories and channels are empty lists)
      return CONFIG;
    },

    async listEntries(user: HostUser, page: PageRequest): Promise<Page<MicropubEntry>> {
      const own = byOwner.get(user.id) ?? [];
      const withUrl = (entry: StoredEntry) => ({
        type: entry.type,
        // the list shows where each entry is and when it was published (the Posts page's columns)
        properties: {
          ...entry.properties,
          ...(entry.properties.url === undefined ? { url: [entry.url] } : {}),
          ...(entry.properties.published === undefined ? { published: [entry.created] } : {}),
        },
      });
      const end = page.limit === null ? Infinity : page.offset + page.limit;
      const picked: StoredEntry[] = [];
      let seen = 0;
      // newest first; without a filter the walk stops at the end of the page
      for (let index = own.length - 1; index >= 0 && (page.filter !== null || seen < end); index--) {
        const entry = own[index]!;
        if (entry.deletedAt !== null || !matchesFilter(page.filter === null ? null : withUrl(entry), page.filter)) continue;
        if (seen >= page.offset && seen < end) picked.push(entry);
        seen += 1;
      }
      const total = page.filter === null ? (liveCount.get(user.id) ?? 0) : seen;
      return { items: picked.map((entry) => ({ url: entry.url, ...cloneJson(withUrl(entry)) })), total };
    },
  };

  /** An entry as the pages read it: when it was published is its own valid `published`, else when it was stored (as the database handler keeps it). */
  const toRow = (entry: StoredEntry): EntryRow => ({
    id: entry.id,
    userId: entry.owner,
    url: entry.url,
    path: new URL(entry.url).pathname,
    type: cloneJson(entry.type),
    properties: cloneJson(entry.properties),
    ...audienceOf(entry.properties),
    published: publishedOf(entry.properties) ?? entry.created,
    createdAt: entry.created,
    updatedAt: entry.updated,
    deletedAt: entry.deletedAt,
    version: entry.version,
  });
  /** Newest first by (published, id), as the repository orders them. */
  const newestFirst = (a: MemoryEntryCursor, b: MemoryEntryCursor): number =>
    a.published === b.published ? (a.id < b.id ? 1 : a.id > b.id ? -1 : 0) : a.published < b.published ? 1 : -1;
  const olderThan = (row: MemoryEntryCursor, cursor: MemoryEntryCursor) =>
    row.published < cursor.published || (row.published === cursor.published && row.id < cursor.id);
  /** A user's listed entries (`isEntryListed`) with their sort keys, newest first: a read walks only that user's entries. */
  function listed(userId: string): { readonly entry: StoredEntry; readonly published: string; readonly id: string }[] {
    const rows = [];
    for (const entry of byOwner.get(userId) ?? []) {
      if (isEntryListed({ ...audienceOf(entry.properties), deletedAt: entry.deletedAt }))
        rows.push({ entry, published: publishedOf(entry.properties) ?? entry.created, id: entry.id });
    }
    return rows.sort(newestFirst);
  }

  const pages: MemoryEntryPages = {
    pathPrefix: new URL(prefix).pathname,
    async findByPath(path: string): Promise<EntryRow | null> {
      let key: string;
      try {
        key = new URL(path, prefix).href;
      } catch {
        return null;
      }
      const entry = entries.get(key);
      return entry === undefined ? null : toRow(entry);
    },
    async listPublished(userId, page) {
      const { before } = page;
      const rows = listed(userId);
      const from = before === undefined ? 0 : rows.findIndex((row) => olderThan(row, before));
      return from === -1 ? [] : rows.slice(from, from + page.limit).map((row) => toRow(row.entry));
    },
    async listPublishedAfter(userId, page) {
      const rows = listed(userId);
      // the newer ones lead the list: the page just newer than the cursor is the last `limit` of them
      let end = rows.findIndex((row) => !olderThan(page.after, row));
      if (end === -1) end = rows.length;
      return rows.slice(Math.max(0, end - page.limit), end).map((row) => toRow(row.entry));
    },
    async countPublished(userId) {
      let count = 0;
      for (const entry of byOwner.get(userId) ?? [])
        if (isEntryListed({ ...audienceOf(entry.properties), deletedAt: entry.deletedAt })) count += 1;
      return count;
    },
  };
  return { handler, pages };
}
