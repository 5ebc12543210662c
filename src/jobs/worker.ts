/**
 * Background jobs from the database: claimed under a lease (so a crashed
 * worker's job is picked up again when the lease runs out), retried with
 * backoff on transient failures, and safe with several instances. The
 * worker knows no job kind: the core makes one worker and each feature
 * registers its kinds (`register(kind, handler)`) before it starts.
 * @module
 */
import type { FastifyBaseLogger } from 'fastify';
import { addSeconds, type Clock } from '../core/clock.js';
import type { JobRecord, JobsRepository } from '../storage/repositories/jobs.js';

export const MAX_ATTEMPTS = 6;

/** The longest pause between polls while the queue cannot be read. */
const MAX_IDLE_POLL_MS = 30_000;

export class RetryLaterError extends Error {
  override readonly name = 'RetryLaterError';
  /** When the other side said when to come back (e.g. `Retry-After`): the next attempt then, instead of the backoff. */
  readonly retryAfterMs: number | null;
  constructor(message: string, options: { cause?: unknown; retryAfterMs?: number | null } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.retryAfterMs = options.retryAfterMs ?? null;
  }
}

/** The longest wait a job takes from the other side's word (`Retry-After`) before its next attempt. */
const MAX_RETRY_AFTER_MS = 6 * 3600_000;

export interface JobHandler {
  /** Does the work; throws {@link RetryLaterError} (or anything) to be retried. */
  run(job: JobRecord): Promise<void>;
  /** After the last attempt failed; `reason` is a {@link RetryLaterError}'s message or a fixed line, never another error's message. */
  giveUp(job: JobRecord, reason: string): Promise<void>;
}

/** Seconds to wait before attempt n+1: 30 s, 1 min, 2 min… capped at an hour. */
export function backoffSeconds(attempts: number): number {
  return Math.min(30 * 2 ** Math.max(0, attempts - 1), 3600);
}

export type JobWorker = ReturnType<typeof createJobWorker>;

export function createJobWorker(deps: {
  jobs: JobsRepository;
  clock: Clock;
  leaseSeconds: number;
  log: Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;
  concurrency?: number;
  pollMs?: number;
}) {
  const { jobs, clock, leaseSeconds, log } = deps;
  const handlers = new Map<string, JobHandler>();
  const concurrency = deps.concurrency ?? 4;
  const pollMs = deps.pollMs ?? 1000;
  let running = false;
  let active = 0;
  let timer: NodeJS.Timeout | null = null;
  const inFlight = new Set<Promise<void>>();
  let idleFailures = 0;

  async function execute(job: JobRecord): Promise<void> {
    const handler = handlers.get(job.kind);
    if (handler === undefined) {
      log.error({ kind: job.kind }, 'job of unknown kind dropped');
      await jobs.complete(job);
      return;
    }
    try {
      await handler.run(job);
      await jobs.complete(job);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      if (!(error instanceof RetryLaterError)) log.error({ err: error, kind: job.kind, ref: job.ref }, 'job failed unexpectedly');
      if (job.attempts >= MAX_ATTEMPTS) {
        // the reason a handler keeps may be shown to clients: a retry's own, else no error's message
        await handler.giveUp(job, error instanceof RetryLaterError ? reason : 'failed unexpectedly');
        await jobs.complete(job);
        log.warn({ kind: job.kind, ref: job.ref, attempts: job.attempts }, 'job given up');
      } else {
        const said = error instanceof RetryLaterError ? error.retryAfterMs : null;
        const next =
          said === null
            ? addSeconds(clock.now(), backoffSeconds(job.attempts))
            : new Date(clock.now().getTime() + Math.min(Math.max(said, 0), MAX_RETRY_AFTER_MS));
        await jobs.reschedule(job, next.toISOString(), reason);
        log.info({ kind: job.kind, ref: job.ref, attempts: job.attempts }, 'job will be retried');
      }
    }
  }

  /** Claims and runs one due job; false when none is due. */
  /** The next due job, leased to this worker for `leaseSeconds`; null when none is due. */
  function claimNext(): Promise<JobRecord | null> {
    const now = clock.now();
    return jobs.claim(now.toISOString(), addSeconds(now, leaseSeconds).toISOString());
  }

  async function runOnce(): Promise<boolean> {
    const job = await claimNext();
    if (job === null) return false;
    await execute(job);
    return true;
  }

  /**
   * Claims due jobs one at a time (so a failing or locked queue costs one
   * wait, not one per slot) and runs up to `concurrency` of them at once;
   * a job that ends claims the next.
   */
  let filling: Promise<void> | null = null;
  function fill(): Promise<void> {
    filling ??= claimAndRun().finally(() => {
      filling = null;
    });
    return filling;
  }

  async function claimAndRun(): Promise<void> {
    try {
      while (running && active < concurrency) {
        const job = await claimNext();
        if (job === null) break;
        active += 1;
        const work: Promise<void> = execute(job)
          .catch((error: unknown) => log.error({ err: error, kind: job.kind, ref: job.ref }, 'job worker error'))
          .finally(() => {
            active -= 1;
            inFlight.delete(work);
            if (running) void fill();
          });
        inFlight.add(work);
      }
      idleFailures = 0;
    } catch (error) {
      idleFailures += 1;
      log.error({ err: error }, 'job worker cannot read the queue');
    }
  }

  function schedule(delay: number): void {
    if (!running) return;
    if (timer !== null) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      // while the queue cannot be read (the database down or locked elsewhere) polls slow down, up to MAX_IDLE_POLL_MS
      void fill().finally(() => schedule(idleFailures === 0 ? pollMs : Math.min(pollMs * 2 ** idleFailures, MAX_IDLE_POLL_MS)));
    }, delay);
    timer.unref();
  }

  return {
    /** Adds a job kind (a feature's, once, before the worker starts); a kind registered twice is a wiring mistake. */
    register(kind: string, handler: JobHandler): void {
      if (handlers.has(kind)) throw new Error(`job kind "${kind}" is registered twice`);
      handlers.set(kind, handler);
    },
    /** The registered job kinds, in the order they were registered. */
    kinds(): readonly string[] {
      return [...handlers.keys()];
    },
    runOnce,
    /** Runs due jobs until none is left (CLI, tests). */
    async drain(): Promise<number> {
      let count = 0;
      while (await runOnce()) count += 1;
      return count;
    },
    start(): void {
      if (running) return;
      running = true;
      schedule(0);
    },
    /** Looks for work now instead of at the next poll. */
    wake(): void {
      schedule(0);
    },
    async stop(): Promise<void> {
      running = false;
      if (timer !== null) clearTimeout(timer);
      timer = null;
      await filling;
      await Promise.all([...inFlight]);
    },
  };
}
