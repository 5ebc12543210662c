/**
 * The mountable Fastify plugin. The outer function is wrapped with
 * fastify-plugin so the `indieweb` decorator is visible to the host; routes,
 * parsers and error handlers live in an encapsulated child under `/indieweb`
 * and never leak into the host application.
 * @module
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { MicropubHandler } from '../contracts/micropub-handler.js';
import type { NewEntry } from '../contracts/micropub-types.js';
import type { UrlPolicy } from '../contracts/policies.js';
import { UnsupportedMediaTypeError } from '../core/errors.js';
import { resolveHandler } from '../micropub/load-handler.js';
import { parseFormPost } from '../micropub/parse-request.js';
import { serverManagedSet } from '../micropub/properties.js';
import { resourceErrorHandler } from '../micropub/responses.js';
import { micropubRoutes } from '../micropub/routes.js';
import { createUrlPolicyCheck } from '../micropub/url-policy.js';
import fp from 'fastify-plugin';
import { accountRoutes } from '../accounts/routes.js';
import { createSigner } from '../accounts/signing.js';
import { createStandaloneAccounts } from '../accounts/standalone-accounts.js';
import { createUserService } from '../accounts/user-service.js';
import type { Config } from '../config/config.js';
import { loadConfig } from '../config/env.js';
import { resolveSecret } from '../config/secret.js';
import type { Accounts } from '../contracts/accounts.js';
import { systemClock, type Clock } from '../core/clock.js';
import { createTokenService } from '../indieauth/token-service.js';
import { createAuthorizationService } from '../indieauth/authorize.js';
import { createBearerGuard } from '../indieauth/bearer.js';
import { createClientPolicy } from '../indieauth/client-policy.js';
import { createExchangeService } from '../indieauth/exchange.js';
import { indieauthRoutes } from '../indieauth/routes.js';
import { loadCallable, type LoadedCallable } from '../config/load-callable.js';
import type { ClientIdValidator } from '../contracts/policies.js';
import { createAuthCodesRepository } from '../storage/repositories/auth-codes.js';
import { createTransactor } from '../storage/unit-of-work.js';
import type { DatabaseHandle } from '../storage/connect.js';
import { createTokensRepository } from '../storage/repositories/tokens.js';
import { createUsersRepository } from '../storage/repositories/users.js';
import './augment.js';
import { registerBodyParsers } from './body-parsers.js';
import type { IndieWebContext } from './context.js';
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
  /** Decides whether a submitted URL may reach the handler. Overrides `config.micropubUrlPolicy`. */
  urlPolicy?: UrlPolicy;
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

async function indiewebPlugin(app: FastifyInstance, options: IndieWebPluginOptions): Promise<void> {
  const config = options.config ?? loadConfig({ env: {} });
  const clock = options.clock ?? systemClock;
  const signer = createSigner(options.secret ?? resolveSecret(config.secret, config.dataDir));
  const { db } = options.database;
  const usersRepository = createUsersRepository(db);
  const users = options.accounts === undefined ? createUserService({ users: usersRepository, clock }) : null;
  const accounts = options.accounts ?? createStandaloneAccounts({ users: usersRepository, signer, clock, baseUrl: config.baseUrl });

  const clientPolicy = createClientPolicy({
    allowedClientIds: config.allowedClientIds,
    validator: await resolveValidator(options, config, app),
    onValidatorError: (error) => app.log.warn({ err: error }, 'client_id validator failed; client refused'),
  });
  const tokens = createTokenService({ tokens: createTokensRepository(db), findUser: (id) => accounts.findUser(id), clock });
  const authCodes = createAuthCodesRepository(db);

  const { handler, inMemory } = await resolveHandler(config, options.handler, process.cwd());
  if (inMemory) app.log.warn('micropub: using the in-memory handler; entries are lost on restart');
  let urlPolicy: LoadedCallable<UrlPolicy> | null = options.urlPolicy === undefined ? null : { ok: true, fn: options.urlPolicy };
  if (urlPolicy === null && config.micropubUrlPolicy !== null) {
    urlPolicy = await loadCallable<UrlPolicy>(config.micropubUrlPolicy, process.cwd());
    if (!urlPolicy.ok) app.log.error({ err: urlPolicy.error, specifier: config.micropubUrlPolicy }, 'micropub URL policy cannot be loaded; requests that need it answer 500');
  }

  const context: IndieWebContext = Object.freeze({
    config,
    database: options.database,
    clock,
    signer,
    accounts,
    users,
    tokens,
    indieauth: {
      authorization: createAuthorizationService({ authCodes, clientPolicy, clock, codeLifetime: config.authCodeExpiresIn }),
      exchange: createExchangeService({
        authCodes,
        transact: createTransactor(db),
        tokens,
        clientPolicy,
        findUser: (id) => accounts.findUser(id),
        clock,
        tokenLifetime: config.tokenExpiresIn,
      }),
      bearer: createBearerGuard({ tokens, clientPolicy, trustProxy: config.trustProxy }),
      clientPolicy,
      config: { issuer: `${config.baseUrl}/` },
    },
    micropub: {
      handler,
      mediaEndpoint: `${config.baseUrl}/indieweb/media/`,
      serverManaged: serverManagedSet(config.micropubServerManagedProperties),
      urlPolicy: createUrlPolicyCheck(urlPolicy),
      parseFormLike: async (request: FastifyRequest, bodyType: 'form' | 'multipart') => {
        if (bodyType === 'multipart') throw new UnsupportedMediaTypeError('multipart is not supported yet');
        return parseFormPost((request.body ?? {}) as Record<string, unknown>);
      },
      attachUploads: async (_request: FastifyRequest, entry: NewEntry) => entry,
    },
    secureCookies: config.baseUrl.startsWith('https:'),
  });
  app.decorate('indieweb', context);

  await app.register(
    async (child) => {
      await registerBodyParsers(child, { bodyLimit: config.maxBodyBytes });
      child.setErrorHandler(defaultErrorHandler);
      await child.register(accountRoutes);
      await child.register(indieauthRoutes);
      await child.register(async (resource) => {
        resource.setErrorHandler(resourceErrorHandler);
        await resource.register(micropubRoutes);
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
