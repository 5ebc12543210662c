/**
 * Backfeed (issue 34): replies, likes and reposts on the copies come home as
 * received webmentions of the original entries. Each target is polled by one
 * durable job (`syndication.poll`, its ref the target's uid: one per target,
 * claimed under the job platform's lease, so two instances never poll one
 * target at once) that queues itself again INDIEWEB_SYNDICATION_POLL_SECONDS
 * later — or later still when the service answered 429 (`Retry-After`,
 * `X-RateLimit-Reset`, `ratelimit-reset`).
 *
 * A poll asks the client for the responses since the stored cursor, keeps
 * those on copies we made (the user's own are never reported), and hands each
 * to the webmention service's `receiveVerified` — the same door as a received
 * mention: moderation, caps, webhooks, the APIs and the entry page. The source
 * is the response's silo URL; a like or repost, which has none, is the copy's
 * URL with a fragment naming kind and account, as Bridgy does
 * (`COPY#favorited-by-ID`, `#reblogged-by-ID` on Mastodon; `#liked-by-DID`,
 * `#reposted-by-DID` on Bluesky). Then it looks again at a bounded number of
 * the responses brought home before (longest unchecked first) and withdraws
 * the ones the silo no longer has: an undone favourite or reblog, a deleted
 * reply.
 * @module
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../core/clock.js';
import { randomId } from '../core/crypto.js';
import type { JobHandler } from '../jobs/worker.js';
import type { JobRecord } from '../storage/repositories/jobs.js';
import type { SyndicationRepository, SyndicationTargetRecord } from '../storage/repositories/syndication.js';
import type { SyndicationTransactor } from '../storage/stores.js';
import type { ParsedMention } from '../storage/repositories/webmentions.js';
import { SyndicationError, type ResponseKind, type SiloResponse, type SyndicationClient } from './client.js';

export const POLL_JOB = 'syndication.poll';

/** Backfed responses looked at again per poll to see whether they are still there. */
export const CHECKS_PER_POLL = 20;

/** What a backfed mention is stored through (the webmention service). */
export interface BackfeedInbox {
  receiveVerified(input: { source: string; target: string; origin: string; mention: ParsedMention }): Promise<{
    record: { id: string };
    created: boolean;
    changed: boolean;
  }>;
  withdrawVerified(id: string, reason: string): Promise<boolean>;
}

const FRAGMENTS: Readonly<Record<string, Readonly<Record<'like' | 'repost', string>>>> = {
  mastodon: { like: 'favorited-by', repost: 'reblogged-by' },
  bluesky: { like: 'liked-by', repost: 'reposted-by' },
};

const TYPES: Readonly<Record<ResponseKind, string>> = { reply: 'reply', like: 'like', repost: 'repost', quote: 'mention' };

/** The webmention source of a response: its own URL, or the copy's with `#KIND-by-ACCOUNT` for a like or repost. */
export function sourceOf(service: string, response: SiloResponse, copyUrl: string): string | null {
  if (response.kind === 'reply' || response.kind === 'quote') return response.url;
  const fragment = (FRAGMENTS[service] ?? FRAGMENTS.mastodon!)[response.kind];
  const hash = copyUrl.indexOf('#');
  return `${hash === -1 ? copyUrl : copyUrl.slice(0, hash)}#${fragment}-${response.siloId}`;
}

function summary(counts: Record<ResponseKind, number>, removed: number): string {
  const parts = (['reply', 'like', 'repost', 'quote'] as const)
    .filter((kind) => counts[kind] > 0)
    .map(
      (kind) =>
        `${counts[kind]} ${kind === 'reply' ? (counts[kind] === 1 ? 'reply' : 'replies') : `${kind}${counts[kind] === 1 ? '' : 's'}`}`,
    );
  if (removed > 0) parts.push(`${removed} removed`);
  return parts.length === 0 ? 'nothing new' : parts.join(', ');
}

