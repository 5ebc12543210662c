/**
 * The webmention feature: the receiving endpoint and status pages, the
 * service behind them, the job kinds it registers with the core's worker
 * (verification, webhook delivery, sending), and the `webmention_received` events.
 * @module
 */
import { NO_METER, type Meter } from '../core/meter.js';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Config } from '../config/config.js';
import type { Accounts } from '../contracts/accounts.js';
import type { MicropubHandler } from '../contracts/micropub-handler.js';
import type { Clock } from '../core/clock.js';
import { entryHostsOf } from '../core/entry-hosts.js';
import { callHandler } from '../content/call-handler.js';
import type { Signer } from '../core/signing.js';
import { outboundFor } from '../outbound/fetch.js';
import { createReadTokens, type ReadTokens } from './api/read-tokens.js';
import { createModerationService, type ModerationService } from './moderation-service.js';
import { createWebhooks, WEBHOOK_JOB, type Webhooks } from './webhooks.js';
import { mentionsApiRoutes } from './api/routes.js';
import { createMentionsApi } from './api/service.js';
import type { Stores } from '../storage/stores.js';
import { isPublicMention } from '../storage/repositories/public-mention.js';
import type { WebmentionRecord } from '../storage/repositories/webmentions.js';
import { WebmentionEvents, type WebmentionReceivedEvent } from './events.js';
import { createWebmentionOwnership } from './ownership.js';
import { createWebmentionProcessor, type WebmentionProcessor } from './process.js';
import { webmentionRoutes } from './routes.js';
import { bareHost } from './host.js';
import { createWebmentionService, VERIFY_JOB, type WebmentionService } from './service.js';
import type { JobWorker } from '../jobs/worker.js';
import type { BearerGuard } from '../indieauth/bearer.js';
import type { PublishListener } from '../content/published.js';
import { deployRoutes } from './publish/routes.js';
import { createPublishSender, SEND_JOB, type PublishSender, type ResolvedSendMode } from './publish/sender.js';

export interface WebmentionFeature {
  readonly service: WebmentionService;
  /** Typed events; `webmention_received` fires for every accepted submission. */
  readonly events: WebmentionEvents;
  /** The per-account read tokens of the webmention.io-compatible API. */
  readonly readTokens: ReadTokens;
  /** Approve, reject, block and allow lists. */
  readonly moderation: ModerationService;
  /** The accounts' webhooks and their deliveries. */
  readonly webhooks: Webhooks;
  /** Webmentions sent on publish: the deploy signal, the outcomes per target. */
  readonly publishing: PublishSender;
  /** Sending on publish as resolved for the handler. */
  readonly sendMode: ResolvedSendMode;
  /** What the Micropub feature calls after each create and action; undefined when sending on publish is off. */
  readonly onPublished: PublishListener | undefined;
  readonly routes: (app: FastifyInstance) => Promise<void>;
  /** Once the server is ready: gives old mentions their owners in the background (the core starts the worker). */
  start(): Promise<void>;
  /** On close: lets the owner batch in progress finish, closes the outbound client (the core stops the worker first). */
  close(): Promise<void>;
}

/** Works through every mention without an owner decision, a batch at a time, until none is left or the app is closing. */
async function assignMissingOwners(webmention: WebmentionService, log: FastifyBaseLogger, closing: () => boolean): Promise<void> {
  let assigned = 0;
  for (;;) {
    if (closing()) return;
    const batch = await webmention.assignMissingOwners();
    assigned += batch;
    if (batch === 0) break;
  }
  if (assigned > 0) log.info({ assigned }, 'webmention owners assigned');
}

/** Which webhook event a processing run makes, for a mention that is public (approved); null for none. */
function webhookEventOf(before: WebmentionRecord, after: WebmentionRecord): 'verified' | 'updated' | 'deleted' | null {
  // only what a visitor may see (public-mention.ts) is ever announced
  if (isPublicMention(after)) return isPublicMention(before) ? 'updated' : 'verified';
  // 410 or link removed: a mention that was public is gone
  if (isPublicMention(before) && after.status === 'failed') return 'deleted';
  return null;
}

/** The processor, telling the meter how each attempt ended (a transient failure is a retry). */
function meteredProcessor(processor: WebmentionProcessor, meter: Meter): WebmentionProcessor {
  return {
    ...processor,
    async process(record) {
      try {
        const outcome = await processor.process(record);
        meter.webmentionProcessed(outcome.status);
        return outcome;
      } catch (error) {
        meter.webmentionProcessed('retry');
        throw error;
      }
    },
  };
}

