/**
 * The built-in `database` content handler (`INDIEWEB_MICROPUB_HANDLER=database`):
 * entries live in indiestack's own database (table `indieweb_entry`, SQLite
 * or PostgreSQL), so they survive restarts and every instance sees the same
 * ones. It answers exactly as the in-memory handler does (same post types,
 * queries and update rules from `entry-rules.ts`, properties stored as
 * sent); what differs is the URL (`entry-urls.ts`) and that `published`,
 * the post status and the visibility are also kept in columns for the entry
 * pages (the repository reads the last two from the properties).
 *
 * Concurrent updates of one entry (two requests, two instances) never lose a
 * change: each update rereads the entry and writes over the version it read,
 * retrying when another writer got there first (`EntriesRepository.modify`).
 * @module
 */
import type { HostUser } from '../../../contracts/accounts.js';
import { HandlerValueError } from '../../../contracts/handler-errors.js';
import type { MicropubHandler } from '../../../contracts/micropub-handler.js';
import type {
  MicropubConfig,
  MicropubEntry,
  MicropubProperties,
  NewEntry,
  Page,
  PageRequest,
  UpdateOperations,
} from '../../../contracts/micropub-types.js';
import { systemClock, type Clock } from '../../../core/clock.js';
import { pooledRandomBytes } from '../../../core/random-pool.js';
import { isDatabaseUnavailable } from '../../../core/database-faults.js';
import { matchesFilter } from '../../../core/list-params.js';
import { isUniqueViolation } from '../../../storage/errors.js';
import type { EntriesRepository, EntryRow } from '../../../storage/repositories/entries.js';
import { applyUpdate, categoriesOf, cloneJson, configWithCategories } from '../entry-rules.js';
import { publishedOf } from './entry-fields.js';
import { baseSlug, createEntryUrls, numberedSlug } from './entry-urls.js';
import { createSlugNumbers } from './slug-numbers.js';
import { createBoundedCache } from '../../../core/bounded-cache.js';

export interface DatabaseHandlerOptions {
  /** Entry URLs are `{baseUrl}/{user}/{yyyy}/{MM}/{slug}/`. */
  readonly baseUrl: string;
  /** The entries table (`stores.entries`, or `createEntriesRepository(database.db)`). */
  readonly entries: EntriesRepository;
  /** @defaultValue the system clock */
  readonly clock?: Clock;
}

/** Numbered slugs looked up at once (one indexed query) when choosing a new entry's path. */
const SLUG_BATCH = 16;
/** Inserts tried when other writers keep taking the chosen path; the last one probes the numbered paths from 1. */
const MAX_INSERT_ATTEMPTS = 10;

/** The random tail of an entry id, from the pooled random bytes (one getrandom per 8 KiB: it was 3 % of a create's CPU). */
function randomTail(): string {
  return pooledRandomBytes(8).toString('hex');
}

/** Ids that sort in creation order within a process (time, then a counter) and never collide across instances (random tail). */
let lastMillis = 0;
let sequence = 0;
function newEntryId(): string {
  const now = Date.now();
  if (now > lastMillis) {
    lastMillis = now;
    sequence = 0;
  } else sequence += 1;
  return `${lastMillis.toString(16).padStart(12, '0')}${sequence.toString(16).padStart(6, '0')}${randomTail()}`;
}

const toEntry = (row: EntryRow): MicropubEntry => ({ url: row.url, type: row.type, properties: row.properties });

/** An entry as listed: with its `url`, and its `published` (the stored date) when it has none of its own. */
const withUrl = (row: EntryRow) => ({
  type: row.type,
  properties: {
    ...row.properties,
    ...(row.properties.url === undefined ? { url: [row.url] } : {}),
    ...(row.properties.published === undefined ? { published: [row.published] } : {}),
  },
});