export function createBackfeed(deps: {
  repository: SyndicationRepository;
  transact: SyndicationTransactor;
  clock: Clock;
  /** INDIEWEB_SYNDICATION_POLL_SECONDS. */
  pollSeconds: number;
  /** The target's client (its credentials opened). */
  clientOf: (target: SyndicationTargetRecord) => Promise<SyndicationClient>;
  inbox: () => Promise<BackfeedInbox>;
  log?: Pick<FastifyBaseLogger, 'warn' | 'error'>;
  onEnqueued?: () => void;
  checksPerPoll?: number;
}) {
  const { repository, clock } = deps;
  const checks = deps.checksPerPoll ?? CHECKS_PER_POLL;
  const now = () => clock.now().toISOString();

  /** The target's poll job, due in `afterMs` (its attempts reset). */
  async function schedule(targetId: string, afterMs: number): Promise<void> {
    const at = clock.now();
    await deps.transact(({ jobs }) =>
      jobs.enqueue({
        id: randomId(),
        kind: POLL_JOB,
        ref: targetId,
        now: at.toISOString(),
        runAt: new Date(at.getTime() + afterMs).toISOString(),
      }),
    );
  }

  async function poll(target: SyndicationTargetRecord): Promise<string> {
    const client = (await deps.clientOf(target)).backfeed;
    if (client === undefined) return 'this service cannot be polled';
    const inbox = await deps.inbox();
    const state = await repository.pollState(target.id);
    const { responses, cursor } = await client.responses(state?.cursor ?? null);
    const copies = await repository.copiesByIds(
      target.id,
      responses.flatMap((response) => [response.copyId, ...(response.rootId ? [response.rootId] : [])]),
    );
    const counts: Record<ResponseKind, number> = { reply: 0, like: 0, repost: 0, quote: 0 };
    for (const response of responses) {
      // a reply to a copy, or further down a copy's thread
      const copyId = copies.has(response.copyId) ? response.copyId : (response.rootId ?? response.copyId);
      const copy = copies.get(copyId);
      if (copy === undefined) continue;
      const source = sourceOf(target.service, response, copy.copyUrl);
      if (source === null) continue;
      let stored;
      try {
        stored = await inbox.receiveVerified({
          source,
          target: copy.entryUrl,
          origin: `${target.service}:${target.id}`,
          mention: {
            type: TYPES[response.kind],
            author: { name: response.author.name, url: response.author.url, photo: response.author.photo },
            contentText: response.contentText,
            contentHtml: response.contentHtml,
            published: response.published,
          },
        });
      } catch (error) {
        // one response the inbox refuses (an entry no longer on this site) does not stop the others
        deps.log?.warn({ err: error, target: target.id }, 'backfeed: a response was not stored');
        continue;
      }
      await repository.addBackfeed({
        id: randomId(12),
        targetId: target.id,
        webmentionId: stored.record.id,
        kind: response.kind,
        copyId,
        siloId: response.siloId,
        source,
        createdAt: now(),
      });
      if (stored.changed) counts[response.kind] += 1;
    }
    // the cursor moves only once every response it covers is stored: a crash before re-reads them (stored once)
    await repository.recordPoll(target.id, { cursor, polledAt: now(), found: null, error: null });
    const removed = await sweep(target, client, inbox);
    return summary(counts, removed);
  }

  /** Looks again at the responses checked longest ago; withdraws those the silo no longer has. */
  async function sweep(
    target: SyndicationTargetRecord,
    client: NonNullable<SyndicationClient['backfeed']>,
    inbox: BackfeedInbox,
  ): Promise<number> {
    const rows = await repository.backfeedToCheck(target.id, checks);
    const responders = new Map<string, ReadonlySet<string> | null>();
    const still: string[] = [];
    let removed = 0;
    for (const row of rows) {
      let there: boolean;
      if (row.kind === 'like' || row.kind === 'repost') {
        const key = `${row.kind}\u0000${row.copyId}`;
        if (!responders.has(key)) responders.set(key, await client.responders(row.copyId, row.kind));
        there = responders.get(key)?.has(row.siloId) ?? false;
      } else there = await client.responseExists(row.siloId);
      if (there) {
        still.push(row.id);
        continue;
      }
      const what = { reply: 'reply was deleted', quote: 'quote was deleted', like: 'like was undone', repost: 'repost was undone' }[
        row.kind as ResponseKind
      ];
      await inbox.withdrawVerified(row.webmentionId, `the ${what ?? 'response is gone'} on ${target.service}`);
      await repository.deleteBackfeed(row.id);
      removed += 1;
    }
    await repository.markBackfeedChecked(still, now());
    return removed;
  }

  const job: JobHandler = {
    async run(record: JobRecord) {
      const target = await repository.findTarget(record.ref);
      // a removed target's job ends here (and is not queued again)
      if (target === null) return;
      let afterMs = deps.pollSeconds * 1000;
      try {
        const found = await poll(target);
        await repository.recordPoll(target.id, { polledAt: now(), found, error: null });
      } catch (error) {
        const reason = error instanceof SyndicationError ? error.message : 'the poll failed unexpectedly';
        if (!(error instanceof SyndicationError)) deps.log?.error({ err: error, target: target.id }, 'backfeed poll failed');
        if (error instanceof SyndicationError && error.retryAfterMs !== null) afterMs = Math.max(afterMs, error.retryAfterMs);
        await repository.recordPoll(target.id, { polledAt: now(), found: null, error: reason });
      }
      // the next poll: queued while this one holds the job, so completing it keeps the job
      await schedule(target.id, afterMs);
    },
    async giveUp(record: JobRecord) {
      if ((await repository.findTarget(record.ref)) !== null) await schedule(record.ref, deps.pollSeconds * 1000);
    },
  };

  return {
    job,
    /** Queues a target's first poll now (a new target). */
    pollSoon: async (targetId: string) => {
      await schedule(targetId, 0);
      deps.onEnqueued?.();
    },
    /** Every target without a poll job gets one (at start: targets added before backfeed, or by another version). */
    async ensureJobs(): Promise<number> {
      const targets = await repository.listAllTargets();
      let added = 0;
      for (const target of targets) {
        const queued = await deps.transact(async ({ jobs }) => {
          if ((await jobs.findByRef(POLL_JOB, target.id)) !== null) return false;
          await jobs.enqueue({ id: randomId(), kind: POLL_JOB, ref: target.id, now: now() });
          return true;
        });
        if (queued) added += 1;
      }
      if (added > 0) deps.onEnqueued?.();
      return added;
    },
    pollState: (targetId: string) => repository.pollState(targetId),
  };
}

export type Backfeed = ReturnType<typeof createBackfeed>;
