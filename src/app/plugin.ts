/**
 * The mountable Fastify plugin, and the composition root: storage, then the
 * features (each built by its factory from explicit dependencies), then
 * registration. The outer function is wrapped with fastify-plugin so the
 * `indieweb` decorator is visible to the host; routes, parsers and error
 * handlers live in an encapsulated child under `/indieweb` and never leak
 * into the host application.
 * @module
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { createAccounts } from '../accounts/feature.js';
import { createAdmin } from '../admin/feature.js';
import { CITE_MAX_BYTES } from '../admin/write/cite.js';
import { createEntries } from '../entries/feature.js';
import { loadEntryTemplates, type EntryPagesOption } from '../entries/load-templates.js';
import type { Config } from '../config/config.js';
import { loadConfig } from '../config/env.js';
import { resolveSecret } from '../config/secret.js';
import type { Accounts } from '../contracts/accounts.js';
import type { MediaStorage } from '../contracts/media-storage.js';
import type { MicropubHandler } from '../contracts/micropub-handler.js';
import type { ClientIdValidator, UrlPolicy } from '../contracts/policies.js';
import { systemClock, type Clock } from '../core/clock.js';
import { NO_METER } from '../core/meter.js';
import { createSigner } from '../core/signing.js';
import { createMetrics } from '../operations/metrics/metrics.js';
import { addRequestMetrics } from '../operations/metrics/http.js';
import { selfTestRoutes } from '../operations/doctor/http.js';
import { createDoctorService } from '../operations/doctor/service.js';
import { createIndieAuth } from '../indieauth/feature.js';
import { createMedia, openMediaStorage } from '../media/feature.js';
import { createMediaHooks } from '../media/hooks.js';
import { loadContent } from '../content/content.js';
import { createMicropub } from '../micropub/feature.js';
import { createOutbound } from '../outbound/fetch.js';
import { createProfile } from '../profile/feature.js';
import type { DatabaseHandle } from '../storage/connect.js';
import { createStores } from '../storage/stores.js';
import { deferJsonErrors, registerBodyParsers } from '../web/body-parsers.js';
import { closeUnreadBodies } from '../web/client-errors.js';
import { createCsrf } from '../web/csrf.js';
import { defaultErrorHandler } from '../web/error-handler.js';
import { stylesheetRoute } from '../web/ui/stylesheet.js';
import type { WebmentionReceivedEvent } from '../webmention/events.js';
import { createWebmention } from '../webmention/feature.js';
import { createJobWorker } from '../jobs/worker.js';
import { handlerKindOf } from '../content/load-handler.js';
import { resolveSendMode } from '../webmention/publish/sender.js';
import './augment.js';
import type { IndieWebContext } from './context.js';

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
  /**
   * Serve IndieAuth server metadata at `/.well-known/oauth-authorization-server`
   * of the host's root, where RFC 8414 clients look for it. Pass false when
   * the host serves that path itself; the same document is always at
   * `/indieweb/metadata`, which the `indieauth-metadata` link can name instead.
   * A host that already has the route keeps it: indiestack then skips its own.
   * @defaultValue true
   */
  wellKnown?: boolean;
  /**
   * Serve the entries of the database handler as pages at the host's root
   * (`/{user}/`, `/{user}/{yyyy}/{MM}/{slug}/`, feeds): `true`, or an object
   * whose `templates` replace the built-in ones (docs/entry-pages.md).
   * @defaultValue false (standalone: on when the database handler is configured)
   */
  entryPages?: EntryPagesOption;
  /** @defaultValue the system clock */
  clock?: Clock;
}

