/**
 * The mountable Fastify plugin, the HTTP door: it creates the core
 * (`core.ts`: every service once), adds the features only HTTP has
 * (`http-features.ts`), and registers their route scopes. The outer function is wrapped with fastify-plugin so the
 * `indieweb` decorator is visible to the host; routes, parsers and error
 * handlers live in an encapsulated child under `/indieweb` and never leak
 * into the host application.
 * @module
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { EntryPagesOption } from '../entries/load-templates.js';
import type { Config } from '../config/config.js';
import { loadConfig } from '../config/env.js';
import type { Accounts } from '../contracts/accounts.js';
import type { MediaStorage } from '../contracts/media-storage.js';
import type { MicropubHandler } from '../contracts/micropub-handler.js';
import type { ClientIdValidator, UrlPolicy } from '../contracts/policies.js';
import type { Clock } from '../core/clock.js';
import { addRequestMetrics } from '../operations/metrics/http.js';
import { selfTestRoutes } from '../operations/doctor/http.js';
import type { DatabaseHandle } from '../storage/connect.js';
import { deferJsonErrors, registerBodyParsers } from '../web/body-parsers.js';
import { closeUnreadBodies } from '../web/client-errors.js';
import { defaultErrorHandler } from '../web/error-handler.js';
import { stylesheetRoute } from '../web/ui/stylesheet.js';
import type { WebmentionReceivedEvent } from '../webmention/events.js';
import './augment.js';
import { createCore } from './core.js';
import { createHttpFeatures } from './http-features.js';
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
  const log = app.log;
  // the core: every service once (core.ts); then the features only HTTP has (http-features.ts)
  const core = await createCore({
    config,
    database: options.database,
    clock: options.clock,
    log,
    door: 'server',
    secret: options.secret,
    accounts: options.accounts,
    clientIdValidator: options.clientIdValidator,
    handler: options.handler,
    storage: options.storage,
    urlPolicy: options.urlPolicy,
    onWebmentionReceived: options.onWebmentionReceived,
    worker: options.worker !== false,
  });
  const { accounts, profile, indieauth, media, micropub, webmention, admin, entries, close } = await createHttpFeatures(core, {
    hostAccounts: options.accounts,
    entryPages: options.entryPages,
  });
  const { metrics } = core;

  // register: lifecycle, the public decorator, the routes
  app.addHook('onReady', async () => core.start());
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
    await core.close();
    await close();
  });

  const decorator: IndieWebContext = Object.freeze({
    config,
    accounts: core.accounts,
    users: core.users,
    passkeys: accounts.passkeys,
    tokens: core.tokens,
    profiles: core.profiles,
    webmention: webmention.service,
    webmentionTokens: webmention.readTokens,
    webmentionModeration: webmention.moderation,
    webhooks: webmention.webhooks,
    events: webmention.events,
    jobs: core.jobs,
    indieauth: { bearer: (await core.access()).bearer },
    media: { repository: media.repository },
    syndication: (await core.syndication()).service,
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