/** How many of an account's latest entries the category suggestions come from. */
const CATEGORY_WINDOW = 1000;
/** Accounts whose config is remembered, and the characters of their categories together (least recently asked first out). */
const CONFIG_CACHE_ACCOUNTS = 1_024;
const CONFIG_CACHE_CHARS = 1024 * 1024;

/**
 * Each account's q=config, remembered with the version of its entries it was
 * made from (migration 0018: the version moves with every change of the
 * account's entries, by any instance). Reading the 1,000 latest entries for
 * their categories was 3.6 ms and a quarter of a megabyte of garbage per
 * q=config at 2,000 entries (issue 31); now a config is made again only after
 * the account's entries changed. Deeply frozen, so the endpoint also keeps
 * its JSON text (micropub/queries.ts).
 */
function createConfigCache() {
  const remembered = createBoundedCache<string, { version: number; config: MicropubConfig; chars: number }>({
    maxEntries: CONFIG_CACHE_ACCOUNTS,
    maxWeight: CONFIG_CACHE_CHARS,
    weigh: (_userId, entry) => entry.chars,
  });
  return {
    get(userId: string, version: number): MicropubConfig | undefined {
      const known = remembered.get(userId);
      return known === undefined || known.version !== version ? undefined : known.config;
    },
    set(userId: string, version: number, categories: readonly string[]): MicropubConfig {
      const config = configWithCategories(categories);
      const frozen = config.categories === undefined ? config : Object.freeze({ ...config, categories: Object.freeze([...categories]) });
      // one account's categories beyond the bound are not remembered at all
      const chars = userId.length + categories.reduce((sum, category) => sum + category.length, 0);
      remembered.set(userId, { version, config: frozen, chars });
      return frozen;
    },
  };
}

