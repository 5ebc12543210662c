import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../connect.js';
import type { Database, JobRow } from '../schema.js';

/** A durable unit of background work, claimed under a lease. */
export interface JobRecord {
  readonly id: string;
  readonly kind: string;
  /** What the job is about, e.g. a webmention id. One pending job per (kind, ref). */
  readonly ref: string;
  readonly runAt: string;
  /** Claims so far, this one included. */
  readonly attempts: number;
  readonly lockedUntil: string | null;
  readonly lastError: string | null;
}

export type JobsRepository = ReturnType<typeof createJobsRepository>;

function toJob(row: JobRow): JobRecord {
  return {
    id: row.id,
    kind: row.kind,
    ref: row.ref,
    runAt: row.run_at,
    attempts: Number(row.attempts),
    lockedUntil: row.locked_until,
    lastError: row.last_error,
  };
}

export function createJobsRepository(db: Kysely<Database>, dialect: DialectName) {
  return {
    /** Queues work for `ref`, due at `runAt` (default: now); an existing job for it is made due then, its attempts reset. */
    async enqueue(job: { id: string; kind: string; ref: string; now: string; runAt?: string }): Promise<void> {
      const runAt = job.runAt ?? job.now;
      await db
        .insertInto('indieweb_job')
        .values({ id: job.id, kind: job.kind, ref: job.ref, run_at: runAt, attempts: 0, created_at: job.now })
        .onConflict((oc) => oc.columns(['kind', 'ref']).doUpdateSet({ run_at: runAt, attempts: 0, last_error: null }))
        .execute();
    },

    /**
     * Takes the next due job that nobody holds a live lease on, and leases it
     * until `leaseUntil`. Safe with several instances: PostgreSQL skips rows
     * another transaction has locked, SQLite serialises writers.
     */
    async claim(now: string, leaseUntil: string): Promise<JobRecord | null> {
      const lock = dialect === 'postgres' ? sql`for update skip locked` : sql``;
      const result = await sql<JobRow>`
        update indieweb_job set locked_until = ${leaseUntil}, attempts = attempts + 1
        where id = (
          select id from indieweb_job
          where run_at <= ${now} and (locked_until is null or locked_until <= ${now})
          order by run_at, id
          limit 1 ${lock}
        )
        returning *`.execute(db);
      const row = result.rows[0];
      return row === undefined ? null : toJob(row);
    },

    /** Done: the job goes away, unless it was re-queued while it ran. */
    async complete(job: JobRecord): Promise<void> {
      await db.deleteFrom('indieweb_job').where('id', '=', job.id).where('run_at', '=', job.runAt).execute();
      await db.updateTable('indieweb_job').set({ locked_until: null }).where('id', '=', job.id).execute();
    },

    /** Not now: try again at `runAt`. */
    async reschedule(job: JobRecord, runAt: string, error: string): Promise<void> {
      await db
        .updateTable('indieweb_job')
        .set({ run_at: runAt, locked_until: null, last_error: error.slice(0, 1000) })
        .where('id', '=', job.id)
        .execute();
    },

    async count(): Promise<number> {
      const row = await db
        .selectFrom('indieweb_job')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },

    /** Jobs waiting (due or not, leased or not) and when the oldest of them was queued; for the metrics. */
    async queueStats(): Promise<{ depth: number; oldestCreatedAt: string | null }> {
      const row = await db
        .selectFrom('indieweb_job')
        .select((eb) => [eb.fn.countAll<number | string>().as('n'), eb.fn.min('created_at').as('oldest')])
        .executeTakeFirst();
      return { depth: Number(row?.n ?? 0), oldestCreatedAt: (row?.oldest as string | null | undefined) ?? null };
    },

    async findByRef(kind: string, ref: string): Promise<JobRecord | null> {
      const row = await db.selectFrom('indieweb_job').selectAll().where('kind', '=', kind).where('ref', '=', ref).executeTakeFirst();
      return row === undefined ? null : toJob(row);
    },
  };
}
