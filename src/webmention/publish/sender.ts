/**
 * Sending webmentions on publish: after Micropub created, updated, deleted or
 * undeleted an entry, one durable job per (entry, target) pair for every page
 * the entry links to, and, on an update or a delete, for every page it linked
 * to before and no longer does (the Webmention spec's recommendation, so the
 * receiver can update or remove its copy). Each attempt discovers the
 * target's endpoint afresh; timeouts, 5xx, 408 and 429 are retried with the
 * job queue's backoff. Under `deploy` the jobs wait for the site to be live:
 * the deploy signal (or the configured delay) releases them.
 * @see https://www.w3.org/TR/webmention/#sending-webmentions-for-updated-posts
 * @module
 */
import type { WebmentionSendMode } from '../../config/config.js';
import { addSeconds, type Clock } from '../../core/clock.js';
import { randomId } from '../../core/crypto.js';
import type { EntryPublished } from '../../content/published.js';
import type { Outbound } from '../../outbound/fetch.js';
import type { JobRecord } from '../../storage/repositories/jobs.js';
import type { OutgoingMention, WebmentionOutgoingRepository } from '../../storage/repositories/webmention-outgoing.js';
import type { OutgoingTransactor } from '../../storage/stores.js';
import { attemptWebmention } from '../send.js';
import { RetryLaterError, type JobHandler } from '../../jobs/worker.js';
import { linkTargets } from './targets.js';

export const SEND_JOB = 'webmention.send';

/** What `auto` means for a handler: the database handler's pages are live at once, a static site's after its build. */
export type HandlerKind = 'memory' | 'database' | 'files' | 'own';
export type ResolvedSendMode = 'off' | 'on' | 'deploy';

export function resolveSendMode(setting: WebmentionSendMode, handler: HandlerKind): ResolvedSendMode {
  if (setting !== 'auto') return setting;
  if (handler === 'database') return 'on';
  if (handler === 'files') return 'deploy';
  // the in-memory handler's entries are served nowhere; a host's own handler: the host knows when its pages are live
  return 'off';
}

export type PublishSender = ReturnType<typeof createPublishSender>;

interface Planned {
  readonly source: string;
  readonly target: string;
  readonly linked: boolean;
}

/** What to send after an operation: the entry's targets now, and the pairs that were linked before and are not any more. */
export function planSends(event: Pick<EntryPublished, 'action' | 'entry'>, before: readonly OutgoingMention[]): Planned[] {
  const source = event.action === 'delete' || event.entry === null ? null : event.entry.url;
  const current = source === null ? [] : linkTargets(event.entry!);
  const plan: Planned[] = current.map((target) => ({ source: source!, target, linked: true }));
  const now = new Set(current.map((target) => `${source} ${target}`));
  for (const row of before) {
    if (row.linked && !now.has(`${row.source} ${row.target}`)) plan.push({ source: row.source, target: row.target, linked: false });
  }
  return plan;
}

export function createPublishSender(deps: {
  outgoing: WebmentionOutgoingRepository;
  transact: OutgoingTransactor;
  outbound: Outbound;
  clock: Clock;
  mode: 'on' | 'deploy';
  /** Under `deploy`: seconds after which waiting sends go anyway; null: only the deploy signal releases them. */
  delaySeconds: number | null;
  /** Called after jobs were queued, to start them soon. */
  onEnqueued?: () => void;
}) {
  const { outgoing, transact, outbound, clock } = deps;
  const now = () => clock.now().toISOString();

  const job: JobHandler = {
    async run(record: JobRecord) {
      const row = await outgoing.findById(record.ref);
      if (row === null) return;
      await outgoing.markAttempt(row.id, record.attempts, now());
      const { result, retry } = await attemptWebmention(outbound, row.source, row.target);
      const outcome = { endpoint: result.endpoint ?? null, httpStatus: result.httpStatus ?? null, now: now() };
      if (retry) {
        await outgoing.recordOutcome(row.id, { ...outcome, status: 'queued', error: `${result.error ?? 'failed'} (will retry)` });
        throw new RetryLaterError(result.error ?? 'failed');
      }
      await outgoing.recordOutcome(row.id, { ...outcome, status: result.status, error: result.error ?? null });
    },
    async giveUp(record: JobRecord, reason: string) {
      const row = await outgoing.findById(record.ref);
      if (row !== null)
        await outgoing.recordOutcome(row.id, {
          status: 'failed',
          endpoint: row.endpoint,
          httpStatus: row.httpStatus,
          error: `gave up: ${reason}`,
          now: now(),
        });
    },
  };

  return {
    job,
    mode: deps.mode,

    /** Plans and queues the sends of one Micropub operation (in one transaction); returns how many. */
    async published(event: EntryPublished): Promise<number> {
      const sources = [...new Set([...(event.entry === null ? [] : [event.entry.url]), ...event.urls])];
      // asked together with the other operations answered at the same moment (one query for them all)
      const before = await outgoing.listBySources(sources);
      const plan = planSends(event, before);
      if (plan.length === 0) return 0;
      const at = now();
      const waiting = deps.mode === 'deploy';
      const later = waiting && deps.delaySeconds !== null ? addSeconds(clock.now(), deps.delaySeconds).toISOString() : null;
      await transact(async (store) => {
        for (const send of plan) {
          const id = await store.outgoing.upsert({ id: randomId(18), userId: event.user.id, ...send, awaitingDeploy: waiting, now: at });
          if (!waiting) await store.jobs.enqueue({ id: randomId(), kind: SEND_JOB, ref: id, now: at });
          else if (later !== null) await store.jobs.enqueue({ id: randomId(), kind: SEND_JOB, ref: id, now: at, runAt: later });
        }
      });
      if (!waiting || later !== null) deps.onEnqueued?.();
      return plan.length;
    },

    /** The deploy signal: the account's site is live, its waiting sends are due now; returns how many were released. */
    async deployed(userId: string): Promise<number> {
      const at = now();
      const released = await transact(async (store) => {
        const ids = await store.outgoing.releaseWaiting(userId, at);
        for (const id of ids) await store.jobs.enqueue({ id: randomId(), kind: SEND_JOB, ref: id, now: at });
        return ids.length;
      });
      if (released > 0) deps.onEnqueued?.();
      return released;
    },

    /** An account's sends and their outcomes, newest first. */
    list: (userId: string, page: { limit: number; offset: number }) => outgoing.listByUser(userId, page),
  };
}
