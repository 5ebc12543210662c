/**
 * Entries of the built-in `database` Micropub handler (table
 * `indieweb_entry`): their microformats type and properties as JSON text,
 * their public URL and its path, draft or published and public, unlisted or
 * private (both read from the properties by `core/visibility.ts` on every
 * write, never taken from the caller), the published date, and a tombstone
 * (`deleted_at`) instead of removal. The listings behind the pages
 * ({@link EntriesRepository.listPublished} and its kin) hold exactly the
 * entries `isEntryListed` accepts, filtered in SQL. Every change bumps
 * `version`; {@link EntriesRepository.updateIfVersion} only writes over the
 * version it read, so two instances updating one entry never overwrite each
 * other's change (the caller reads again and retries).
 * @module
 */
import { PostgresAdapter, SqliteAdapter, sql, type Kysely, type RawBuilder } from 'kysely';
import type { MicropubProperties } from '../../contracts/micropub-types.js';
import { stableStringify } from '../../core/stable-json.js';
import { audienceOf, LISTED, type PostStatus, type Visibility } from '../../core/visibility.js';
import { MAX_SEARCH_CANDIDATES, searchCandidateRowids, searchCandidates, trigramQuery } from '../entry-search.js';
import { hasEntrySearchIndex } from '../search-index.js';
import type { Database, EntryTableRow } from '../schema.js';
import { createEntryInserts } from './entry-inserts.js';
import { createEntryUpdates } from './entry-updates.js';
import { createRowsByKey } from './rows-by-key.js';

export type { PostStatus, Visibility } from '../../core/visibility.js';

/** One stored entry. Timestamps are ISO-8601 UTC. */
export interface EntryRow {
  readonly id: string;
  readonly userId: string;
  /** Absolute public URL. */
  readonly url: string;
  /** The URL's path, e.g. `/alice/2026/11/hello/`; unique like the URL. */
  readonly path: string;
  readonly type: string[];
  readonly properties: MicropubProperties;
  /** What `post-status` says (`core/visibility.ts`). */
  readonly postStatus: PostStatus;
  /** What `visibility` says (`core/visibility.ts`). */
  readonly visibility: Visibility;
  readonly published: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** Set while the entry is deleted (a tombstone); null when live. */
  readonly deletedAt: string | null;
  /** 1 when created, one more with every change. */
  readonly version: number;
}

export interface NewEntryRow {
  readonly id: string;
  readonly userId: string;
  readonly url: string;
  readonly path: string;
  readonly type: readonly string[];
  /** Stored as they are; the post status and visibility are read from them. */
  readonly properties: MicropubProperties;
  readonly published: string;
  readonly createdAt: string;
  /**
   * The month folder and wanted slug the path was numbered in, and its number
   * (1 for the plain slug, 2 for `-2`…). Without them they are read from the
   * path (`/a/2026/11/x-3/` → `/a/2026/11/x`, 3).
   */
  readonly slugSeries?: string;
  readonly slugNumber?: number;
}

/** The slug series and number a path looks like it has, for inserts that do not say. */
function seriesOf(path: string): { series: string; number: number } {
  const numbered = /^(.*)-(\d{1,9})\/$/.exec(path);
  if (numbered !== null) return { series: numbered[1]!, number: Number(numbered[2]) };
  return { series: path.replace(/\/$/, ''), number: 1 };
}

/** What an update writes (the post status and visibility are read from the properties); the version is bumped by the repository. */
export interface EntryChanges {
  readonly properties: MicropubProperties;
  readonly published: string;
  readonly updatedAt: string;
}

/** A position in a listing of listed entries: entries strictly older than it come next. */
export interface PublishedCursor {
  readonly published: string;
  readonly id: string;
}

/** Rereads before an update gives up; each conflict means another writer's change landed, so this is only reached under a storm of writes to one entry. */
const MAX_UPDATE_ATTEMPTS = 50;

export type EntriesRepository = ReturnType<typeof createEntriesRepository>;

/** Every column an {@link EntryRow} is made of (not the slug series, not the search text). */
const ENTRY_COLUMNS = [
  'id',
  'user_id',
  'url',
  'path',
  'type',
  'properties',
  'post_status',
  'visibility',
  'published',
  'created_at',
  'updated_at',
  'deleted_at',
  'version',
] as const;

