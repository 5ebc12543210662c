/**
 * Receiving webmentions: the submission rules, the record, the job that
 * verifies it, moderation, and the read side.
 * @see SPEC.md "Webmention endpoints", "Webmention" record
 * @module
 */
import type { WebmentionLimits } from '../config/config.js';
import type { HostUser } from '../contracts/accounts.js';
import type { Clock } from '../core/clock.js';
import { randomId } from '../core/crypto.js';
import { forClient, InvalidRequestError, NotFoundError, TooManyRequestsError } from '../core/errors.js';
import { requireMention as findMention } from './require-mention.js';
import { createFixedWindowLimiter, type FixedWindowLimiter } from '../core/fixed-window-limiter.js';
import { clientAddressKey } from '../outbound/address-guard.js';
import type { JobRecord, JobsRepository } from '../storage/repositories/jobs.js';
import type {
  ParsedMention,
  WebmentionApproval,
  WebmentionRecord,
  WebmentionStatus,
  WebmentionsRepository,
} from '../storage/repositories/webmentions.js';
import { canonicalUrl } from './canonical-url.js';
import { capMention } from './cap-mention.js';
import { bareHost } from './host.js';
import type { WebmentionEvents } from './events.js';
import type { ModerationDecision } from './moderation.js';
import type { WebmentionOwnership } from './ownership.js';
import { TransientProcessingError, type ProcessOutcome, type WebmentionProcessor } from './process.js';
import { RetryLaterError, type JobHandler } from '../jobs/worker.js';

export const VERIFY_JOB = 'webmention.verify';
export const MAX_URL_LENGTH = 2048;

function parseMentionUrl(name: string, value: string | undefined): URL {
  if (value === undefined || value === '') throw new InvalidRequestError(forClient(`${name} is required`));
  if (value.length > MAX_URL_LENGTH || /[\u0000-\u0020\u007f]/.test(value))
    throw new InvalidRequestError(forClient(`${name} is not a valid URL`));
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidRequestError(forClient(`${name} is not a URL`));
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '' || url.username !== '' || url.password !== '') {
    throw new InvalidRequestError(forClient(`${name} must be an http(s) URL`));
  }
  return url;
}

/** The window of the submission rate limits. */
export const RATE_WINDOW_SECONDS = 60;
/** What a sender refused for a full pending queue is told to wait: roughly what a worker needs to get through a batch. */
export const PENDING_RETRY_AFTER_SECONDS = 60;

const NO_LIMITS: WebmentionLimits = Object.freeze({ maxPendingPerHost: null, perClientPerMinute: null, perSourceHostPerMinute: null });

/** Admin list pages: newest first, this many at a time. */
export const OWNED_PAGE_SIZE = 50;

export type WebmentionService = ReturnType<typeof createWebmentionService>;

