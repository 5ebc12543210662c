/**
 * The application core: every service built once, bottom layer first, from
 * one configuration and one open database. Three doors stand on it: the
 * HTTP plugin (`plugin.ts`, which adds the route-bearing features and
 * registers their scopes), the admin inside it (given the part it needs),
 * and the `indiestack` command (`cli/with-core.ts`, which runs each command
 * inside a core that never starts its worker).
 *
 * Storage, the job worker and the identity services are made at once; the
 * parts above them (passkeys, content, webmention, operations) are made on
 * first use and then kept, so a command loads only the modules it needs
 * (docs/performance.md "CLI start-up"). The plugin uses every part.
 * @module
 */
import type { FastifyBaseLogger } from 'fastify';
import type { PasskeyService } from '../accounts/passkeys/service.js';
import { createStandaloneAccounts } from '../accounts/standalone-accounts.js';
import { createPasswordHasher } from '../accounts/passwords.js';
import { createUserService, type UserService } from '../accounts/user-service.js';
import type { Config } from '../config/config.js';
import { resolveSecret } from '../config/secret.js';
import type { Content } from '../content/content.js';
import type { Accounts } from '../contracts/accounts.js';
import type { MediaStorage } from '../contracts/media-storage.js';
import type { MicropubHandler } from '../contracts/micropub-handler.js';
import type { ClientIdValidator, UrlPolicy } from '../contracts/policies.js';
import { loadCallable, type LoadedCallable } from '../config/load-callable.js';
import type { BearerGuard } from '../indieauth/bearer.js';
import type { ClientPolicy } from '../indieauth/client-policy.js';
import { systemClock, type Clock } from '../core/clock.js';
import { NO_METER, type Meter } from '../core/meter.js';
import { createSigner, type Signer } from '../core/signing.js';
import { createTokenService, type TokenService } from '../indieauth/token-service.js';
import { createJobWorker, type JobWorker } from '../jobs/worker.js';
import type { DoctorService } from '../operations/doctor/service.js';
import type { Metrics } from '../operations/metrics/metrics.js';
import { createProfileService, type ProfileService } from '../profile/service.js';
import type { DatabaseHandle } from '../storage/connect.js';
import { createEntrySearchIndexer, postgresSearchWork, sqliteSearchWork } from '../storage/entry-search.js';
import { rawAccessOf } from '../storage/raw-access.js';
import { hasEntrySearchIndex } from '../storage/search-index.js';
import { createStores, type Stores } from '../storage/stores.js';
import type { WebmentionReceivedEvent } from '../webmention/events.js';
import type { WebmentionFeature } from '../webmention/feature.js';
import type { SyndicationFeature } from '../syndication/feature.js';
import type { SyndicationClient } from '../syndication/client.js';
import type { OpenTarget } from '../syndication/clients.js';

export interface CoreOptions {
  readonly config: Config;
  /** An open, migrated database; the core never closes it. */
  readonly database: DatabaseHandle;
  /** @defaultValue the system clock */
  readonly clock?: Clock | undefined;
  readonly log: FastifyBaseLogger;
  /** Which door: the server runs the worker (unless `worker` is false), remembers validated tokens and keeps metrics; a command does none of these. */
  readonly door: 'server' | 'command';
  /** Key for sessions, CSRF tokens, read tokens and webhook signatures. @defaultValue `config.secret`, else the one in `config.dataDir` (made on first use) */
  readonly secret?: string | undefined;
  /** The host's accounts (plugin mode); undefined for indiestack's own. */
  readonly accounts?: Accounts | undefined;
  /** The host's client_id validator, overriding `config.clientIdValidator`. */
  readonly clientIdValidator?: ClientIdValidator | undefined;
  /** The host's content handler, overriding `config.micropubHandler`. */
  readonly handler?: MicropubHandler | undefined;
  /** The host's media storage, overriding `config.media.storage`. */
  readonly storage?: MediaStorage | undefined;
  /** The host's URL policy, overriding `config.micropubUrlPolicy`. */
  readonly urlPolicy?: UrlPolicy | undefined;
  readonly onWebmentionReceived?: ((event: WebmentionReceivedEvent) => void) | undefined;
  /** Run the job worker and the entry search indexer in this process (server door only). @defaultValue true */
  readonly worker?: boolean;
  /** Makes a syndication target's client (tests). @defaultValue the client of the target's service */
  readonly syndicationClients?: ((target: OpenTarget) => Promise<SyndicationClient>) | undefined;
}

