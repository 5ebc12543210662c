/**
 * The IndieAuth feature: the authorization and token endpoints with their
 * services, the token service, the client policy, and the bearer guard the
 * resource endpoints (Micropub, media) depend on.
 * @module
 */
import { NO_METER, type Meter } from '../core/meter.js';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Config } from '../config/config.js';
import { loadCallable, type LoadedCallable } from '../config/load-callable.js';
import type { Accounts } from '../contracts/accounts.js';
import type { ClientIdValidator } from '../contracts/policies.js';
import type { Clock } from '../core/clock.js';
import { createFailureThrottle } from '../core/throttle.js';
import { createOutbound } from '../outbound/fetch.js';
import type { ProfileService } from '../profile/service.js';
import type { DatabaseHandle } from '../storage/connect.js';
import type { Stores } from '../storage/stores.js';
import type { Csrf } from '../web/csrf.js';
import { createAuthorizationService } from './authorize.js';
import { createBearerGuard, type BearerGuard } from './bearer.js';
import { createClientInfoFetcher, type ClientInfoFetcher } from './client-info.js';
import { createClientPolicy } from './client-policy.js';
import { createExchangeService } from './exchange.js';
import { serverMetadata } from './metadata.js';
import { indieauthRoutes } from './routes.js';
import { createTokenService, type TokenService } from './token-service.js';

export interface IndieAuthFeature {
  readonly tokens: TokenService;
  /** The resource guard Micropub and media use. */
  readonly bearer: BearerGuard;
  /** What a client says about itself at its client_id URL (name, logo), cached; the consent and Apps pages show it. */
  readonly clientInfo: ClientInfoFetcher;
  /** `/auth/`, `/auth/consent/`, `/token/` (with refresh, revocation, introspection) and `/userinfo`. */
  readonly routes: (app: FastifyInstance) => Promise<void>;
  /** Adds `/.well-known/oauth-authorization-server` to `app` itself: where RFC 8414 says clients look. */
  addWellKnownRoute(app: FastifyInstance): void;
  /** Adds `/metadata`, the same document, to `app` itself. */
  addMetadataRoute(app: FastifyInstance): void;
  /** Closes the client-page fetcher. */
  close(): Promise<void>;
}

async function resolveValidator(given: ClientIdValidator | undefined, specifier: string | null, log: FastifyBaseLogger): Promise<LoadedCallable<ClientIdValidator> | null> {
  if (given !== undefined) return { ok: true, fn: given };
  if (specifier === null) return null;
  const loaded = await loadCallable<ClientIdValidator>(specifier, process.cwd());
  // spec: a validator that cannot be imported fails closed on every request; boot goes on
  if (!loaded.ok) log.warn({ err: loaded.error, specifier }, 'client_id validator cannot be loaded; every client is refused');
  return loaded;
}

export async function createIndieAuth(deps: {
  config: Config;
  clock: Clock;
  stores: Pick<Stores, 'tokens' | 'refreshTokens' | 'authCodes' | 'transact'>;
  /** For the token service's memory of validated tokens (the database's change stamp). */
  database: DatabaseHandle;
  accounts: Accounts;
  /** True when the accounts live in our own database (not the host's). */
  ownAccounts: boolean;
  profiles: ProfileService;
  csrf: Csrf;
  /** Overrides `config.clientIdValidator` (plugin mode). */
  clientIdValidator: ClientIdValidator | undefined;
  log: FastifyBaseLogger;
  /** @defaultValue counts nothing */
  meter?: Meter;
}): Promise<IndieAuthFeature> {
  const { config, clock, stores, database, accounts, log } = deps;
  const findUser = (id: string) => accounts.findUser(id);
  const clientPolicy = createClientPolicy({
    allowedClientIds: config.allowedClientIds,
    validator: await resolveValidator(deps.clientIdValidator, config.clientIdValidator, log),
    onValidatorError: (error) => log.warn({ err: error }, 'client_id validator failed; client refused'),
  });
  const tokens = createTokenService({
    tokens: stores.tokens,
    refreshTokens: stores.refreshTokens,
    transact: stores.transact,
    findUser,
    clock,
    // a host's accounts can change where our database does not see it: nothing is remembered then
    ...(deps.ownAccounts ? { changeStamp: () => database.changeStamp() } : {}),
  });
  if (deps.ownAccounts) {
    database.onChangeFeed((event) => {
      if (event.kind === 'lost') log.warn({ err: event.error ?? undefined }, 'token memory: lost the database connection that hears of revocations; every token is looked up until it is back');
      else log.info('token memory: hearing of revocations again');
    });
  }
  const meter = deps.meter ?? NO_METER;
  const bearer = createBearerGuard({ tokens, clientPolicy, trustProxy: config.trustProxy, meter });
  // client pages are fetched while a person waits on the consent screen: a tighter cap
  const clientOutbound = createOutbound({ allowPrivateNetworks: config.allowPrivateNetworks, timeoutMs: 3_000, maxBytes: 256 * 1024, onOutcome: meter.outboundFetch });
  const metadata = serverMetadata(config.baseUrl);
  const clientInfo = createClientInfoFetcher({ outbound: clientOutbound, clock });
  const routeDeps = {
    authorization: createAuthorizationService({ authCodes: stores.authCodes, clientPolicy, clock, codeLifetime: config.authCodeExpiresIn }),
    exchange: createExchangeService({
      authCodes: stores.authCodes,
      refreshTokens: stores.refreshTokens,
      transact: stores.transact,
      tokens,
      clientPolicy,
      findUser,
      clock,
      tokenLifetime: config.tokenExpiresIn,
      refreshLifetime: config.refreshTokenExpiresIn,
    }),
    tokens,
    bearer,
    clientInfo,
    accounts,
    profiles: deps.profiles,
    csrf: deps.csrf,
    clock,
    tokenThrottle: createFailureThrottle({ freeFailures: config.tokenThrottle.freeFailures, maxDelaySeconds: config.tokenThrottle.maxDelay, clock }),
    // RFC 9207: the iss of every authorization response is exactly the metadata's issuer
    issuer: metadata.issuer,
    config,
    meter,
  };
  return {
    tokens,
    bearer,
    clientInfo,
    routes: (app) => indieauthRoutes(app, routeDeps),
    addWellKnownRoute(app) {
      app.get('/.well-known/oauth-authorization-server', async (_request, reply) =>
        reply.header('cache-control', 'public, max-age=3600').header('access-control-allow-origin', '*').send(serverMetadata(config.baseUrl)),
      );
    },
    addMetadataRoute(app) {
      app.get('/metadata', async (_request, reply) => reply.header('cache-control', 'public, max-age=3600').send(serverMetadata(config.baseUrl)));
    },
    close: () => clientOutbound.close(),
  };
}
