/**
 * The syndication service (POSSE, issue 33): the one service the CLI, the
 * admin and Micropub use for targets (added only after the service accepted
 * the credentials, kept sealed), for queueing an entry's copies after a
 * Micropub create, update or delete (one durable job per entry and target on
 * the job platform), for the job itself, for status and retry, and for the
 * doctor's check of every target's credentials.
 *
 * Exactly once: a copy is made with a key derived from entry and target
 * (Mastodon's `Idempotency-Key`, Bluesky's record key), its id is stored the
 * moment the service names it (`onCreated`), and a job that finds a copy
 * already stored never makes another; the copy's URL is then added to the
 * entry's `syndication` property (once).
 * @module
 */
import type { HostUser } from '../contracts/accounts.js';
import type { MicropubHandler } from '../contracts/micropub-handler.js';
import type { MicropubEntry } from '../contracts/micropub-types.js';
import type { Clock } from '../core/clock.js';
import { randomId, sha256Base64Url } from '../core/crypto.js';
import type { Sealer } from '../core/sealing.js';
import { postStatusOf, visibilityOf } from '../core/visibility.js';
import type { EntryPublished } from '../content/published.js';
import { RetryLaterError, type JobHandler } from '../jobs/worker.js';
import type { JobRecord } from '../storage/repositories/jobs.js';
import type { SyndicationRecord, SyndicationRepository, SyndicationTargetRecord } from '../storage/repositories/syndication.js';
import type { SyndicationTransactor } from '../storage/stores.js';
import { SyndicationError, type SyndicationClient } from './client.js';
import { clientFor, isService, SERVICE_NAMES, type ClientOptions, type OpenTarget, type ServiceName } from './clients.js';
import { syndicationPostOf } from './post.js';
import { createBackfeed, type BackfeedInbox } from './backfeed.js';

export const SYNDICATION_JOB = 'syndication.sync';

/** Input people typed that cannot make a target; the message is theirs to read. */
export class TargetInputError extends Error {
  override readonly name = 'TargetInputError';
}

export interface TargetView {
  readonly uid: string;
  readonly service: ServiceName;
  readonly name: string;
  readonly url: string;
  readonly handle: string | null;
}

export interface StatusLine {
  readonly uid: string;
  readonly service: string;
  readonly name: string;
  readonly state: 'queued' | 'sent' | 'failed';
  /** The copy's URL when sent, the reason when failed, else the copy's URL or `-`. */
  readonly detail: string;
  readonly row: SyndicationRecord;
}

/** `https://host[:port]` of what was typed (a bare host gets https); throws {@link TargetInputError}. */
export function originOf(typed: string): string {
  const text = typed.trim();
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`);
  } catch {
    throw new TargetInputError(`not a URL: ${text.slice(0, 80)}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new TargetInputError('the URL must be http or https');
  if (url.username !== '' || url.password !== '') throw new TargetInputError('the URL must not carry credentials');
  return url.origin;
}

/**
 * The key of one entry's copy on one target: the same on every retry, by any instance. `since` (when the entry was
 * first queued for the target) tells a post deleted and made again at the same URL from the one before.
 */
export function copyKey(entryUrl: string, targetId: string, since: string): string {
  return `indiestack-${sha256Base64Url(`${entryUrl}\u0000${targetId}\u0000${since}`).slice(0, 32)}`;
}

export type SyndicationService = ReturnType<typeof createSyndicationService>;