/**
 * What a q=source `filter` matches (SPEC.md "Source, list mode": a
 * case-insensitive substring of the listed item): the list item — the type
 * and the properties, with a `url` property when they have none and a
 * `published` one (the stored date) when they have none — as stable
 * JSON, lower-cased. Stored on every write (migration 0015), so a filtered
 * list is one SQL query instead of reading every entry.
 */
export function searchTextOf(url: string, type: readonly string[], properties: MicropubProperties, published: string): string {
  const listed = {
    ...properties,
    ...(properties.url === undefined ? { url: [url] } : {}),
    ...(properties.published === undefined ? { published: [published] } : {}),
  };
  return stableStringify({ type, properties: listed }).toLowerCase();
}

/** A filter as a LIKE pattern: lower-cased like the column, `%`, `_` and the escape character itself escaped. */
const likePattern = (filter: string) => `%${filter.toLowerCase().replace(/[\\%_]/g, (character) => `\\${character}`)}%`;

/**
 * Whether an entry's search text contains `filter` (see {@link searchTextOf}). PostgreSQL: indexed entries from the
 * trigram index, whose predicate the first arm repeats so the planner may take it; entries not indexed yet (migration
 * 0022) from their own index, each confirmed by the same match. The second arm spells it another way (search_text is
 * never null there): with two equal likes the planner takes the like out of the or, and no index predicate is
 * implied any more.
 */
export function filterMatch(dialect: 'sqlite' | 'postgres', filter: string): RawBuilder<boolean> {
  const pattern = likePattern(filter);
  return dialect === 'sqlite'
    ? sql<boolean>`search_text like ${pattern} escape '\\'`
    : sql<boolean>`((not search_pending and search_text like ${pattern} escape '\\')
        or (search_pending and coalesce(search_text, '') like ${pattern} escape '\\'))`;
}

function toEntry(row: Omit<EntryTableRow, 'slug_series' | 'slug_number' | 'search_text'>): EntryRow {
  return {
    id: row.id,
    userId: row.user_id,
    url: row.url,
    path: row.path,
    type: JSON.parse(row.type) as string[],
    properties: JSON.parse(row.properties) as MicropubProperties,
    // a column value the rule does not know hides the entry, as the rule does
    postStatus: row.post_status === 'published' ? 'published' : 'draft',
    visibility: row.visibility === 'public' || row.visibility === 'unlisted' ? row.visibility : 'private',
    published: row.published,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    deletedAt: row.deleted_at,
    version: Number(row.version),
  };
}

/** The columns the rule reads, as every write stores them: from the properties, never from the caller. */
function audienceColumns(properties: MicropubProperties): { post_status: PostStatus; visibility: Visibility } {
  const audience = audienceOf(properties);
  return { post_status: audience.postStatus, visibility: audience.visibility };
}