/** Who may use a token at a resource endpoint. */
export interface AccessPart {
  readonly clientPolicy: ClientPolicy;
  /** The resource guard Micropub, media and the deploy signal use. */
  readonly bearer: BearerGuard;
}

/** The content platform as configured: the handler (with the media hooks and the URL policy) and where uploads go. */
export interface ContentPart {
  readonly content: Content;
  readonly mediaStorage: MediaStorage;
}

export interface Core {
  readonly config: Config;
  readonly database: DatabaseHandle;
  readonly clock: Clock;
  readonly log: FastifyBaseLogger;
  readonly signer: Signer;
  /** Every repository, once. */
  readonly stores: Stores;
  /** The one job worker; features register their job kinds with it. Started by {@link Core.start} at the server door only. */
  readonly jobs: JobWorker;
  /** The metrics of this instance; null at the command door and unless `config.metricsToken` is set. */
  readonly metrics: Metrics | null;
  /** What features count with (metrics' meter, else one that counts nothing). */
  readonly meter: Meter;
  /** The accounts in use: the host's, else the built-in ones. */
  readonly accounts: Accounts;
  /** The built-in accounts; null with the host's. */
  readonly users: UserService | null;
  readonly tokens: TokenService;
  readonly profiles: ProfileService;
  /** Passkeys of the built-in accounts; null with the host's. */
  passkeys(): Promise<PasskeyService | null>;
  /** The client policy and the bearer guard of the resource endpoints. */
  access(): Promise<AccessPart>;
  /** Where uploads go: `options.storage`, else the one `config.media.storage` names. */
  mediaStorage(): Promise<MediaStorage>;
  /** The content handler, its URL policy and media hooks; the media storage. */
  content(): Promise<ContentPart>;
  /** The webmention services: receiving and processing, moderation (an approval notifies webhooks), webhooks, sending; its job kinds registered. */
  webmention(): Promise<WebmentionFeature>;
  /** Syndication (POSSE): targets, the copies of entries and their job kind. */
  syndication(): Promise<SyndicationFeature>;
  /** "Check my setup" inside the server. */
  doctor(): Promise<DoctorService>;
  /** Starts the job worker (server door, unless `worker: false`) and what the parts run in the background. */
  start(): Promise<void>;
  /** Stops the worker, then closes every part made (in reverse order). The database stays open: its owner closes it. */
  close(): Promise<void>;
}

/** A part made on first use and then kept; `made()` is it when it was made (and did not fail), else null: what close() closes. */
function part<T>(build: () => Promise<T>): { get: () => Promise<T>; made: () => Promise<T | null> } {
  let value: Promise<T> | null = null;
  return {
    get: () => (value ??= build()),
    made: async () => (value === null ? null : value.catch(() => null)),
  };
}

/** A signer whose secret is read (or made in the data directory) on first use: a command that signs nothing leaves no secret file behind. */
function lazySigner(secret: () => string): Signer {
  let signer: Signer | null = null;
  const get = () => (signer ??= createSigner(secret()));
  return {
    sign: (purpose, value) => get().sign(purpose, value),
    verify: (purpose, value, signature) => get().verify(purpose, value, signature),
  };
}

async function resolveValidator(
  given: ClientIdValidator | undefined,
  specifier: string | null,
  log: FastifyBaseLogger,
): Promise<LoadedCallable<ClientIdValidator> | null> {
  if (given !== undefined) return { ok: true, fn: given };
  if (specifier === null) return null;
  const loaded = await loadCallable<ClientIdValidator>(specifier, process.cwd());
  // spec: a validator that cannot be imported fails closed on every request; boot goes on
  if (!loaded.ok) log.warn({ err: loaded.error, specifier }, 'client_id validator cannot be loaded; every client is refused');
  return loaded;
}