export function createWebmention(deps: {
  config: Pick<
    Config,
    | 'baseUrl'
    | 'allowPrivateNetworks'
    | 'outboundTimeout'
    | 'parseTimeout'
    | 'webmentionTargetHosts'
    | 'webmentionLimits'
    | 'webmentionModeration'
    | 'webmentionSendDelay'
  >;
  clock: Clock;
  stores: Pick<
    Stores,
    | 'webmentions'
    | 'jobs'
    | 'users'
    | 'transactWebmentions'
    | 'webmentionAccounts'
    | 'webmentionRules'
    | 'webhookDeliveries'
    | 'webmentionOutgoing'
    | 'transactOutgoing'
  >;
  /** Derives the API read tokens (and webhook secrets) from the server secret. */
  signer: Signer;
  accounts: Accounts;
  /** The content handler: whose entry a mentioned URL is. */
  handler: MicropubHandler;
  onWebmentionReceived: ((event: WebmentionReceivedEvent) => void) | undefined;
  /** The core's job worker: the feature registers its kinds (verification, webhook delivery, sending) and wakes it when it queues. */
  jobs: Pick<JobWorker, 'register' | 'wake'>;
  /** Sending on publish, `auto` already resolved for the handler (publish/sender.ts). @defaultValue 'off' */
  sendOnPublish?: ResolvedSendMode;
  /** Authenticates the deploy signal; without it the deploy route is not served. */
  bearer?: BearerGuard;
  log: FastifyBaseLogger;
  /** @defaultValue counts nothing */
  meter?: Meter;
}): WebmentionFeature {
  const { config, clock, stores, accounts, handler, log, jobs } = deps;
  const meter = deps.meter ?? NO_METER;
  const outbound = outboundFor(config, {
    onOutcome: meter.outboundFetch,
  });
  const events = new WebmentionEvents();
  if (deps.onWebmentionReceived !== undefined) events.on('webmention_received', deps.onWebmentionReceived);
  const baseHost = bareHost(new URL(config.baseUrl).hostname);
  const listUsers = accounts.listUsers;
  const ownership = createWebmentionOwnership({
    listUsers: listUsers === undefined ? null : async () => listUsers.call(accounts),
    entryHosts: (user) => entryHostsOf(config.baseUrl, handler, user),
    isEntryOf: async (url, user) => (await callHandler('get_entry', () => handler.getEntry(url, user))) !== null,
    onLookupError: (error) => log.warn({ err: error }, 'webmention owner: the handler lookup failed'),
  });
  const webhooks = createWebhooks({
    accounts: stores.webmentionAccounts,
    deliveries: stores.webhookDeliveries,
    jobs: stores.jobs,
    outbound,
    signer: deps.signer,
    clock,
    onEnqueued: () => jobs.wake(),
  });
  const moderation = createModerationService({
    webmentions: stores.webmentions,
    rules: stores.webmentionRules,
    policy: config.webmentionModeration,
    clock,
    onApproved: (record) => webhooks.notify(record, 'approved'),
  });
  const service = createWebmentionService({
    webmentions: stores.webmentions,
    jobs: stores.jobs,
    processor: meteredProcessor(createWebmentionProcessor({ webmentions: stores.webmentions, outbound, clock }), meter),
    events,
    clock,
    baseUrl: config.baseUrl,
    ownHosts: async () => {
      const hosts = new Set([baseHost, ...config.webmentionTargetHosts.map(bareHost)]);
      for (const url of await stores.users.listProfileUrls()) hosts.add(bareHost(new URL(url).hostname));
      return hosts;
    },
    ownership,
    limits: config.webmentionLimits,
    transact: stores.transactWebmentions,
    onEnqueued: () => jobs.wake(),
    onListenerError: (error) => log.error({ err: error }, 'webmention_received listener failed'),
    moderate: (source, ownerId) => moderation.decide(source, ownerId),
    onProcessed: async (before, after) => {
      const event = webhookEventOf(before, after);
      if (event !== null) await webhooks.notify(after, event);
    },
  });
  const sendMode = deps.sendOnPublish ?? 'off';
  // made even when sending is off: sends queued before it was switched off still run
  const publishing = createPublishSender({
    outgoing: stores.webmentionOutgoing,
    transact: stores.transactOutgoing,
    outbound,
    clock,
    mode: sendMode === 'deploy' ? 'deploy' : 'on',
    delaySeconds: config.webmentionSendDelay,
    onEnqueued: () => jobs.wake(),
  });
  jobs.register(VERIFY_JOB, service.verifyJob);
  jobs.register(WEBHOOK_JOB, webhooks.job);
  jobs.register(SEND_JOB, publishing.job);
  const readTokens = createReadTokens({ accounts: stores.webmentionAccounts, signer: deps.signer, clock });
  const api = createMentionsApi({ webmentions: stores.webmentions, readTokens, findUser: (id) => accounts.findUser(id) });

  let closing = false;
  let assigning: Promise<void> = Promise.resolve();
  return {
    service,
    events,
    readTokens,
    moderation,
    webhooks,
    publishing,
    sendMode,
    onPublished:
      sendMode === 'off'
        ? undefined
        : async (event) => {
            const queued = await publishing.published(event);
            if (queued > 0)
              log.info(
                { userId: event.user.id, action: event.action, webmentions: queued, mode: sendMode },
                'webmentions queued for sending',
              );
          },
    routes: async (app) => {
      await webmentionRoutes(app, { service });
      const bearer = deps.bearer;
      if (bearer !== undefined)
        await app.register(async (scope) => deployRoutes(scope, { bearer, sender: sendMode === 'off' ? null : publishing }));
      // its own scope: JSON errors with CORS headers
      await app.register(async (scope) => mentionsApiRoutes(scope, { api }));
    },
    async start() {
      // mentions received before owners were recorded get theirs once, in the background
      assigning = assignMissingOwners(service, log, () => closing).catch((error: unknown) =>
        log.error({ err: error }, 'webmention owners could not be assigned'),
      );
    },
    async close() {
      // the batch in progress finishes before the database may close
      closing = true;
      await assigning;
      await outbound.close();
    },
  };
}
