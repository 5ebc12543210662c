/**
 * The indexes for a filtered `q=source` list, written after the entries
 * (issue 31). SQLite's FTS5 trigram index (migration 0021) cost a create
 * 3–10× its time when written in the create's transaction, PostgreSQL's
 * trigram index (migration 0020) ~40 % of the database's CPU a create
 * (migration 0022); so both take new entries afterwards, by
 * {@link createEntrySearchIndexer}, in small batches while no entries are
 * being created, and a list reads, besides the index's candidates, the
 * entries it has not indexed yet (SQLite: above its mark, or stale;
 * PostgreSQL: `search_pending`) — the same rows a scan would have found, so
 * the index changes how fast a filter is answered, never what it answers.
 * Every candidate is confirmed by the filter's own `like` on the entry's
 * search text.
 * @module
 */
import { sql, type RawBuilder } from 'kysely';
import type SqliteDatabase from 'better-sqlite3';
import type { RawPostgres, RawSqlite } from './raw-access.js';

/**
 * Most candidates the index hands a list: past it (a filter most entries
 * match, or many entries not indexed yet) reading the user's entries in order
 * is cheaper than fetching and sorting each candidate (measured: 45 ms
 * against 220 ms for a filter that 100,000 entries match).
 */
export const MAX_SEARCH_CANDIDATES = 2000;

/** A UTF-16 surrogate not in a pair (a pair is one code point under `u`, never `Cs`). */
const LONE_SURROGATE = /\p{Cs}/u;

/** Most terms of one index query: more only narrow the candidates, which the `like` confirms anyway. */
const MAX_TERMS = 16;

/**
 * The index query for a filter: an AND of its three-character pieces (every
 * third and the last, which cover it), each quoted as FTS5 wants; null when
 * the index cannot answer it — fewer than three characters (a trigram index
 * holds none shorter), or text SQLite would not read as the filter (a NUL, a
 * lone surrogate).
 */
export function trigramQuery(filter: string): string | null {
  const text = filter.toLowerCase();
  if (text.includes('\0') || LONE_SURROGATE.test(text)) return null;
  const chars = Array.from(text);
  if (chars.length < 3) return null;
  const starts: number[] = [];
  for (let start = 0; start + 3 <= chars.length; start += 3) starts.push(start);
  if (starts.at(-1) !== chars.length - 3) starts.push(chars.length - 3);
  const picked = starts.length <= MAX_TERMS ? starts : [...starts.slice(0, MAX_TERMS - 1), chars.length - 3];
  const piece = (start: number) => chars.slice(start, start + 3).join('');
  return picked.map((start) => `"${piece(start).replaceAll('"', '""')}"`).join(' AND ');
}

/**
 * How many candidates the index would hand over for `query`: its own matches
 * (any user's), the stale entries and a bound of the unindexed ones.
 */
export const searchCandidates = (query: string): RawBuilder<{ n: number }> => sql<{ n: number }>`select
  (select count(*) from indieweb_entry_search where indieweb_entry_search match ${query})
  + (select count(*) from indieweb_entry_search_stale)
  + (select coalesce(max(rowid), 0) from indieweb_entry) - (select indexed_through from indieweb_entry_search_state) as n`;

/** The rowids that may match `query`: the index's matches, the stale entries and every entry above the mark. */
export const searchCandidateRowids = (query: string): RawBuilder<unknown> => sql`(
  select rowid from indieweb_entry_search where indieweb_entry_search match ${query}
  union all select entry_rowid from indieweb_entry_search_stale
  union all select rowid from indieweb_entry where rowid > (select indexed_through from indieweb_entry_search_state))`;

/** What one indexing step did: entries (re)indexed, and whether more are waiting. */
export interface IndexStep {
  readonly indexed: number;
  readonly more: boolean;
}

