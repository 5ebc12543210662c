/**
 * The mountable Fastify plugin. The outer function is wrapped with
 * fastify-plugin so the `indieweb` decorator is visible to the host; routes,
 * parsers and error handlers live in an encapsulated child under `/indieweb`
 * and never leak into the host application.
 * @module
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { MicropubHandler } from '../contracts/micropub-handler.js';
import type { MediaStorage } from '../contracts/media-storage.js';
import { createOutbound } from '../outbound/fetch.js';
import { profileRoutes } from '../profile/routes.js';
import { adminRoutes } from '../admin/routes.js';
import { createProfileService } from '../profile/service.js';
import { createProfilesRepository } from '../storage/repositories/profiles.js';
import { createJobsRepository } from '../storage/repositories/jobs.js';
import { createWebmentionsRepository } from '../storage/repositories/webmentions.js';
import { WebmentionEvents, type WebmentionReceivedEvent } from '../webmention/events.js';
import { createWebmentionProcessor } from '../webmention/process.js';
import { webmentionRoutes } from '../webmention/routes.js';
import { createWebmentionOwnership } from '../webmention/ownership.js';
import { bareHost, createWebmentionService, VERIFY_JOB, type WebmentionService } from '../webmention/service.js';
import { createJobWorker, type JobWorker } from '../webmention/worker.js';
import { createLocalStorage, type LocalMediaStorage } from '../media/fs-storage.js';
import { createMediaHooks } from '../media/hooks.js';
import { receiveMultipart } from '../media/receive.js';
import { mediaRoutes } from '../media/routes.js';
import { createUploadPipeline } from '../media/upload.js';
import { createMediaRepository } from '../storage/repositories/media.js';
import type { UrlPolicy } from '../contracts/policies.js';
import { callHandler } from '../micropub/call-handler.js';
import { resolveHandler } from '../micropub/load-handler.js';
import { serverManagedSet } from '../micropub/properties.js';
import { notImplementedHandler } from '../micropub/responses.js';
import { micropubRoutes } from '../micropub/routes.js';
import { createUrlPolicyCheck } from '../micropub/url-policy.js';
import fp from 'fastify-plugin';
import { accountRoutes } from '../accounts/routes.js';
import { createSigner } from '../accounts/signing.js';
import { createStandaloneAccounts } from '../accounts/standalone-accounts.js';
import { createUserService } from '../accounts/user-service.js';
import { createPasswordHasher } from '../accounts/passwords.js';
import { createFailureThrottle } from '../core/throttle.js';
import type { Config } from '../config/config.js';
import { loadConfig } from '../config/env.js';
import { resolveSecret } from '../config/secret.js';
import type { Accounts } from '../contracts/accounts.js';
import { systemClock, type Clock } from '../core/clock.js';
import { entryHostsOf } from '../core/entry-hosts.js';
import { createTokenService } from '../indieauth/token-service.js';
import { createAuthorizationService } from '../indieauth/authorize.js';
import { carriesCredential, createBearerGuard, type BearerAuth } from '../indieauth/bearer.js';
import { createClientPolicy } from '../indieauth/client-policy.js';
import { createExchangeService } from '../indieauth/exchange.js';
import { indieauthRoutes } from '../indieauth/routes.js';
import { serverMetadata } from '../indieauth/metadata.js';
import { createClientInfoFetcher } from '../indieauth/client-info.js';
import { loadCallable, type LoadedCallable } from '../config/load-callable.js';
import type { ClientIdValidator } from '../contracts/policies.js';
import { createAuthCodesRepository } from '../storage/repositories/auth-codes.js';
import { createRefreshTokensRepository } from '../storage/repositories/refresh-tokens.js';
import { createTransactor } from '../storage/unit-of-work.js';
import type { DatabaseHandle } from '../storage/connect.js';
import { createTokensRepository } from '../storage/repositories/tokens.js';
import { createUsersRepository } from '../storage/repositories/users.js';
import './augment.js';
import { deferJsonErrors, registerBodyParsers } from './body-parsers.js';
import type { IndieWebContext } from './context.js';
import { closeUnreadBodies } from './client-errors.js';
import { defaultErrorHandler } from './error-handler.js';

export interface IndieWebPluginOptions {
  /** An open, migrated database (see `createDatabase` and `migrateToLatest`). */
  database: DatabaseHandle;
  /**
   * Settled configuration. Plugin mode never reads the environment: pass
   * `loadConfig()` yourself to use it.
   * @defaultValue the built-in defaults
   */
  config?: Config;
  /**
   * The host's accounts. Without it indiestack uses its own accounts table,
   * password login page and signed session cookie.
   */
  accounts?: Accounts;
  /**
   * Key for session cookies and CSRF tokens.
   * @defaultValue `config.secret`, else a secret generated once into `config.dataDir`
   */
  secret?: string;
  /**
   * Decides which client_ids may be used (only `true` permits). Overrides
   * `config.clientIdValidator`.
   */
  clientIdValidator?: ClientIdValidator;
  /**
   * The content handler. Overrides `config.micropubHandler`.
   * @defaultValue the in-memory handler (entries are lost on restart)
   */
  handler?: MicropubHandler;
  /**
   * Where uploads go. Overrides `config.media.storage`.
   * @defaultValue files under `config.media.dir`, served by indiestack
   */
  storage?: MediaStorage;
  /** Decides whether a submitted URL may reach the handler. Overrides `config.micropubUrlPolicy`. */
  urlPolicy?: UrlPolicy;
  /** Called for every accepted webmention (same payload as the `webmention_received` event). */
  onWebmentionReceived?: (event: WebmentionReceivedEvent) => void;
  /**
   * Run the background worker that verifies webmentions in this process.
   * @defaultValue true
   */
  worker?: boolean;
  /** @defaultValue the system clock */
  clock?: Clock;
}