export async function createCore(options: CoreOptions): Promise<Core> {
  const { config, database, log, door } = options;
  const clock = options.clock ?? systemClock;
  const server = door === 'server';
  const secret = () => options.secret ?? resolveSecret(config.secret, config.dataDir);
  // the server settles its secret at start (made in the data directory if need be); a command only when it signs
  const signer = server ? createSigner(secret()) : lazySigner(secret);

  // storage
  const stores = createStores(database);
  // one job worker; the features that own job kinds register them as they are made
  const jobs = createJobWorker({ jobs: stores.jobs, clock, leaseSeconds: config.jobLeaseSeconds, log });
  // the entry search index takes new entries in the server's idle time (storage/entry-search.ts)
  const raw = rawAccessOf(database.db);
  const searchIndexer =
    raw === undefined
      ? null
      : createEntrySearchIndexer({
          work: raw.dialect === 'sqlite' ? sqliteSearchWork(raw) : postgresSearchWork(raw),
          onError: (error) => log.warn({ err: error }, 'could not index entries for search; trying again'),
        });
  // metrics: only in the server, and only when a scraper may read them (INDIEWEB_METRICS_TOKEN)
  const metrics =
    server && config.metricsToken !== null
      ? (await import('../operations/metrics/metrics.js')).createMetrics({
          webmentions: stores.webmentions,
          jobs: stores.jobs,
          clock,
          onCollectError: (error) => log.warn({ err: error }, 'metrics: a gauge could not be read'),
        })
      : null;
  const meter = metrics?.meter ?? NO_METER;

  // identity: accounts, tokens, profiles
  const ownAccounts = options.accounts === undefined;
  const users = ownAccounts
    ? createUserService({ users: stores.users, clock, passwords: createPasswordHasher({ maxConcurrent: config.maxConcurrentHashes }) })
    : null;
  const accounts = options.accounts ?? createStandaloneAccounts({ users: stores.users, signer, clock, baseUrl: config.baseUrl });
  const tokens = createTokenService({
    tokens: stores.tokens,
    refreshTokens: stores.refreshTokens,
    transact: stores.transact,
    findUser: (id) => accounts.findUser(id),
    clock,
    // the server remembers validated tokens while the database says nothing changed; a host's accounts can change where
    // our database does not see it, and a command lives too short to remember: nothing is remembered then
    ...(server && ownAccounts ? { changeStamp: () => database.changeStamp() } : {}),
  });
  if (server && ownAccounts) {
    database.onChangeFeed((event) => {
      if (event.kind === 'lost')
        log.warn(
          { err: event.error ?? undefined },
          'token memory: lost the database connection that hears of revocations; every token is looked up until it is back',
        );
      else log.info('token memory: hearing of revocations again');
    });
  }
  const profiles = createProfileService({ profiles: stores.profiles, clock });
  // who may use a token: the client policy (with a host's validator module, loaded once) and the resource guard
  const access = part(async (): Promise<AccessPart> => {
    const [{ createClientPolicy }, { createBearerGuard }] = await Promise.all([
      import('../indieauth/client-policy.js'),
      import('../indieauth/bearer.js'),
    ]);
    const clientPolicy = createClientPolicy({
      allowedClientIds: config.allowedClientIds,
      validator: await resolveValidator(options.clientIdValidator, config.clientIdValidator, log),
      onValidatorError: (error) => log.warn({ err: error }, 'client_id validator failed; client refused'),
    });
    return { clientPolicy, bearer: createBearerGuard({ tokens, clientPolicy, trustProxy: config.trustProxy, meter }) };
  });
  const passkeys = part(async () => {
    if (!ownAccounts) return null;
    const { createPasskeyService } = await import('../accounts/passkeys/service.js');
    return createPasskeyService({
      passkeys: stores.passkeys,
      challenges: stores.webauthnChallenges,
      users: stores.users,
      clock,
      baseUrl: config.baseUrl,
      signer,
    });
  });

  // content: where uploads go; the handler, its URL policy and media hooks
  const mediaStorage = part(async () => options.storage ?? (await import('../media/feature.js')).openMediaStorage(config));
  const content = part(async (): Promise<ContentPart> => {
    const [{ createMediaHooks }, { loadContent }] = await Promise.all([import('../media/hooks.js'), import('../content/content.js')]);
    const storage = await mediaStorage.get();
    const loaded = await loadContent({
      config,
      handler: options.handler,
      urlPolicy: options.urlPolicy,
      mediaHooks: createMediaHooks({ media: stores.media, storage }),
      database: { entries: stores.entries, clock },
      log,
    });
    return { content: loaded, mediaStorage: storage };
  });

  // webmention: receiving and processing, moderation (an approval notifies webhooks), webhooks, sending on publish
  const webmention = part(async () => {
    const [{ createWebmention }, { handlerKindOf }, { resolveSendMode }] = await Promise.all([
      import('../webmention/feature.js'),
      import('../content/load-handler.js'),
      import('../webmention/publish/sender.js'),
    ]);
    const { content: loaded } = await content.get();
    const feature = createWebmention({
      config,
      clock,
      stores,
      jobs,
      accounts,
      handler: loaded.handler,
      signer,
      onWebmentionReceived: options.onWebmentionReceived,
      // the deploy signal is a route: only the server authenticates it
      ...(server ? { bearer: (await access.get()).bearer } : {}),
      sendOnPublish: resolveSendMode(config.webmentionSendOnPublish, handlerKindOf(config, options.handler)),
      log,
      meter,
    });
    feature.events.on('webmention_received', () => meter.webmentionReceived());
    return feature;
  });

  // syndication: targets (credentials sealed with a key from the server secret), copies of entries, its job kind
  const syndication = part(async () => {
    const { createSyndication } = await import('../syndication/feature.js');
    return createSyndication({
      config,
      clock,
      stores,
      signer,
      accounts,
      handler: async () => (await content.get()).content.handler,
      mediaStorage: mediaStorage.get,
      jobs,
      log,
      // backfeed: responses on the copies are stored through the webmention service, the door every mention takes
      inbox: async () => (await webmention.get()).service,
      ...(options.syndicationClients === undefined ? {} : { clientFor: options.syndicationClients }),
    });
  });

  // operations: "Check my setup" (a secret given to the core counts as set)
  const doctor = part(async () => {
    const { createDoctorService } = await import('../operations/doctor/service.js');
    return createDoctorService({
      config: { ...config, secret: options.secret ?? config.secret },
      database,
      jobs: stores.jobs,
      storage: await mediaStorage.get(),
      clock,
      meter,
      syndicationTargets: async (userId) => (await syndication.get()).service.doctorChecks(userId),
    });
  });

  return {
    config,
    database,
    clock,
    log,
    signer,
    stores,
    jobs,
    metrics,
    meter,
    accounts,
    users,
    tokens,
    profiles,
    passkeys: passkeys.get,
    access: access.get,
    mediaStorage: mediaStorage.get,
    content: content.get,
    webmention: webmention.get,
    syndication: syndication.get,
    doctor: doctor.get,
    async start() {
      if (server && options.worker !== false) {
        jobs.start();
        // without the index (a SQLite that could not make it) lists read the entries: nothing to start; PostgreSQL's
        // pending entries are cleared all the same, or they would pile up in their own index (migration 0022)
        if (searchIndexer !== null && (database.dialect === 'postgres' || (await hasEntrySearchIndex(database).catch(() => false))))
          searchIndexer.start();
      }
      await (await webmention.made())?.start();
      await (await syndication.made())?.start();
    },
    async close() {
      // the worker hands its jobs back first: they use what the parts hold
      await jobs.stop();
      await searchIndexer?.stop();
      await (await doctor.made())?.close();
      await (await webmention.made())?.close();
    },
  };
}