export function createSyndicationService(deps: {
  repository: SyndicationRepository;
  transact: SyndicationTransactor;
  /** Seals and opens targets' credentials (a key derived from the server secret). */
  sealer: Sealer;
  clock: Clock;
  /** The content handler: the entry a job syndicates, and where its `syndication` URL goes. */
  handler: () => Promise<MicropubHandler>;
  findUser: (id: string) => Promise<HostUser | null>;
  /** One of our stored photos by its URL; null when it is not ours. */
  readPhoto: (url: string) => Promise<{ bytes: Buffer; type: string } | null>;
  clientOptions?: ClientOptions;
  /** Makes a target's client; tests may put a double's in. @defaultValue clientFor */
  clientFor?: (target: OpenTarget) => Promise<SyndicationClient>;
  /** Called after jobs were queued, to start them soon. */
  onEnqueued?: () => void;
  /** Backfeed: seconds between two polls of a target (INDIEWEB_SYNDICATION_POLL_SECONDS). @defaultValue 300 */
  pollSeconds?: number;
  /** Backfeed: where responses are stored (the webmention service); without it targets are not polled. */
  inbox?: () => Promise<BackfeedInbox>;
  log?: Parameters<typeof createBackfeed>[0]['log'];
}) {
  const { repository, clock, sealer } = deps;
  const now = () => clock.now().toISOString();
  const makeClient = deps.clientFor ?? ((target: OpenTarget) => clientFor(target, deps.clientOptions));

  function open(target: SyndicationTargetRecord): OpenTarget {
    let secret: string;
    try {
      secret = (JSON.parse(sealer.open(target.sealedCredentials)) as { secret: string }).secret;
    } catch (error) {
      throw new SyndicationError('its credentials cannot be opened (was INDIEWEB_SECRET changed?)', { transient: false, cause: error });
    }
    return { service: target.service as ServiceName, url: target.url, handle: target.handle, secret };
  }

  const view = (target: SyndicationTargetRecord): TargetView => ({
    uid: target.id,
    service: target.service as ServiceName,
    name: target.name,
    url: target.url,
    handle: target.handle,
  });

  async function queueRows(
    userId: string,
    rows: { entryUrl: string; targetId: string; action: 'publish' | 'update' | 'remove' }[],
  ): Promise<number> {
    if (rows.length === 0) return 0;
    const at = now();
    await deps.transact(async (store) => {
      for (const row of rows) {
        const id = await store.syndication.queue({ id: randomId(12), userId, ...row, now: at });
        await store.jobs.enqueue({ id: randomId(), kind: SYNDICATION_JOB, ref: id, now: at });
      }
    });
    deps.onEnqueued?.();
    return rows.length;
  }

  async function userOf(userId: string): Promise<HostUser> {
    const user = await deps.findUser(userId);
    if (user === null) throw new SyndicationError('the account is gone', { transient: false });
    return user;
  }

  /** Adds the copy's URL to the entry's `syndication` property, once. */
  async function linkCopy(handler: MicropubHandler, entry: MicropubEntry, copyUrl: string, user: HostUser): Promise<void> {
    if ((entry.properties.syndication ?? []).includes(copyUrl)) return;
    await handler.updateEntry(entry.url, { add: { syndication: [copyUrl] } }, user);
  }

  async function runRow(row: SyndicationRecord, target: SyndicationTargetRecord): Promise<'sent' | 'removed' | 'waiting'> {
    const client = await makeClient(open(target));
    const copy = row.copyId !== null && row.copyUrl !== null ? { id: row.copyId, url: row.copyUrl } : null;
    if (row.action === 'remove') {
      if (copy !== null) await client.remove(copy);
      return 'removed';
    }
    const handler = await deps.handler();
    const user = await userOf(row.userId);
    let entry: MicropubEntry | null;
    try {
      entry = await handler.getEntry(row.entryUrl, user);
    } catch (error) {
      throw new SyndicationError('the entry cannot be read now', { transient: true, cause: error });
    }
    if (entry === null) throw new SyndicationError('the entry is gone', { transient: false });
    const post = syndicationPostOf(entry, deps.readPhoto);
    // a draft or a private post goes nowhere yet: the update that publishes it queues this again
    if (copy === null && (postStatusOf(entry.properties) !== 'published' || visibilityOf(entry.properties) === 'private')) return 'waiting';
    if (copy === null) {
      const made = await client.publish(post, copyKey(row.entryUrl, row.targetId, row.createdAt), (named) =>
        repository.recordCopy(row.id, named, now()),
      );
      await repository.recordCopy(row.id, made, now());
      await linkCopy(handler, entry, made.url, user);
    } else if (row.action === 'update') {
      await client.update(post, copy);
    } else {
      // made before a crash or a failure to link it: never made again, only linked
      await linkCopy(handler, entry, copy.url, user);
    }
    return 'sent';
  }

  const backfeed =
    deps.inbox === undefined
      ? null
      : createBackfeed({
          repository,
          transact: deps.transact,
          clock,
          pollSeconds: deps.pollSeconds ?? 300,
          clientOf: (target) => makeClient(open(target)),
          inbox: deps.inbox,
          ...(deps.log === undefined ? {} : { log: deps.log }),
          ...(deps.onEnqueued === undefined ? {} : { onEnqueued: deps.onEnqueued }),
        });

  const job: JobHandler = {
    async run(record: JobRecord) {
      const row = await repository.find(record.ref);
      if (row === null) return;
      const target = await repository.findTarget(row.targetId);
      if (target === null) {
        if (row.action === 'remove') await repository.delete(row.id);
        else await repository.recordOutcome(row.id, { state: 'failed', error: 'the target was removed', now: now() });
        return;
      }
      await repository.markAttempt(row.id, record.attempts, now());
      try {
        const outcome = await runRow(row, target);
        if (outcome === 'removed') await repository.delete(row.id);
        else if (outcome === 'waiting')
          await repository.recordOutcome(row.id, {
            state: 'queued',
            error: 'waiting until the post is published (it is a draft or private)',
            now: now(),
          });
        else await repository.recordOutcome(row.id, { state: 'sent', error: null, now: now() });
      } catch (error) {
        if (error instanceof SyndicationError && !error.transient) {
          await repository.recordOutcome(row.id, { state: 'failed', error: error.message, now: now() });
          return;
        }
        const reason = error instanceof SyndicationError ? error.message : 'failed unexpectedly';
        await repository.recordOutcome(row.id, { state: 'queued', error: `${reason} (will retry)`, now: now() });
        if (error instanceof SyndicationError) throw new RetryLaterError(reason, { cause: error, retryAfterMs: error.retryAfterMs });
        throw error;
      }
    },
    async giveUp(record: JobRecord, reason: string) {
      const row = await repository.find(record.ref);
      if (row !== null) await repository.recordOutcome(row.id, { state: 'failed', error: `gave up: ${reason}`, now: now() });
    },
  };

  return {
    job,
    /** Backfeed polling (null without an inbox): its job, the first poll of a new target, the poll states. */
    backfeed,

    /** Checks the credentials with the service, then stores the target (sealed); its uid and the account's name. */
    async addTarget(input: { userId: string; service: string; url: string; handle?: string | null; secret: string }): Promise<TargetView> {
      if (!isService(input.service)) throw new TargetInputError(`unknown service ${input.service.slice(0, 40)} (mastodon or bluesky)`);
      const url = originOf(input.url);
      const secret = input.secret.trim();
      if (secret === '')
        throw new TargetInputError(input.service === 'mastodon' ? 'the access token is empty' : 'the app password is empty');
      const handle = input.service === 'bluesky' ? (input.handle ?? '').trim().replace(/^@/, '') : null;
      if (input.service === 'bluesky' && (handle === null || !/^[a-z0-9.-]{3,253}$/i.test(handle) || !handle.includes('.')))
        throw new TargetInputError('bluesky needs a handle such as alice.bsky.social');
      const client = await makeClient({ service: input.service, url, handle, secret });
      const { name } = await client.verify();
      const id = randomId(9);
      await repository.addTarget({
        id,
        userId: input.userId,
        service: input.service,
        name,
        url,
        handle,
        sealedCredentials: sealer.seal(JSON.stringify({ secret })),
        now: now(),
      });
      await backfeed?.pollSoon(id);
      return { uid: id, service: input.service, name, url, handle };
    },

    listTargets: async (userId: string): Promise<TargetView[]> => (await repository.listTargets(userId)).map(view),
    removeTarget: (userId: string, uid: string) => repository.removeTarget(userId, uid),

    /** Micropub's `q=syndicate-to` targets of the user: `{ uid, name, service: { name, url } }`. */
    async syndicateTo(userId: string): Promise<{ uid: string; name: string; service: { name: string; url: string } }[]> {
      return (await repository.listTargets(userId)).map((target) => ({
        uid: target.id,
        name: `${target.name} on ${SERVICE_NAMES[target.service as ServiceName] ?? target.service}`,
        service: { name: SERVICE_NAMES[target.service as ServiceName] ?? target.service, url: target.url },
      }));
    },

    /** After a Micropub operation: a create queues the chosen targets; an update, the copies' edits; a delete, their removal. */
    async published(event: EntryPublished): Promise<number> {
      const userId = event.user.id;
      if (event.action === 'create') {
        if (event.entry === null) return 0;
        const chosen = new Set(event.syndicateTo ?? []);
        if (chosen.size === 0) return 0;
        const targets = (await repository.listTargets(userId)).filter((target) => chosen.has(target.id));
        return queueRows(
          userId,
          targets.map((target) => ({ entryUrl: event.entry!.url, targetId: target.id, action: 'publish' as const })),
        );
      }
      if (event.action === 'undelete') return 0;
      const urls = [...new Set([...event.urls, ...(event.entry === null ? [] : [event.entry.url])])];
      const rows = (await repository.listByEntry(urls)).filter((row) => row.userId === userId);
      if (event.action === 'delete')
        return queueRows(
          userId,
          rows.map((row) => ({ entryUrl: row.entryUrl, targetId: row.targetId, action: 'remove' as const })),
        );
      // an update: an edit where a copy exists; a copy not made yet goes out as the entry now is
      return queueRows(
        userId,
        rows.map((row) => ({
          entryUrl: row.entryUrl,
          targetId: row.targetId,
          action: row.copyId === null ? ('publish' as const) : ('update' as const),
        })),
      );
    },

    /** One line per target an entry went (or goes) to. `userId`: only that user's rows. */
    async status(entryUrls: readonly string[], userId?: string): Promise<StatusLine[]> {
      const rows = (await repository.listByEntry(entryUrls)).filter((row) => userId === undefined || row.userId === userId);
      const lines: StatusLine[] = [];
      for (const row of rows) {
        const target = await repository.findTarget(row.targetId);
        lines.push({
          uid: row.targetId,
          service: target?.service ?? '-',
          name: target?.name ?? '(removed)',
          state: row.state,
          detail: row.state === 'failed' || (row.state === 'queued' && row.error !== null) ? (row.error ?? 'failed') : (row.copyUrl ?? '-'),
          row,
        });
      }
      return lines;
    },

    /** A user's rows, most recently changed first (the admin's list). */
    listRows: (userId: string, page: { limit: number; offset: number }) => repository.listByUser(userId, page),

    /** Queues a failed (or any) row again; false when the user has no such row. */
    async retry(userId: string, rowId: string): Promise<boolean> {
      const row = await repository.find(rowId);
      if (row === null || row.userId !== userId) return false;
      await queueRows(userId, [{ entryUrl: row.entryUrl, targetId: row.targetId, action: row.action }]);
      return true;
    },

    /** Every target (of one user, or all) with whether its credentials still work; a transient failure is reported as such. */
    async doctorChecks(userId?: string) {
      return (await this.checkTargets(userId)).map((check) => ({
        uid: check.target.uid,
        service: check.target.service,
        name: check.target.name,
        ok: check.ok,
        transient: check.transient,
        reason: check.reason,
      }));
    },

    /** Every target (of one user, or all) with whether its credentials still work; a transient failure is reported as such. */
    async checkTargets(
      userId?: string,
    ): Promise<{ target: TargetView; userId: string; ok: boolean; transient: boolean; reason: string | null }[]> {
      const targets = userId === undefined ? await repository.listAllTargets() : await repository.listTargets(userId);
      const results = [];
      for (const target of targets) {
        try {
          await (await makeClient(open(target))).verify();
          results.push({ target: view(target), userId: target.userId, ok: true, transient: false, reason: null });
        } catch (error) {
          const reason = error instanceof SyndicationError ? error.message : 'the check failed';
          const transient = error instanceof SyndicationError ? error.transient : true;
          results.push({ target: view(target), userId: target.userId, ok: false, transient, reason });
        }
      }
      return results;
    },
  };
}