async function resolveValidator(options: IndieWebPluginOptions, config: Config, app: FastifyInstance): Promise<LoadedCallable<ClientIdValidator> | null> {
  if (options.clientIdValidator !== undefined) return { ok: true, fn: options.clientIdValidator };
  if (config.clientIdValidator === null) return null;
  const loaded = await loadCallable<ClientIdValidator>(config.clientIdValidator, process.cwd());
  // spec: a validator that cannot be imported fails closed on every request; boot goes on
  if (!loaded.ok) app.log.warn({ err: loaded.error, specifier: config.clientIdValidator }, 'client_id validator cannot be loaded; every client is refused');
  return loaded;
}

async function createConfiguredStorage(config: Config): Promise<MediaStorage> {
  const storage = config.media.storage;
  // the AWS SDK is large: it loads only when the bucket storage is configured
  if (storage.kind === 's3') return (await import('../media/s3-storage.js')).createS3Storage(storage);
  return createLocalStorage({ dir: config.media.dir, baseUrl: config.baseUrl });
}

/** The handler with the media hooks added, keeping its own methods bound to it. */
function withMediaHooks(handler: MicropubHandler, hooks: ReturnType<typeof createMediaHooks>): MicropubHandler {
  return {
    createEntry: (entry, user) => handler.createEntry(entry, user),
    getEntry: (url, user) => handler.getEntry(url, user),
    updateEntry: (url, operations, user) => handler.updateEntry(url, operations, user),
    deleteEntry: (url, user) => handler.deleteEntry(url, user),
    undeleteEntry: (url, user) => handler.undeleteEntry(url, user),
    getConfig: (user) => handler.getConfig(user),
    ...(handler.listEntries === undefined ? {} : { listEntries: (user, page) => handler.listEntries!(user, page) }),
    ...(handler.entryHosts === undefined ? {} : { entryHosts: (user) => handler.entryHosts!(user) }),
    ...hooks,
  };
}

/** Works through every mention without an owner decision, a batch at a time, until none is left or the app is closing. */
async function assignMissingOwners(webmention: WebmentionService, app: FastifyInstance, closing: () => boolean): Promise<void> {
  let assigned = 0;
  for (;;) {
    if (closing()) return;
    const batch = await webmention.assignMissingOwners();
    assigned += batch;
    if (batch === 0) break;
  }
  if (assigned > 0) app.log.info({ assigned }, 'webmention owners assigned');
}

function isLocalStorage(storage: MediaStorage): storage is LocalMediaStorage {
  return (storage as Partial<LocalMediaStorage>).kind === 'local' && typeof (storage as Partial<LocalMediaStorage>).pathOf === 'function';
}