export function createDatabaseHandler(options: DatabaseHandlerOptions): MicropubHandler {
  const { entries } = options;
  const clock = options.clock ?? systemClock;
  const urls = createEntryUrls(options.baseUrl);
  const slugNumbers = createSlugNumbers();
  const configs = createConfigCache();

  /** The user's entry at `url` in the wanted state; another user's entry is unknown, like a URL nobody has. */
  async function find(url: string, user: HostUser, state: 'live' | 'deleted'): Promise<EntryRow | null> {
    const key = urls.resolve(url);
    if (key === null) return null;
    const row = await entries.findOwnedByUrl(user.id, key);
    if (row === null || (row.deletedAt !== null) !== (state === 'deleted')) return null;
    return row;
  }

  /** The first of `slug`, `slug-2`, `slug-3`… in the month that no entry has (any user, deleted ones included), and its number. */
  async function probeFree(month: string, base: string): Promise<{ url: string; path: string; number: number }> {
    for (let first = 1; ; first += SLUG_BATCH) {
      const candidates = Array.from({ length: SLUG_BATCH }, (_, index) => ({
        ...urls.entry(month, numberedSlug(base, first + index)),
        number: first + index,
      }));
      const taken = new Set(await entries.takenPaths(candidates.map((candidate) => candidate.path)));
      const free = candidates.find((candidate) => !taken.has(candidate.path));
      if (free !== undefined) return free;
    }
  }

  /**
   * Stores the entry at the next number of its slug series (the month folder
   * and the wanted slug): one indexed max(). When that path is taken anyway —
   * another request won the race, or an entry asked for `hello-2` itself —
   * the next try takes a higher number; after a few, the numbered paths are
   * probed from the start.
   */
  async function insert(entry: NewEntry, user: HostUser): Promise<EntryRow> {
    const now = clock.now().toISOString();
    const published = publishedOf(entry.properties) ?? now;
    const month = urls.monthPath(user, published);
    const base = baseSlug(entry.type, entry.properties);
    const slugSeries = `${month}${base}`;
    let tried = 0;
    for (let attempt = 0; attempt < MAX_INSERT_ATTEMPTS; attempt++) {
      let next: { url: string; path: string; number: number };
      if (attempt < MAX_INSERT_ATTEMPTS - 1) {
        // the first try takes the number after this process's last one in the series without a read; otherwise the
        // number is taken synchronously after the read, so concurrent creates of one slug each get their own
        const number =
          (attempt === 0 ? slugNumbers.takeKnown(slugSeries) : undefined) ??
          slugNumbers.take(slugSeries, await entries.lastSlugNumber(slugSeries), tried + 1);
        next = { ...urls.entry(month, numberedSlug(base, number)), number };
        tried = number;
      } else next = await probeFree(month, base);
      try {
        return await entries.insert({
          id: newEntryId(),
          userId: user.id,
          url: next.url,
          path: next.path,
          type: [...entry.type],
          properties: entry.properties,
          published,
          createdAt: now,
          slugSeries,
          slugNumber: next.number,
        });
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
      }
    }
    throw new Error(`database handler: no free path for "${base}" after ${MAX_INSERT_ATTEMPTS} attempts`);
  }

  return {
    async createEntry(entry: NewEntry, user: HostUser): Promise<MicropubEntry> {
      const row = await insert(entry, user);
      // as the in-memory handler: the caller's own objects go back, nothing added
      return { url: row.url, type: entry.type, properties: entry.properties };
    },

    async getEntry(url: string, user: HostUser): Promise<MicropubEntry | null> {
      const row = await find(url, user, 'live');
      return row === null ? null : toEntry(row);
    },

    async updateEntry(url: string, operations: UpdateOperations, user: HostUser): Promise<MicropubEntry> {
      const row = await find(url, user, 'live');
      if (row === null) throw new HandlerValueError('no such entry');
      const updated = await entries.modify(
        row.id,
        (current) => {
          const properties: MicropubProperties = applyUpdate(current.properties, operations);
          // the URL stays where it is; a new valid `published` moves the entry in the listings only
          return { properties, published: publishedOf(properties) ?? current.published, updatedAt: clock.now().toISOString() };
        },
        row,
      );
      // deleted by another request in the meantime
      if (updated === null) throw new HandlerValueError('no such entry');
      return toEntry(updated);
    },

    async deleteEntry(url: string, user: HostUser): Promise<void> {
      const row = await find(url, user, 'live');
      if (row === null || !(await entries.markDeleted(row.id, clock.now().toISOString()))) throw new HandlerValueError('no such entry');
    },

    async undeleteEntry(url: string, user: HostUser): Promise<MicropubEntry> {
      const row = await find(url, user, 'deleted');
      if (row === null || !(await entries.markUndeleted(row.id, clock.now().toISOString())))
        throw new HandlerValueError('no such deleted entry');
      return toEntry(row);
    },

    async getConfig(user: HostUser): Promise<MicropubConfig> {
      // the categories of the account's latest entries: suggestions, not an index of every post ever;
      // while the database cannot answer, the config itself still can (without suggestions)
      try {
        const { version } = await entries.statsOf(user.id);
        return (
          configs.get(user.id, version) ??
          configs.set(
            user.id,
            version,
            categoriesOf([{ properties: { category: await entries.latestCategories(user.id, CATEGORY_WINDOW) } }]),
          )
        );
      } catch (error) {
        if (isDatabaseUnavailable(error)) return configWithCategories([]);
        throw error;
      }
    },

    async listEntries(user: HostUser, page: PageRequest): Promise<Page<MicropubEntry>> {
      const item = (row: EntryRow): MicropubEntry => ({ url: row.url, ...cloneJson(withUrl(row)) });
      if (page.filter === null) {
        const [rows, total] = await Promise.all([
          entries.listByUser(user.id, { offset: page.offset, limit: page.limit }),
          entries.countByUser(user.id),
        ]);
        return { items: rows.map(item), total };
      }
      // the filter matches the JSON of each item as listed: stored with the entry (searchTextOf), matched in SQL
      const { rows, total } = await entries.listByUserMatching(user.id, page.filter, { offset: page.offset, limit: page.limit });
      return { items: rows.map(item), total };
    },
  };
}