async function indiewebPlugin(app: FastifyInstance, options: IndieWebPluginOptions): Promise<void> {
  const config = options.config ?? loadConfig({ env: {} });
  const clock = options.clock ?? systemClock;
  const signer = createSigner(options.secret ?? resolveSecret(config.secret, config.dataDir));
  const secureCookies = config.baseUrl.startsWith('https:');
  const { database } = options;
  const log = app.log;

  // storage
  const stores = createStores(database);
  // metrics: only when a scraper may read them (INDIEWEB_METRICS_TOKEN)
  const metrics =
    config.metricsToken === null
      ? null
      : createMetrics({ webmentions: stores.webmentions, jobs: stores.jobs, clock, onCollectError: (error) => log.warn({ err: error }, 'metrics: a gauge could not be read') });
  const meter = metrics?.meter ?? NO_METER;

  // features
  const csrf = createCsrf({ signer, clock, secureCookies });
  const accounts = createAccounts({ host: options.accounts, repository: stores.users, passkeyStores: { passkeys: stores.passkeys, challenges: stores.webauthnChallenges }, config, signer, clock, csrf, secureCookies });
  const profile = createProfile({ repository: stores.profiles, clock, users: accounts.users, baseUrl: config.baseUrl });
  const indieauth = await createIndieAuth({
    config,
    clock,
    stores,
    database,
    accounts: accounts.accounts,
    ownAccounts: options.accounts === undefined,
    profiles: profile.service,
    csrf,
    clientIdValidator: options.clientIdValidator,
    log,
    meter,
  });
  const mediaStorage = options.storage ?? (await openMediaStorage(config));
  const content = await loadContent({
    config,
    handler: options.handler,
    urlPolicy: options.urlPolicy,
    mediaHooks: createMediaHooks({ media: stores.media, storage: mediaStorage }),
    database: { entries: stores.entries, clock },
    log,
  });
  const media = createMedia({ config, clock, storage: mediaStorage, repository: stores.media, bearer: indieauth.bearer, content, meter });
  // one job worker; features register their job kinds with it
  const jobs = createJobWorker({ jobs: stores.jobs, clock, leaseSeconds: config.jobLeaseSeconds, log });
  const webmention = createWebmention({
    config,
    jobs,
    clock,
    stores,
    accounts: accounts.accounts,
    handler: content.handler,
    signer,
    onWebmentionReceived: options.onWebmentionReceived,
    sendOnPublish: resolveSendMode(config.webmentionSendOnPublish, handlerKindOf(config, options.handler)),
    bearer: indieauth.bearer,
    log,
    meter,
  });
  // entries published through Micropub send webmentions (INDIEWEB_WEBMENTION_SEND_ON_PUBLISH)
  const micropub = createMicropub({ config, content, bearer: indieauth.bearer, media, meter, ...(webmention.onPublished === undefined ? {} : { onPublished: webmention.onPublished }) });
  webmention.events.on('webmention_received', () => meter.webmentionReceived());
  // the admin's Write area looks at the pages a post cites (title, author)
  const writeOutbound = createOutbound({ allowPrivateNetworks: config.allowPrivateNetworks, timeoutMs: config.outboundTimeout * 1000, maxBytes: CITE_MAX_BYTES, onOutcome: meter.outboundFetch });
  // the admin's "Check my setup" (a secret passed to the plugin counts as set)
  const doctor = createDoctorService({ config: { ...config, secret: options.secret ?? config.secret }, database, jobs: stores.jobs, storage: mediaStorage, clock, meter });
  const admin = createAdmin({
    accounts: accounts.accounts,
    users: accounts.users,
    passkeys: accounts.passkeys,
    proofs: accounts.proofs,
    signInThrottle: accounts.signInThrottle,
    csrf,
    baseUrl: config.baseUrl,
    tokens: indieauth.tokens,
    clientInfo: indieauth.clientInfo,
    profiles: profile.service,
    webmentions: webmention.service,
    webmentionTokens: webmention.readTokens,
    webmentionModeration: webmention.moderation,
    webhooks: webmention.webhooks,
    webmentionSending: { sender: webmention.publishing, mode: webmention.sendMode },
    media: media.library,
    mediaUpload: media.formUpload,
    mediaLimits: config.media,
    uploads: { pipeline: media.pipeline, limits: config.media, fieldBytes: config.maxBodyBytes, requestLimits: config.limits },
    outbound: writeOutbound,
    doctor,
  });

  const entries = createEntries({
    enabled: options.entryPages !== undefined && options.entryPages !== false,
    entries: stores.entries,
    findUserByName: async (name) => {
      if (accounts.users !== null) return accounts.users.findByName(name);
      const everyone = (await options.accounts?.listUsers?.()) ?? [];
      return everyone.find((user) => user.name === name) ?? null;
    },
    profiles: profile.service,
    listMentions: (filter) => webmention.service.listPublic(filter),
    countMentions: (target) => webmention.service.countPublic(target),
    baseUrl: config.baseUrl,
    templates: await loadEntryTemplates(options.entryPages, config, log),
  });

  // register: lifecycle, the public decorator, the routes
  app.addHook('onReady', async () => {
    if (options.worker !== false) jobs.start();
    await webmention.start();
  });
  // uploads cut off by a kill left partial files and spool directories: removed in the background once old enough
  app.addHook('onReady', async () => {
    media
      .sweepLeftovers()
      .then((swept) => {
        if (swept.partialFiles + swept.spoolDirs > 0) log.info(swept, 'removed what killed uploads left behind');
      })
      .catch((error: unknown) => log.warn({ err: error }, 'could not sweep upload leftovers'));
  });
  app.addHook('onClose', async () => {
    await jobs.stop();
    await webmention.close();
    await indieauth.close();
    await writeOutbound.close();
    await doctor.close();
  });

  const decorator: IndieWebContext = Object.freeze({
    config,
    accounts: accounts.accounts,
    users: accounts.users,
    passkeys: accounts.passkeys,
    tokens: indieauth.tokens,
    profiles: profile.service,
    webmention: webmention.service,
    webmentionTokens: webmention.readTokens,
    webmentionModeration: webmention.moderation,
    webhooks: webmention.webhooks,
    events: webmention.events,
    jobs,
    indieauth: { bearer: indieauth.bearer },
    media: { repository: media.repository },
    metrics,
  });
  app.decorate('indieweb', decorator);

  // the one route outside /indieweb: left out when the host asks, or when it has one already (no FST_ERR_DUPLICATED_ROUTE)
  // (in a scope of its own, so that its requests are counted while the host's are not)
  if (options.wellKnown !== false && !app.hasRoute({ method: 'GET', url: '/.well-known/oauth-authorization-server' })) {
    await app.register(async (wellKnownScope) => {
      if (metrics !== null) addRequestMetrics(wellKnownScope, metrics);
      indieauth.addWellKnownRoute(wellKnownScope);
    });
  }
  // the entry pages live at the root too, when asked for (in their own scope: their errors get the pages' answers)
  await app.register(async (pagesScope) => {
    pagesScope.setErrorHandler(defaultErrorHandler);
    if (metrics !== null) addRequestMetrics(pagesScope, metrics);
    await entries.routes(pagesScope);
  });
  await app.register(
    async (child) => {
      indieauth.addMetadataRoute(child);
      await registerBodyParsers(child, { bodyLimit: config.maxBodyBytes, limits: config.limits });
      child.setErrorHandler(defaultErrorHandler);
      if (metrics !== null) addRequestMetrics(child, metrics);
      // the doctor's probe: whether a bearer arrives through the public URL (never its value)
      selfTestRoutes(child, { trustProxy: config.trustProxy });
      // an early answer (401/413 before a multipart body ends, a 404 with a body) closes the connection, in both modes
      closeUnreadBodies(child);
      stylesheetRoute(child);
      await child.register(accounts.routes);
      await child.register(webmention.routes);
      await child.register(profile.routes);
      await child.register(admin.routes);
      await child.register(indieauth.routes);
      // the resource endpoints: the token is checked before the body is refused
      await child.register(async (resource) => {
        resource.setErrorHandler(micropub.errorHandler);
        // any other body type reaches the routes unread, which answer 401/403/400 in the spec's order
        resource.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
        deferJsonErrors(resource, { bodyLimit: config.maxBodyBytes, limits: config.limits });
        await resource.register(micropub.routes);
        await resource.register(media.routes);
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