const STATEMENTS = {
  mark: 'select indexed_through from indieweb_entry_search_state where id = 1',
  stale: 'select entry_rowid from indieweb_entry_search_stale order by entry_rowid limit ?',
  forget: 'delete from indieweb_entry_search where rowid = ?',
  indexOne:
    'insert into indieweb_entry_search (rowid, search_text) select rowid, search_text from indieweb_entry where rowid = ? and search_text is not null',
  fresh: 'delete from indieweb_entry_search_stale where entry_rowid = ?',
  next: 'select count(*) as n, max(rowid) as top from (select rowid from indieweb_entry where rowid > ? order by rowid limit ?)',
  top: 'select coalesce(max(rowid), 0) from indieweb_entry',
  staleCount: 'select count(*) from indieweb_entry_search_stale',
  indexRange:
    'insert into indieweb_entry_search (rowid, search_text) select rowid, search_text from indieweb_entry where rowid > ? and rowid <= ? and search_text is not null',
  advance: 'update indieweb_entry_search_state set indexed_through = ? where id = 1',
} as const;

/**
 * Indexes up to `limit` entries in one write transaction: the stale ones
 * first, then the next ones above the mark, whose new mark commits with them.
 * Safe beside other instances on the same file: SQLite has one writer at a
 * time, and each step reads the mark inside its own transaction.
 */
export function indexEntrySearchStep(raw: RawSqlite, limit: number): Promise<IndexStep> {
  return raw.exclusive((database: SqliteDatabase.Database) => {
    if (database.inTransaction) throw new Error('entry search: a transaction is open on the connection');
    const step = database.transaction((): IndexStep => {
      const mark = Number(raw.statement(STATEMENTS.mark).pluck().get() ?? 0);
      const stale = raw.statement(STATEMENTS.stale).pluck().all(limit) as number[];
      for (const rowid of stale) {
        raw.statement(STATEMENTS.forget).run(rowid);
        raw.statement(STATEMENTS.indexOne).run(rowid);
        raw.statement(STATEMENTS.fresh).run(rowid);
      }
      const room = limit - stale.length;
      if (room === 0) return { indexed: stale.length, more: true };
      const next = raw.statement(STATEMENTS.next).get(mark, room) as { n: number; top: number | null };
      if (next.top === null) return { indexed: stale.length, more: false };
      raw.statement(STATEMENTS.indexRange).run(mark, next.top);
      raw.statement(STATEMENTS.advance).run(next.top);
      return { indexed: stale.length + next.n, more: next.n >= room };
    });
    return step.immediate();
  });
}

/** What the indexer works through, on one database. */
export interface SearchIndexWork {
  /** Whether entries wait for the index, and a value that changes whenever entries are written (here or in another instance). */
  probe(): Promise<{ readonly waiting: boolean; readonly writes: string }>;
  /** Indexes up to `limit` waiting entries in one transaction. */
  step(limit: number): Promise<IndexStep>;
}

/**
 * SQLite: the highest entry rowid (it moves with every create) and the stale
 * entries (every change) say what was written; the mark what is indexed.
 */
export function sqliteSearchWork(raw: RawSqlite): SearchIndexWork {
  return {
    probe: () =>
      raw.exclusive(() => {
        const newest = Number(raw.statement(STATEMENTS.top).pluck().get());
        const stale = Number(raw.statement(STATEMENTS.staleCount).pluck().get());
        const mark = Number(raw.statement(STATEMENTS.mark).pluck().get() ?? 0);
        return { waiting: newest > mark || stale > 0, writes: `${newest}:${stale}` };
      }),
    step: (limit) => indexEntrySearchStep(raw, limit),
  };
}

const POSTGRES = {
  /**
   * Whether an entry is pending (the first of their partial index, migration 0022), and the sum of the accounts'
   * entry versions, which migration 0018's triggers raise with every insert, update or delete of an entry — a
   * count of the pending entries instead cost a visit to each of them, every step (100,000 took 83 s to index).
   */
  probe: `select exists (select 1 from indieweb_entry where search_pending) as waiting,
    (select coalesce(sum(version), 0)::text from indieweb_entry_count) as writes`,
  /**
   * One step: the update writes each chosen entry into the trigram index; entries another instance holds are
   * skipped. Chosen in the pending index's order, so the planner reads that index: with stale statistics it scanned
   * the table for pending entries, which grew slower as the step reached entries already indexed (100,000 in 83 s).
   */
  step: `with chosen as (select id from indieweb_entry where search_pending order by user_id, created_at, id limit $1 for update skip locked)
    update indieweb_entry set search_pending = false where id in (select id from chosen)`,
  /**
   * After a large catch-up: the trigram index's pending list merged (the planner prices a scan of the index by it)
   * and the table's statistics taken again — until autovacuum came by, the planner still counted every entry as
   * pending and a filtered list read all of the user's entries (1.3 s under load at 100,000, against 10 ms after).
   */
  settle: [
    `select gin_clean_pending_list(index) from (select to_regclass('indieweb_entry_search_trigram') as index) found where index is not null`,
    'analyze indieweb_entry',
  ],
} as const;

