/**
 * The doctor's checks of what this server stands on: the secret shared by
 * instances, the database, media storage (a probe written, read back through
 * its public URL, deleted) and the job queue.
 * @module
 */
import { readFile } from 'node:fs/promises';
import type { Config } from '../../config/config.js';
import type { MediaStorage } from '../../contracts/media-storage.js';
import { randomToken } from '../../core/crypto.js';
import type { Outbound } from '../../outbound/fetch.js';
import type { DatabaseHandle } from '../../storage/connect.js';
import type { JobsRepository } from '../../storage/repositories/jobs.js';
import { ENTRY_SEARCH_INDEX, entriesWaitingForSearch, hasEntrySearchIndex } from '../../storage/search-index.js';
import { fail, pass, warn, type CheckResult } from './check.js';

const why = (error: unknown) => (error instanceof Error ? error.message.split('\n')[0] : String(error));

export function checkSecret(config: Pick<Config, 'database' | 'secret'>): CheckResult {
  if (config.database.kind !== 'postgres')
    return pass(
      'secret',
      config.secret === null ? 'generated once into the data directory (one instance on SQLite)' : 'INDIEWEB_SECRET is set',
    );
  if (config.secret === null) {
    return fail(
      'secret',
      'PostgreSQL means several instances, but INDIEWEB_SECRET is unset: each instance generates its own, and sign-ins break between them',
      'set INDIEWEB_SECRET (openssl rand -base64 48) to the same value on every instance',
    );
  }
  return pass('secret', 'INDIEWEB_SECRET is set for the PostgreSQL deployment');
}

export async function checkDatabase(database: DatabaseHandle): Promise<CheckResult> {
  try {
    await database.ping();
    return pass('database', `${database.dialect} answers`);
  } catch (error) {
    return fail('database', `the database does not answer (${why(error)})`, 'check INDIEWEB_DATABASE_URL and that the database runs');
  }
}

/**
 * The trigram index that answers a filtered `q=source` list. PostgreSQL:
 * migration 0020 leaves it out where the role may not create the `pg_trgm`
 * extension; the list then reads every entry of the user. SQLite: the entry
 * search index of migration 0021. Both are written in the server's idle time
 * (migration 0022 on PostgreSQL); how many entries they have still to index
 * (the list reads those itself meanwhile).
 */
export async function checkSearchIndex(database: Pick<DatabaseHandle, 'db' | 'dialect'>): Promise<CheckResult> {
  const name = 'search-index';
  let found: boolean;
  let waiting = 0;
  try {
    found = await hasEntrySearchIndex(database);
    if (found) waiting = await entriesWaitingForSearch(database);
  } catch (error) {
    return warn(name, `cannot read the database's indexes (${why(error)})`, 'check the database');
  }
  if (database.dialect === 'sqlite')
    return found
      ? pass(
          name,
          `a filtered q=source list is answered from the entry search index (${waiting} ${waiting === 1 ? 'entry waits' : 'entries wait'} to be indexed)`,
        )
      : warn(
          name,
          'no entry search index: a filtered q=source list reads every entry of the user (this SQLite has no FTS5 trigram tokenizer)',
          'the filter still answers, slower; for the index, open the database with a SQLite that has FTS5 with its trigram tokenizer and contentless deletes (3.43 or newer; the bundled better-sqlite3 has both) and run the statements of migration 0021-entry-search-sqlite',
        );
  if (found)
    return pass(
      name,
      `a filtered q=source list is answered from a trigram index (pg_trgm; ${waiting} ${waiting === 1 ? 'entry waits' : 'entries wait'} to be indexed)`,
    );
  return warn(
    name,
    'no trigram index: a filtered q=source list reads every entry of the user (the role could not create the pg_trgm extension when it migrated)',
    `as a superuser or the database's owner: create extension if not exists pg_trgm; create index ${ENTRY_SEARCH_INDEX} on indieweb_entry using gin (search_text gin_trgm_ops) where deleted_at is null and not search_pending;`,
  );
}

/** The local storage can say where a key's file is; S3 is read back at its public URL. */
interface LocalFiles {
  readonly kind: 'local';
  pathOf(key: string): string;
}
const isLocal = (storage: MediaStorage): storage is MediaStorage & LocalFiles =>
  (storage as Partial<LocalFiles>).kind === 'local' && typeof (storage as Partial<LocalFiles>).pathOf === 'function';

/** Writes a probe, reads it back (local: the file; S3: its public URL, as readers fetch it), deletes it. */
export async function checkMediaStorage(storage: MediaStorage, outbound: Outbound): Promise<CheckResult> {
  const name = 'media-storage';
  const key = `indieweb/media/doctor-probe-${randomToken(12)}.txt`;
  const probe = Buffer.from(`indiestack doctor probe ${randomToken(8)}\n`);
  let url: string;
  try {
    url = await storage.save(
      key,
      (async function* () {
        yield probe;
      })(),
      'text/plain',
    );
  } catch (error) {
    return fail(name, `cannot store a file (${why(error)})`, 'check INDIEWEB_MEDIA_DIR is writable, or the S3 settings and bucket');
  }
  let result: CheckResult;
  try {
    if (isLocal(storage)) {
      // served by indiestack only for uploads it has a row for: the file itself is read
      const back = await readFile(storage.pathOf(key));
      result = back.equals(probe)
        ? pass(name, 'a probe file was written, read back and deleted in the media directory')
        : fail(name, 'a probe file reads back different bytes', 'check the disk under INDIEWEB_MEDIA_DIR');
    } else {
      const response = await outbound.fetch(url);
      result =
        response.status === 200 && response.body.equals(probe)
          ? pass(name, `a probe was stored, read back at ${new URL(url).origin} and deleted`)
          : warn(
              name,
              `a probe was stored but ${url} answers ${response.status}`,
              'check that media are served at their public URL (INDIEWEB_S3_PUBLIC_BASE_URL)',
            );
    }
  } catch (error) {
    result = warn(
      name,
      `a probe was stored but cannot be read back at its URL (${why(error)})`,
      'check that media are served at their public URL; a server on this machine needs INDIEWEB_ALLOW_PRIVATE_NETWORKS for the doctor to fetch it',
    );
  }
  try {
    await storage.delete(key);
  } catch (error) {
    return fail(name, `cannot delete a stored file (${why(error)})`, 'give the storage delete permission');
  }
  return result;
}

export async function checkJobQueue(jobs: Pick<JobsRepository, 'queueStats'>, now: Date): Promise<CheckResult> {
  try {
    const { depth, oldestCreatedAt } = await jobs.queueStats();
    const age = oldestCreatedAt === null ? 0 : Math.round((now.getTime() - Date.parse(oldestCreatedAt)) / 1000);
    if (age > 3600)
      return warn(
        'job-queue',
        `${depth} jobs queued, the oldest for ${Math.round(age / 60)} min`,
        'make sure a server runs with its worker (webmentions are verified by it)',
      );
    return pass('job-queue', `${depth} jobs queued${depth > 0 ? `, the oldest for ${age} s` : ''}`);
  } catch (error) {
    return fail('job-queue', `cannot read the job queue (${why(error)})`, 'check the database');
  }
}