export function createWebmentionService(deps: {
  webmentions: WebmentionsRepository;
  jobs: JobsRepository;
  processor: WebmentionProcessor;
  events: WebmentionEvents;
  clock: Clock;
  baseUrl: string;
  /** Hosts whose pages may be mentioned (host names, `www.` ignored). */
  ownHosts: () => Promise<ReadonlySet<string>>;
  /** Whose a mention is (see ownership.ts). */
  ownership: WebmentionOwnership;
  /** @defaultValue no limits */
  limits?: WebmentionLimits;
  /**
   * Runs the record's upsert and its job's enqueue in one transaction, so a
   * mention is never stored without the job that checks it.
   * @defaultValue the two repositories above, without a transaction
   */
  transact?: <T>(work: (repositories: { webmentions: WebmentionsRepository; jobs: JobsRepository }) => Promise<T>) => Promise<T>;
  /** Called after a job is queued, to start it soon. */
  onEnqueued?: () => void;
  onListenerError?: (error: unknown) => void;
  /**
   * Block and allow lists and the moderation policy (moderation-service.ts).
   * @defaultValue every mention admitted and approved
   */
  moderate?: (source: URL, ownerId: string | null) => Promise<ModerationDecision>;
  /** After a mention was fetched and checked (not after a transient failure): its record before and after (webhooks). */
  onProcessed?: (before: WebmentionRecord, after: WebmentionRecord) => Promise<void>;
}) {
  const { webmentions, jobs, processor, events, clock, baseUrl, ownership } = deps;
  const limits = deps.limits ?? NO_LIMITS;
  const transact = deps.transact ?? ((work) => work({ webmentions, jobs }));
  const now = () => clock.now().toISOString();
  const statusUrl = (id: string) => `${baseUrl}/indieweb/webmention/${id}`;
  /** Tells the `webmention_received` listeners; a listener's error is reported, never the caller's. */
  const announce = (record: { id: string; source: string; target: string }, isNew: boolean, receivedAt: string) => {
    try {
      events.emit('webmention_received', {
        id: record.id,
        source: record.source,
        target: record.target,
        statusUrl: statusUrl(record.id),
        isNew,
        receivedAt,
      });
    } catch (error) {
      deps.onListenerError?.(error);
    }
  };
  const limiter = (perMinute: number | null): FixedWindowLimiter | null =>
    perMinute === null ? null : createFixedWindowLimiter({ limit: perMinute, windowSeconds: RATE_WINDOW_SECONDS, clock });
  const perClient = limiter(limits.perClientPerMinute);
  const perSourceHost = limiter(limits.perSourceHostPerMinute);

  function throttle(counter: FixedWindowLimiter | null, key: string, reason: string): void {
    const decision = counter?.take(key);
    if (decision !== undefined && !decision.allowed) throw new TooManyRequestsError(forClient(reason), decision.retryAfterSeconds);
  }

  const requireMention = (id: string): Promise<WebmentionRecord> => findMention(webmentions, id);

  async function afterProcessing(before: WebmentionRecord): Promise<void> {
    if (deps.onProcessed === undefined) return;
    const after = await webmentions.findById(before.id);
    if (after !== null) await deps.onProcessed(before, after);
  }

  const verifyJob: JobHandler = {
    async run(job: JobRecord) {
      const record = await webmentions.findById(job.ref);
      if (record === null || record.status === 'spam') return;
      try {
        await processor.process(record);
        await afterProcessing(record);
      } catch (error) {
        if (!(error instanceof TransientProcessingError)) throw error;
        // spec: a processing failure makes the mention failed (verified_at cleared) at once; the retry may verify it again
        await webmentions.markStatus(record.id, 'failed', `${error.message} (will retry)`, now());
        throw new RetryLaterError(error.message, { cause: error });
      }
    },
    async giveUp(job: JobRecord, reason: string) {
      await webmentions.markStatus(job.ref, 'failed', `gave up: ${reason}`, now());
    },
  };

  return {
    statusUrl,
    verifyJob,

    /**
     * Accepts a submission: 400 for malformed or non-http(s) URLs, a source
     * equal to the target, or a target that is not ours; 429 over a rate
     * limit or when the target host's pending mentions are at their cap
     * (nothing stored, nothing queued). The same pair again updates the one
     * record, its owner decided afresh. Verification happens later, in a job.
     */
    async receive(
      sourceValue: string | undefined,
      targetValue: string | undefined,
      options: { clientAddress?: string } = {},
    ): Promise<{ record: WebmentionRecord; created: boolean; statusUrl: string }> {
      // counted before anything is read, so malformed floods count too
      if (options.clientAddress !== undefined)
        throttle(perClient, clientAddressKey(options.clientAddress), 'too many webmentions from this address');
      const source = parseMentionUrl('source', sourceValue);
      const target = parseMentionUrl('target', targetValue);
      const targetKey = canonicalUrl(target.href)!;
      if (canonicalUrl(source.href) === targetKey) throw new InvalidRequestError(forClient('source and target are the same'));
      const targetHost = bareHost(target.hostname);
      if (!(await deps.ownHosts()).has(targetHost)) throw new InvalidRequestError(forClient('target is not on this site'));
      throttle(perSourceHost, bareHost(source.hostname), 'too many webmentions from this source site');
      if (limits.maxPendingPerHost !== null && (await webmentions.countPending(targetHost, VERIFY_JOB)) >= limits.maxPendingPerHost) {
        throw new TooManyRequestsError(
          forClient('too many webmentions of this site are waiting to be checked'),
          PENDING_RETRY_AFTER_SECONDS,
        );
      }

      const ownerId = await ownership.ownerOf(target.href);
      const decision: ModerationDecision =
        deps.moderate === undefined ? { kind: 'admit', approval: 'approved' } : await deps.moderate(source, ownerId);
      const at = now();
      const { record, created } = await transact(async (store) => {
        const approval = decision.kind === 'admit' ? decision.approval : 'approved';
        const stored = await store.webmentions.upsert({
          id: randomId(18),
          source: sourceValue!,
          target: targetValue!,
          targetKey,
          targetHost,
          ownerId,
          now: at,
          approval,
        });
        if (decision.kind === 'blocked') {
          // a blocked source is never fetched: recorded as spam, no job
          await store.webmentions.markStatus(stored.record.id, 'spam', 'the source is blocked', at);
          return { record: { ...stored.record, status: 'spam' as const }, created: stored.created };
        }
        if (stored.record.status !== 'spam') await store.jobs.enqueue({ id: randomId(), kind: VERIFY_JOB, ref: stored.record.id, now: at });
        return stored;
      });
      if (record.status !== 'spam') deps.onEnqueued?.();
      announce(record, created, at);
      return { record, created, statusUrl: statusUrl(record.id) };
    },

    /**
     * A response that came from a silo's API (backfeed, issue 34), stored as verified without fetching its source:
     * the API is the evidence that it responds to the copy of the target. It goes through the same door as a
     * received mention: the target must be ours and gets its owner, moderation decides on the author's URL (a
     * domain rule matches the author's instance, a URL prefix the account), every field is capped and sanitized
     * (capMention), the webhooks and `webmention_received` follow. The same source and target again store nothing
     * new (`changed: false`); one the owner marked spam or rejected stays so; one withdrawn before comes back.
     */
    async receiveVerified(input: {
      source: string;
      target: string;
      origin: string;
      mention: ParsedMention;
    }): Promise<{ record: WebmentionRecord; created: boolean; changed: boolean }> {
      const source = parseMentionUrl('source', input.source);
      const target = parseMentionUrl('target', input.target);
      const targetKey = canonicalUrl(target.href)!;
      const targetHost = bareHost(target.hostname);
      if (!(await deps.ownHosts()).has(targetHost)) throw new InvalidRequestError(forClient('target is not on this site'));
      const ownerId = await ownership.ownerOf(target.href);
      let judged = source;
      try {
        if (input.mention.author?.url != null) judged = new URL(input.mention.author.url);
      } catch {
        // the author's URL is not one: the source is judged
      }
      const decision: ModerationDecision =
        deps.moderate === undefined ? { kind: 'admit', approval: 'approved' } : await deps.moderate(judged, ownerId);
      const at = now();
      const capped = capMention({ ...input.mention, author: input.mention.author });
      const outcome = await transact(async (store) => {
        const stored = await store.webmentions.upsert({
          id: randomId(18),
          source: input.source,
          target: input.target,
          targetKey,
          targetHost,
          ownerId,
          now: at,
          approval: decision.kind === 'admit' ? decision.approval : 'approved',
          origin: input.origin,
        });
        const before = stored.record;
        if (!stored.created && (before.status === 'verified' || before.status === 'spam' || before.approval === 'rejected'))
          return { before, created: false, changed: false };
        if (decision.kind === 'blocked') {
          await store.webmentions.markStatus(before.id, 'spam', 'the author is blocked', at);
          return { before, created: stored.created, changed: true };
        }
        await store.webmentions.markVerified(before.id, capped, at);
        return { before, created: stored.created, changed: true };
      });
      const record = (await webmentions.findById(outcome.before.id)) ?? outcome.before;
      if (outcome.changed) {
        if (deps.onProcessed !== undefined) await deps.onProcessed(outcome.before, record);
        announce(record, outcome.created, at);
      }
      return { record, created: outcome.created, changed: outcome.changed };
    },

    /**
     * A backfed response the silo no longer has (unliked, deleted): made failed with `reason`, as a mention whose
     * source went away is (410), so it leaves the entry page and the APIs and a public one sends the `deleted`
     * webhook. False when there is no such mention or it was not verified.
     */
    async withdrawVerified(id: string, reason: string): Promise<boolean> {
      const before = await webmentions.findById(id);
      if (before === null || before.status !== 'verified') return false;
      await webmentions.markStatus(id, 'failed', reason, now());
      await afterProcessing(before);
      return true;
    },

    async get(id: string): Promise<WebmentionRecord> {
      return requireMention(id);
    },

    /** A mention of the user's; another user's or nobody's is "not found", exactly like an unknown id. */
    async getOwned(user: HostUser, id: string): Promise<WebmentionRecord> {
      const record = await requireMention(id);
      if (!ownership.owns(user, record)) throw new NotFoundError(`no webmention ${id} of this user`);
      return record;
    },

    /** The user's mentions, newest first, filtered and paged in the database. */
    listOwned(user: HostUser, filter: { status?: WebmentionStatus; target?: string; offset?: number; approval?: WebmentionApproval } = {}) {
      const targetKey = filter.target === undefined ? undefined : (canonicalUrl(filter.target) ?? filter.target);
      return webmentions.list({
        ownerId: user.id,
        ...(filter.approval === undefined ? {} : { approval: filter.approval }),
        ...(filter.status === undefined ? {} : { status: filter.status }),
        ...(targetKey === undefined ? {} : { targetKey }),
        limit: OWNED_PAGE_SIZE,
        offset: filter.offset ?? 0,
      });
    },

    /**
     * Decides the owner of mentions received before owners were recorded, a
     * batch at a time; returns how many were assigned (0 when none are left).
     */
    async assignMissingOwners(batch = 200): Promise<number> {
      const records = await webmentions.listUnassigned(batch);
      for (const record of records) {
        let host = '';
        try {
          host = bareHost(new URL(record.target).hostname);
        } catch {
          // stored targets were valid URLs when received; an unreadable one belongs to nobody
        }
        await webmentions.assignOwner(record.id, host === '' ? null : await ownership.ownerOf(record.target), host);
      }
      return records.length;
    },

    /** Fetches and verifies again now (moderation); a source that is still down is recorded as failed. */
    async reprocess(id: string): Promise<ProcessOutcome> {
      const record = await requireMention(id);
      // a response from a silo's API (backfeed: `origin` set) has no page of its own to fetch (a like's source is
      // the copy's URL with a fragment): its target's next poll checks it again, so it stays as it is
      if (record.origin !== null)
        return record.status === 'verified'
          ? { status: 'verified' }
          : { status: 'failed', reason: record.error ?? 'withdrawn on its silo' };
      try {
        const outcome = await processor.process(record);
        await afterProcessing(record);
        return outcome;
      } catch (error) {
        // the reason is shown on the status view: ours only, never an arbitrary error's message
        const reason = error instanceof TransientProcessingError ? error.message : 'processing failed unexpectedly';
        await webmentions.markStatus(record.id, 'failed', reason, now());
        return { status: 'failed', reason };
      }
    },

    async markSpam(id: string): Promise<void> {
      const record = await requireMention(id);
      await webmentions.markStatus(record.id, 'spam', null, now());
    },

    async remove(id: string): Promise<void> {
      const record = await requireMention(id);
      await webmentions.delete(record.id);
    },

    /** The mentions a visitor may see (public-mention.ts), of a target: the read API and the entry pages. */
    listPublic: (
      filter: { /** Implied: public mentions are verified. */ status?: 'verified'; target?: string; limit?: number; offset?: number } = {},
    ) => {
      const targetKey = filter.target === undefined ? undefined : (canonicalUrl(filter.target) ?? filter.target);
      return webmentions.list({
        visible: true,
        ...(targetKey === undefined ? {} : { targetKey }),
        ...(filter.limit === undefined ? {} : { limit: filter.limit }),
        ...(filter.offset === undefined ? {} : { offset: filter.offset }),
      });
    },

    /** How many mentions a visitor may see of a target, by type (`reply`, `rsvp`, `like`, `repost`, `bookmark`, `mention`): the entry page's counts. */
    async countPublic(target: string): Promise<Record<string, number>> {
      const rows = await webmentions.countPublicByType([canonicalUrl(target) ?? target]);
      const counts: Record<string, number> = {};
      for (const row of rows) counts[row.type] = (counts[row.type] ?? 0) + row.count;
      return counts;
    },

    /** Every mention (the operator's view, tests), filtered; never for a visitor: see `listPublic`. */
    list: (filter: { status?: WebmentionStatus; target?: string; limit?: number; offset?: number } = {}) => {
      const targetKey = filter.target === undefined ? undefined : (canonicalUrl(filter.target) ?? filter.target);
      return webmentions.list({
        ...(filter.status === undefined ? {} : { status: filter.status }),
        ...(targetKey === undefined ? {} : { targetKey }),
        ...(filter.limit === undefined ? {} : { limit: filter.limit }),
        ...(filter.offset === undefined ? {} : { offset: filter.offset }),
      });
    },
  };
}
