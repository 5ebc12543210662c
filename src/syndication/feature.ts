/**
 * The syndication feature (POSSE to Mastodon and Bluesky, issue 33): the
 * service (targets, queueing, status, retry, the credentials check), the job
 * kind it registers with the core's worker, and the listener Micropub calls
 * after each create, update and delete. Its pages are the admin's; its
 * commands the CLI's.
 * @module
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config/config.js';
import type { Accounts } from '../contracts/accounts.js';
import type { MicropubHandler } from '../contracts/micropub-handler.js';
import type { Clock } from '../core/clock.js';
import { createSealer } from '../core/sealing.js';
import type { Signer } from '../core/signing.js';
import type { PublishListener } from '../content/published.js';
import type { JobWorker } from '../jobs/worker.js';
import type { Stores } from '../storage/stores.js';
import type { SyndicationClient } from './client.js';
import { clientFor, type OpenTarget } from './clients.js';
import { SyndicationError } from './client.js';
import { lookup } from 'node:dns/promises';
import { isPublicAddress } from '../outbound/address-guard.js';
import { siloFetch } from './silo-fetch.js';
import { createReadStream } from 'node:fs';
import type { MediaStorage } from '../contracts/media-storage.js';
import type { LocalMediaStorage } from '../media/fs-storage.js';
import type { S3MediaStorage } from '../media/s3-storage.js';
import { createSyndicationService, SYNDICATION_JOB, type SyndicationService } from './service.js';
import { POLL_JOB, type BackfeedInbox } from './backfeed.js';

/** The most bytes of one photo read to send to a silo (each is sized under the silo's limits first). */
const MAX_PHOTO_BYTES = 50 * 1024 * 1024;

export interface SyndicationFeature {
  readonly service: SyndicationService;
  /** Once the server is ready: every target gets its backfeed poll job (the core starts the worker). */
  start(): Promise<void>;
  /** What Micropub calls after each create and action. */
  readonly onPublished: PublishListener;
}

/**
 * Refuses a target on this machine or a private network unless `INDIEWEB_ALLOW_PRIVATE_NETWORKS` allows it: its
 * host's addresses are looked up before each client is made (the clients speak PUT, DELETE and multipart, which the
 * outbound module does not, so the check is here).
 */
async function assertPublicTarget(url: string): Promise<void> {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  try {
    addresses = (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
  } catch (error) {
    throw new SyndicationError(`${host} cannot be found`, { transient: true, cause: error });
  }
  if (addresses.length === 0 || !addresses.every(isPublicAddress))
    throw new SyndicationError(`refusing ${host}: not a public address (INDIEWEB_ALLOW_PRIVATE_NETWORKS)`, { transient: false });
}

/** Reads up to MAX_PHOTO_BYTES of a stream; null past it. */
async function readCapped(body: AsyncIterable<Uint8Array>): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > MAX_PHOTO_BYTES) return null;
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks);
}

/**
 * Reads one of our stored photos by its public URL (one the media library knows) straight from the storage: the
 * local directory or the S3 bucket (a server need not reach its own public URL); null for a photo that is not ours
 * or cannot be read (the post goes without it).
 */
function photoReader(stores: Pick<Stores, 'media'>, mediaStorage: () => Promise<MediaStorage>) {
  return async (url: string): Promise<{ bytes: Buffer; type: string } | null> => {
    const record = await stores.media.findByUrl(url);
    if (record === null || record.size > MAX_PHOTO_BYTES) return null;
    try {
      const storage = (await mediaStorage()) as MediaStorage &
        Partial<Pick<LocalMediaStorage, 'pathOf'> & Pick<S3MediaStorage, 'getObject'>>;
      let bytes: Buffer | null = null;
      if (typeof storage.pathOf === 'function') bytes = await readCapped(createReadStream(storage.pathOf(record.storageKey)));
      else if (typeof storage.getObject === 'function') {
        const stored = await storage.getObject(record.storageKey);
        bytes = stored === null ? null : await readCapped(stored.body);
      }
      return bytes === null ? null : { bytes, type: record.mediaType };
    } catch {
      return null;
    }
  };
}

export function createSyndication(deps: {
  config: Pick<Config, 'outboundTimeout' | 'allowPrivateNetworks'> & Partial<Pick<Config, 'syndicationPollSeconds'>>;
  clock: Clock;
  stores: Pick<Stores, 'syndication' | 'transactSyndication' | 'media'>;
  /** Derives the key that seals targets' credentials from the server secret. */
  signer: Signer;
  accounts: Accounts;
  /** Where uploads are stored (our photos are read from there). */
  mediaStorage: () => Promise<MediaStorage>;
  /** The content handler (made on first use). */
  handler: () => Promise<MicropubHandler>;
  /** The core's job worker: the feature registers its kind and wakes it when it queues. */
  jobs: Pick<JobWorker, 'register' | 'wake'>;
  log: FastifyBaseLogger;
  /** Backfeed: the webmention service responses are stored through; without it targets are not polled. */
  inbox?: () => Promise<BackfeedInbox>;
  /** Makes a target's client (tests). @defaultValue the client of the target's service */
  clientFor?: (target: OpenTarget) => Promise<SyndicationClient>;
}): SyndicationFeature {
  const { stores, jobs } = deps;
  const timeoutMs = Math.max(deps.config.outboundTimeout * 1000, 30_000);
  // one guarded fetch for every client (the Bluesky client shares an account's session per fetch function)
  const fetchSilo = siloFetch({ allowPrivateNetworks: deps.config.allowPrivateNetworks });
  const service = createSyndicationService({
    repository: stores.syndication,
    transact: stores.transactSyndication,
    sealer: createSealer(deps.signer, 'syndication credentials'),
    clock: deps.clock,
    handler: deps.handler,
    findUser: async (id) => deps.accounts.findUser(id),
    readPhoto: photoReader(stores, deps.mediaStorage),
    clientFor:
      deps.clientFor ??
      (async (target) => {
        if (!deps.config.allowPrivateNetworks) await assertPublicTarget(target.url);
        return clientFor(target, { timeoutMs, fetch: fetchSilo });
      }),
    onEnqueued: () => jobs.wake(),
    pollSeconds: deps.config.syndicationPollSeconds ?? 300,
    ...(deps.inbox === undefined ? {} : { inbox: deps.inbox }),
    log: deps.log,
  });
  jobs.register(SYNDICATION_JOB, service.job);
  if (service.backfeed !== null) jobs.register(POLL_JOB, service.backfeed.job);
  return {
    service,
    async start() {
      await service.backfeed?.ensureJobs();
    },
    onPublished: async (event) => {
      const queued = await service.published(event);
      if (queued > 0) deps.log.info({ action: event.action, queued }, 'syndication queued');
    },
  };
}