export function createEntriesRepository(db: Kysely<Database>) {
  const insertEntry = createEntryInserts(db);
  const updateEntry = createEntryUpdates(db);
  // asked by every request that names an entry, and by every q=config and paged list: one query for a moment's requests
  const entriesByUrl = createRowsByKey<'indieweb_entry', Pick<EntryTableRow, (typeof ENTRY_COLUMNS)[number]>>(db, {
    table: 'indieweb_entry',
    key: 'url',
    columns: ENTRY_COLUMNS,
    order: [],
  });
  const countsByUser = createRowsByKey(db, {
    table: 'indieweb_entry_count',
    key: 'user_id',
    columns: ['user_id', 'live', 'version'],
    order: [],
  });
  const live = () => db.selectFrom('indieweb_entry').where('deleted_at', 'is', null);
  /** A user's listed entries: `isEntryListed` in SQL (published, public, not deleted). */
  const listed = (userId: string) =>
    live().where('user_id', '=', userId).where('post_status', '=', LISTED.postStatus).where('visibility', '=', LISTED.visibility);

  /**
   * Writes `changes` only if the entry is still at `version` (and live),
   * bumping the version. False when another writer got there first (or the
   * entry was deleted meanwhile): read it again and retry.
   */
  async function updateIfVersion(
    id: string,
    version: number,
    changes: EntryChanges,
    current?: Pick<EntryRow, 'url' | 'type'>,
  ): Promise<boolean> {
    // the url and type never change; without them (a caller that has not read the entry) they are read here
    const known =
      current ??
      (await db
        .selectFrom('indieweb_entry')
        .select(['url', 'type'])
        .where('id', '=', id)
        .executeTakeFirst()
        .then((row) => (row === undefined ? undefined : { url: row.url, type: JSON.parse(row.type) as string[] })));
    if (known === undefined) return false;
    const columns = {
      search_text: searchTextOf(known.url, known.type, changes.properties, changes.published),
      properties: JSON.stringify(changes.properties),
      ...audienceColumns(changes.properties),
      published: changes.published,
      updated_at: changes.updatedAt,
    };
    if (updateEntry !== undefined) return updateEntry({ id, version, ...columns });
    const result = await db
      .updateTable('indieweb_entry')
      .set({ ...columns, version: sql<number>`version + 1` })
      .where('id', '=', id)
      .where('version', '=', version)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /**
   * The account's live entries and the version of its entries, which moves
   * with every insert, change or removal of one of them, by any writer
   * (migration 0018's triggers): the same version means the same entries.
   */
  async function statsOf(userId: string): Promise<{ live: number; version: number }> {
    const [row] = await countsByUser([userId]);
    return row === undefined ? { live: 0, version: 0 } : { live: Number(row.live), version: Number(row.version) };
  }

  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;

  /**
   * SQLite, a filter with few candidates: the entries the search index names,
   * each fetched by its rowid (`not indexed`: walking the user's index instead
   * read every entry of the user), confirmed by the filter's `like`.
   */
  async function matchingFromIndex(
    userId: string,
    like: RawBuilder<boolean>,
    query: string,
    page: { offset: number; limit: number | null },
  ): Promise<{ rows: EntryRow[]; total: number }> {
    const where = sql`rowid in ${searchCandidateRowids(query)} and user_id = ${userId} and deleted_at is null and ${like}`;
    const count = await sql<{ n: number }>`select count(*) as n from indieweb_entry not indexed where ${where}`.execute(db);
    const total = Number(count.rows[0]?.n ?? 0);
    if (page.limit === 0 || page.offset >= total) return { rows: [], total };
    const columns = sql.join(ENTRY_COLUMNS.map((column) => sql.ref(column)));
    const limit = page.limit ?? -1;
    const rows = await sql<Omit<EntryTableRow, 'slug_series' | 'slug_number' | 'search_text'>>`select ${columns}
      from indieweb_entry not indexed where ${where}
      order by created_at desc, id desc limit ${limit} offset ${page.offset}`.execute(db);
    return { rows: rows.rows.map(toEntry), total };
  }

  return {
    /**
     * Every string in the `category` arrays of the account's `window` latest
     * live entries (newest created first), once each, as stored (not trimmed):
     * read out of the JSON by the database, so no entry is parsed here (issue
     * 31: parsing the 1,000 latest entries per q=config was its whole cost).
     */
    async latestCategories(userId: string, window: number): Promise<string[]> {
      const latest = sql`select properties from indieweb_entry where user_id = ${userId} and deleted_at is null
        order by created_at desc, id desc limit ${window}`;
      const query = postgres
        ? sql<{ category: string }>`select distinct c.value #>> '{}' as category
            from (select properties::jsonb as p from (${latest}) l) e,
            jsonb_array_elements(case when jsonb_typeof(e.p -> 'category') = 'array' then e.p -> 'category' else '[]'::jsonb end) c
            where jsonb_typeof(c.value) = 'string'`
        : sql<{ category: string }>`select distinct c.value as category
            from (${latest}) e, json_each(e.properties, '$.category') c
            where json_type(e.properties, '$.category') = 'array' and c.type = 'text'`;
      return (await query.execute(db)).rows.map((row) => row.category);
    },

    /** Stores a new entry at version 1, committed before the promise settles. A taken URL or path throws a unique violation (see `isUniqueViolation`). */
    async insert(entry: NewEntryRow): Promise<EntryRow> {
      const values = {
        id: entry.id,
        user_id: entry.userId,
        url: entry.url,
        path: entry.path,
        type: JSON.stringify(entry.type),
        properties: JSON.stringify(entry.properties),
        ...audienceColumns(entry.properties),
        published: entry.published,
        created_at: entry.createdAt,
        updated_at: entry.createdAt,
        deleted_at: null,
        version: 1,
      };
      // committed together with the other inserts of this turn of the event loop (entry-inserts.ts)
      await insertEntry({
        ...values,
        slug_series: entry.slugSeries ?? seriesOf(entry.path).series,
        slug_number: entry.slugNumber ?? seriesOf(entry.path).number,
        search_text: searchTextOf(entry.url, entry.type, entry.properties, entry.published),
      });
      return toEntry(values);
    },

    /** The entry at this URL path, whoever owns it, deleted and drafts included: the caller decides what to show. */
    async findByPath(path: string): Promise<EntryRow | null> {
      const row = await db.selectFrom('indieweb_entry').select(ENTRY_COLUMNS).where('path', '=', path).executeTakeFirst();
      return row === undefined ? null : toEntry(row);
    },

    /**
     * The entry at this absolute URL if `userId` owns it (deleted included); another user's is null, like an unknown
     * URL. Every Micropub update, delete, undelete and `q=source&url=` asks this: looked up together (rows-by-key.ts).
     */
    async findOwnedByUrl(userId: string, url: string): Promise<EntryRow | null> {
      const row = (await entriesByUrl([url])).find((found) => found.user_id === userId);
      return row === undefined ? null : toEntry(row);
    },

    /** The highest number given in a slug series (0 when none): the next entry of the series takes one more. */
    async lastSlugNumber(series: string): Promise<number> {
      const row = await db
        .selectFrom('indieweb_entry')
        .select((eb) => eb.fn.max('slug_number').as('n'))
        .where('slug_series', '=', series)
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },

    /** Which of these paths are taken (any user, deleted entries included): what a new entry's path must avoid. One lookup in the unique index per path. */
    async takenPaths(paths: readonly string[]): Promise<string[]> {
      if (paths.length === 0) return [];
      const rows = await db
        .selectFrom('indieweb_entry')
        .select('path')
        .where('path', 'in', [...paths])
        .execute();
      return rows.map((row) => row.path);
    },

    updateIfVersion,

    async findById(id: string): Promise<EntryRow | null> {
      const row = await db.selectFrom('indieweb_entry').select(ENTRY_COLUMNS).where('id', '=', id).executeTakeFirst();
      return row === undefined ? null : toEntry(row);
    },

    /**
     * Read-modify-write with the optimistic version check: reads the live
     * entry, computes its changes from what was read, writes them over that
     * version; when another writer changed the entry in between, reads again
     * and recomputes, so no change is lost. Null when the entry is not live
     * (any more). `compute` may throw to abandon the update. `read`: the
     * live entry as the caller has just read it, which the first attempt
     * starts from instead of reading it again (the version check makes a
     * stale one cost only a second attempt).
     */
    async modify(
      id: string,
      compute: (current: EntryRow) => EntryChanges | Promise<EntryChanges>,
      read?: EntryRow,
    ): Promise<EntryRow | null> {
      for (let attempt = 0; attempt < MAX_UPDATE_ATTEMPTS; attempt++) {
        let current: EntryRow;
        if (attempt === 0 && read !== undefined && read.id === id && read.deletedAt === null) current = read;
        else {
          const row = await db
            .selectFrom('indieweb_entry')
            .select(ENTRY_COLUMNS)
            .where('id', '=', id)
            .where('deleted_at', 'is', null)
            .executeTakeFirst();
          if (row === undefined) return null;
          current = toEntry(row);
        }
        const changes = await compute(current);
        if (await updateIfVersion(id, current.version, changes, current)) {
          return { ...current, ...changes, ...audienceOf(changes.properties), version: current.version + 1 };
        }
      }
      throw new Error(`entry ${id}: still changed by other writers after ${MAX_UPDATE_ATTEMPTS} attempts`);
    },

    /** Leaves a tombstone; false when the entry was not live. */
    async markDeleted(id: string, at: string): Promise<boolean> {
      const result = await db
        .updateTable('indieweb_entry')
        .set({ deleted_at: at, updated_at: at, version: sql<number>`version + 1` })
        .where('id', '=', id)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    /** Brings a deleted entry back; false when it was not deleted. */
    async markUndeleted(id: string, at: string): Promise<boolean> {
      const result = await db
        .updateTable('indieweb_entry')
        .set({ deleted_at: null, updated_at: at, version: sql<number>`version + 1` })
        .where('id', '=', id)
        .where('deleted_at', 'is not', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    /** A user's live entries (drafts included), newest created first; `limit` null means all. */
    async listByUser(userId: string, page: { offset: number; limit: number | null }): Promise<EntryRow[]> {
      let query = live().select(ENTRY_COLUMNS).where('user_id', '=', userId).orderBy('created_at', 'desc').orderBy('id', 'desc');
      if (page.limit !== null) query = query.limit(page.limit);
      if (page.offset > 0)
        query = page.limit === null ? query.limit(Number.MAX_SAFE_INTEGER).offset(page.offset) : query.offset(page.offset);
      const rows = await query.execute();
      return rows.map(toEntry);
    },

    /** How many live entries (drafts included) the user has: kept per account by migration 0018's triggers, one lookup. */
    async countByUser(userId: string): Promise<number> {
      return (await statsOf(userId)).live;
    },

    statsOf,

    /**
     * A user's live entries whose list item contains `filter` (case-insensitive,
     * see {@link searchTextOf}), newest created first, and how many there are.
     * PostgreSQL: the match in SQL, from its trigram index (migration 0020)
     * when the planner takes it, and the entries it has not taken yet
     * (migration 0022) from their own index. SQLite: from the entry search index
     * (migration 0021, `storage/entry-search.ts`) when the filter has a
     * trigram and few candidates, else one range of the (user, created) index.
     */
    async listByUserMatching(
      userId: string,
      filter: string,
      page: { offset: number; limit: number | null },
    ): Promise<{ rows: EntryRow[]; total: number }> {
      const like = filterMatch(sqlite ? 'sqlite' : 'postgres', filter);
      const query = sqlite && (await hasEntrySearchIndex({ db, dialect: 'sqlite' })) ? trigramQuery(filter) : null;
      if (query !== null && Number((await searchCandidates(query).execute(db)).rows[0]?.n ?? Infinity) <= MAX_SEARCH_CANDIDATES)
        return matchingFromIndex(userId, like, query, page);
      const matching = () => live().where('user_id', '=', userId).where(like);
      let rowsQuery = matching().select(ENTRY_COLUMNS).orderBy('created_at', 'desc').orderBy('id', 'desc');
      if (page.limit !== null) rowsQuery = rowsQuery.limit(page.limit);
      if (page.offset > 0)
        rowsQuery = page.limit === null ? rowsQuery.limit(Number.MAX_SAFE_INTEGER).offset(page.offset) : rowsQuery.offset(page.offset);
      // the count first: a page past the matches (a filter nothing matches, above all) is not read at all — on SQLite
      // the count's scan was a fifth of the page's, which walks the index backwards fetching every row (issue 31)
      const count = await matching()
        .select((eb) => eb.fn.countAll<string | number>().as('n'))
        .executeTakeFirstOrThrow();
      const total = Number(count.n);
      const rows = page.limit === 0 || page.offset >= total ? [] : await rowsQuery.execute();
      return { rows: rows.map(toEntry), total };
    },

    /** A user's listed entries (published and public: no drafts, no unlisted or private ones, no deleted ones), newest first by (published, id); `before` continues after a page. */
    async listPublished(userId: string, page: { limit: number; before?: PublishedCursor }): Promise<EntryRow[]> {
      let query = listed(userId).select(ENTRY_COLUMNS);
      const before = page.before;
      if (before !== undefined) {
        query = query.where((eb) =>
          eb.or([eb('published', '<', before.published), eb.and([eb('published', '=', before.published), eb('id', '<', before.id)])]),
        );
      }
      const rows = await query.orderBy('published', 'desc').orderBy('id', 'desc').limit(page.limit).execute();
      return rows.map(toEntry);
    },

    /** The page of listed entries just newer than `after` (the page before it), still newest first: a feed's previous page. */
    async listPublishedAfter(userId: string, page: { limit: number; after: PublishedCursor }): Promise<EntryRow[]> {
      const { after } = page;
      const rows = await listed(userId)
        .select(ENTRY_COLUMNS)
        .where((eb) =>
          eb.or([eb('published', '>', after.published), eb.and([eb('published', '=', after.published), eb('id', '>', after.id)])]),
        )
        .orderBy('published', 'asc')
        .orderBy('id', 'asc')
        .limit(page.limit)
        .execute();
      return rows.map(toEntry).reverse();
    },

    /** How many entries {@link listPublished} pages through: the count the triggers keep (migration 0019), one lookup. */
    async countPublished(userId: string): Promise<number> {
      const row = await db.selectFrom('indieweb_entry_count').select('listed').where('user_id', '=', userId).executeTakeFirst();
      return row === undefined ? 0 : Number(row.listed);
    },
  };
}