/** Entries taken into the index after which a catch-up ends with {@link POSTGRES.settle}. */
const SETTLE_AFTER = 10_000;

/**
 * PostgreSQL: the pending entries say what waits; the entry versions that
 * entries were written. Several instances index side by side: a step locks
 * the rows it takes and skips those another holds.
 */
export function postgresSearchWork(raw: RawPostgres): SearchIndexWork {
  let unsettled = 0;
  return {
    async probe() {
      const row = (await raw.query<{ waiting: boolean; writes: string }>({ text: POSTGRES.probe })).rows[0];
      return { waiting: row?.waiting === true, writes: row?.writes ?? '' };
    },
    async step(limit) {
      const indexed = (await raw.query({ text: POSTGRES.step, values: [limit] })).rowCount;
      unsettled += indexed;
      const more = indexed >= limit;
      if (!more && unsettled >= SETTLE_AFTER) {
        unsettled = 0;
        for (const text of POSTGRES.settle) await raw.query({ text });
      }
      return { indexed, more };
    },
  };
}

export interface EntrySearchIndexerOptions {
  readonly work: SearchIndexWork;
  /** Reports a step that failed (the database busy or gone); the next tick tries again. */
  readonly onError: (error: unknown) => void;
  /** Entries per step: one write transaction, about 50 µs each on the bench machine (SQLite). */
  readonly batch?: number;
  /** How often it looks whether entries wait, and how long it stays away while entries are being created. */
  readonly tickMs?: number;
  /** The pause between steps while it catches up and nothing else is written. */
  readonly stepMs?: number;
  /** Ticks it lets pass while entries are being created before it indexes one step anyway. */
  readonly patience?: number;
}

export interface EntrySearchIndexer {
  start(): void;
  /** Stops ticking and waits for a step under way. */
  stop(): Promise<void>;
}

/**
 * Keeps the entry search index up with the entries, in the server's
 * idle time: writes come first. A tick in which entries were created or
 * changed (here or in another instance) is left alone, unless `patience` ticks in a row
 * were; otherwise it indexes a step, and the next one soon after while more
 * wait. While it lags, lists read the waiting entries themselves: slower, never
 * wrong.
 */
export function createEntrySearchIndexer(options: EntrySearchIndexerOptions): EntrySearchIndexer {
  const { work, onError } = options;
  const batch = options.batch ?? 200;
  const tickMs = options.tickMs ?? 1000;
  const stepMs = options.stepMs ?? 20;
  const patience = options.patience ?? 10;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = true;
  /** What entries were written as of the last tick: a change since (created or changed, here or elsewhere) means a busy server. */
  let last: string | null = null;
  let skipped = 0;

  const later = (ms: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = tick().finally(() => (running = undefined));
    }, ms);
    timer.unref();
  };

  async function tick(): Promise<void> {
    try {
      const now = await work.probe();
      const busy = last !== null && now.writes !== last;
      last = now.writes;
      // nothing waits: no write transaction just to find that out
      if (!now.waiting) return later(tickMs);
      if (busy && skipped < patience) {
        skipped += 1;
        return later(tickMs);
      }
      skipped = 0;
      const step = await work.step(batch);
      last = (await work.probe()).writes;
      later(step.more ? stepMs : tickMs);
    } catch (error) {
      onError(error);
      // a database that fails (full, gone) is not asked again every second, nor reported so often
      later(tickMs * patience);
    }
  }

  return {
    start() {
      if (!stopped) return;
      stopped = false;
      later(0);
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