async function indiewebPlugin(app: FastifyInstance, options: IndieWebPluginOptions): Promise<void> {
  const config = options.config ?? loadConfig({ env: {} });
  const clock = options.clock ?? systemClock;
  const signer = createSigner(options.secret ?? resolveSecret(config.secret, config.dataDir));
  const { db } = options.database;
  const usersRepository = createUsersRepository(db);
  const users =
    options.accounts === undefined ? createUserService({ users: usersRepository, clock, passwords: createPasswordHasher({ maxConcurrent: config.maxConcurrentHashes }) }) : null;
  const accounts = options.accounts ?? createStandaloneAccounts({ users: usersRepository, signer, clock, baseUrl: config.baseUrl });

  const clientPolicy = createClientPolicy({
    allowedClientIds: config.allowedClientIds,
    validator: await resolveValidator(options, config, app),
    onValidatorError: (error) => app.log.warn({ err: error }, 'client_id validator failed; client refused'),
  });
  const tokens = createTokenService({
    tokens: createTokensRepository(db),
    refreshTokens: createRefreshTokensRepository(db),
    transact: createTransactor(db),
    findUser: (id) => accounts.findUser(id),
    clock,
    // a host's accounts can change where our database does not see it: nothing is remembered then
    // (PostgreSQL has no change stamp: nothing is remembered there either)
    ...(options.accounts === undefined && options.database.dialect === 'sqlite' ? { changeStamp: () => options.database.changeStamp() } : {}),
  });
  const authCodes = createAuthCodesRepository(db);

  const mediaRepository = createMediaRepository(db);
  const storage = options.storage ?? (await createConfiguredStorage(config));
  const resolved = await resolveHandler(config, options.handler, process.cwd(), app.log);
  if (resolved.inMemory) app.log.warn('micropub: using the in-memory handler; entries are lost on restart');
  // the built-in handlers answer media queries from the media table
  const handler = resolved.builtIn === true ? withMediaHooks(resolved.handler, createMediaHooks({ media: mediaRepository, storage })) : resolved.handler;
  const pipeline = createUploadPipeline({ storage, media: mediaRepository, limits: config.media, clock });
  const bearer = createBearerGuard({ tokens, clientPolicy, trustProxy: config.trustProxy });
  let urlPolicy: LoadedCallable<UrlPolicy> | null = options.urlPolicy === undefined ? null : { ok: true, fn: options.urlPolicy };
  if (urlPolicy === null && config.micropubUrlPolicy !== null) {
    urlPolicy = await loadCallable<UrlPolicy>(config.micropubUrlPolicy, process.cwd());
    if (!urlPolicy.ok) app.log.error({ err: urlPolicy.error, specifier: config.micropubUrlPolicy }, 'micropub URL policy cannot be loaded; requests that need it answer 500');
  }

  const outbound = createOutbound({ allowPrivateNetworks: config.allowPrivateNetworks, timeoutMs: config.outboundTimeout * 1000 });
  // client pages are fetched while a person waits on the consent screen: a tighter cap
  const clientOutbound = createOutbound({ allowPrivateNetworks: config.allowPrivateNetworks, timeoutMs: 3_000, maxBytes: 256 * 1024 });
  const events = new WebmentionEvents();
  if (options.onWebmentionReceived !== undefined) events.on('webmention_received', options.onWebmentionReceived);
  const jobsRepository = createJobsRepository(db, options.database.dialect);
  const webmentionsRepository = createWebmentionsRepository(db);
  const baseHost = bareHost(new URL(config.baseUrl).hostname);
  const listUsers = accounts.listUsers;
  const ownership = createWebmentionOwnership({
    listUsers: listUsers === undefined ? null : async () => listUsers.call(accounts),
    entryHosts: (user) => entryHostsOf(config.baseUrl, handler, user),
    isEntryOf: async (url, user) => (await callHandler('get_entry', () => handler.getEntry(url, user))) !== null,
    onLookupError: (error) => app.log.warn({ err: error }, 'webmention owner: the handler lookup failed'),
  });
  let worker: JobWorker | null = null;
  const webmention = createWebmentionService({
    webmentions: webmentionsRepository,
    jobs: jobsRepository,
    processor: createWebmentionProcessor({ webmentions: webmentionsRepository, outbound, clock }),
    events,
    clock,
    baseUrl: config.baseUrl,
    ownHosts: async () => {
      const hosts = new Set([baseHost, ...config.webmentionTargetHosts.map(bareHost)]);
      for (const url of await usersRepository.listProfileUrls()) hosts.add(bareHost(new URL(url).hostname));
      return hosts;
    },
    ownership,
    limits: config.webmentionLimits,
    transact: (work) => db.transaction().execute((trx) => work({ webmentions: createWebmentionsRepository(trx), jobs: createJobsRepository(trx, options.database.dialect) })),
    onEnqueued: () => worker?.wake(),
    onListenerError: (error) => app.log.error({ err: error }, 'webmention_received listener failed'),
  });
  worker = createJobWorker({ jobs: jobsRepository, clock, leaseSeconds: config.jobLeaseSeconds, handlers: { [VERIFY_JOB]: webmention.verifyJob }, log: app.log });
  const jobWorker = worker;
  if (options.worker !== false) app.addHook('onReady', async () => jobWorker.start());
  // mentions received before owners were recorded get theirs once, in the background
  let closing = false;
  let assigning: Promise<void> = Promise.resolve();
  app.addHook('onReady', async () => {
    assigning = assignMissingOwners(webmention, app, () => closing).catch((error: unknown) => app.log.error({ err: error }, 'webmention owners could not be assigned'));
  });
  app.addHook('onClose', async () => {
    // the batch in progress finishes before the database may close
    closing = true;
    await assigning;
    await jobWorker.stop();
    await outbound.close();
    await clientOutbound.close();
  });

  const context: IndieWebContext = Object.freeze({
    config,
    database: options.database,
    clock,
    signer,
    accounts,
    users,
    tokens,
    throttles: {
      signIn: createFailureThrottle({ freeFailures: config.signInThrottle.freeFailures, maxDelaySeconds: config.signInThrottle.maxDelay, clock }),
      token: createFailureThrottle({ freeFailures: config.tokenThrottle.freeFailures, maxDelaySeconds: config.tokenThrottle.maxDelay, clock }),
    },
    indieauth: {
      authorization: createAuthorizationService({ authCodes, clientPolicy, clock, codeLifetime: config.authCodeExpiresIn }),
      exchange: createExchangeService({
        authCodes,
        refreshTokens: createRefreshTokensRepository(db),
        transact: createTransactor(db),
        tokens,
        clientPolicy,
        findUser: (id) => accounts.findUser(id),
        clock,
        tokenLifetime: config.tokenExpiresIn,
        refreshLifetime: config.refreshTokenExpiresIn,
      }),
      bearer,
      clientPolicy,
      clientInfo: createClientInfoFetcher({ outbound: clientOutbound, clock }),
      // RFC 9207: the iss of every authorization response is exactly the metadata's issuer
      config: { issuer: serverMetadata(config.baseUrl).issuer },
    },
    micropub: {
      handler,
      mediaEndpoint: `${config.baseUrl}/indieweb/media/`,
      serverManaged: serverManagedSet(config.micropubServerManagedProperties),
      urlPolicy: createUrlPolicyCheck(urlPolicy),
    },
    media: {
      pipeline,
      repository: mediaRepository,
      localStorage: isLocalStorage(storage) ? storage : null,
      async receive(request: FastifyRequest, receiveOptions: Parameters<IndieWebContext['media']['receive']>[1]) {
        let auth: BearerAuth | null = null;
        const received = await receiveMultipart(request, {
          pipeline,
          limits: config.media,
          fieldBytes: config.maxBodyBytes,
          requestLimits: config.limits,
          acceptsFile: receiveOptions.acceptsFile,
          authenticate: async (fields) => {
            await bearer.authenticate({ headers: request.headers, body: fields });
          },
          authorize: async (fields) => {
            const authenticated = await bearer.authenticate({ headers: request.headers, body: fields });
            const scope = typeof receiveOptions.scope === 'function' ? receiveOptions.scope(fields) : receiveOptions.scope;
            if (scope !== null) bearer.assertScope(authenticated, scope);
            auth = authenticated;
            return authenticated.user;
          },
          hasCredential: (fields) => carriesCredential({ headers: request.headers, body: fields }, { trustProxy: config.trustProxy }),
        });
        // receiveMultipart authorises before it returns
        return { ...received, auth: auth! };
      },
    },
    webmention,
    profiles: createProfileService({ profiles: createProfilesRepository(db), clock }),
    events,
    jobs: jobWorker,
    outbound,
    secureCookies: config.baseUrl.startsWith('https:'),
  });
  app.decorate('indieweb', context);

  // the one route outside /indieweb: where RFC 8414 says clients look
  app.get('/.well-known/oauth-authorization-server', async (_request, reply) =>
    reply.header('cache-control', 'public, max-age=3600').header('access-control-allow-origin', '*').send(serverMetadata(config.baseUrl)),
  );

  await app.register(
    async (child) => {
      child.get('/metadata', async (_request, reply) => reply.header('cache-control', 'public, max-age=3600').send(serverMetadata(config.baseUrl)));
      await registerBodyParsers(child, { bodyLimit: config.maxBodyBytes, limits: config.limits });
      child.setErrorHandler(defaultErrorHandler);
      // an early answer (401/413 before a multipart body ends, a 404 with a body) closes the connection, in both modes
      closeUnreadBodies(child);
      await child.register(accountRoutes);
      await child.register(webmentionRoutes);
      await child.register(profileRoutes);
      await child.register(adminRoutes);
      await child.register(indieauthRoutes);
      await child.register(async (resource) => {
        resource.setErrorHandler(notImplementedHandler);
        // any other body type reaches the routes unread, which answer 401/403/400 in the spec's order
        resource.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
        deferJsonErrors(resource, { bodyLimit: config.maxBodyBytes, limits: config.limits });
        await resource.register(micropubRoutes);
        await resource.register(mediaRoutes);
      });
    },
    { prefix: '/indieweb' },
  );
}

/**
 * The indiestack Fastify plugin.
 * @example
 * ```ts
 * const database = createDatabase({ kind: 'sqlite', filename: './data/indiestack.sqlite' });
 * await migrateToLatest(database.db);
 * await app.register(indieweb, { database, accounts });
 * ```
 */
export const indieweb = fp(indiewebPlugin, { name: 'indiestack', fastify: '5.x' });
