/**
 * The IndieAuth feature: the authorization and token endpoints with their
 * services, over the token service, the client policy and the bearer guard
 * the core made (app/core.ts).
 * @module
 */
import { NO_METER, type Meter } from '../core/meter.js';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config/config.js';
import type { Accounts } from '../contracts/accounts.js';
import type { Clock } from '../core/clock.js';
import { createFailureThrottle } from '../core/throttle.js';
import { outboundFor } from '../outbound/fetch.js';
import type { ProfileService } from '../profile/service.js';
import type { Stores } from '../storage/stores.js';
import type { Csrf } from '../web/csrf.js';
import { createAuthorizationService } from './authorize.js';
import type { BearerGuard } from './bearer.js';
import { createClientInfoFetcher, type ClientInfoFetcher } from './client-info.js';
import type { ClientPolicy } from './client-policy.js';
import { createExchangeService } from './exchange.js';
import { serverMetadata } from './metadata.js';
import { indieauthRoutes } from './routes.js';
import type { TokenService } from './token-service.js';

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

export function createIndieAuth(deps: {
  config: Config;
  clock: Clock;
  stores: Pick<Stores, 'refreshTokens' | 'authCodes' | 'transact'>;
  accounts: Accounts;
  profiles: ProfileService;
  /** The core's: the token service, the client policy and the bearer guard. */
  tokens: TokenService;
  clientPolicy: ClientPolicy;
  bearer: BearerGuard;
  csrf: Csrf;
  /** @defaultValue counts nothing */
  meter?: Meter;
}): IndieAuthFeature {
  const { config, clock, stores, accounts, tokens, clientPolicy, bearer } = deps;
  const findUser = (id: string) => accounts.findUser(id);
  const meter = deps.meter ?? NO_METER;
  // client pages are fetched while a person waits on the consent screen: a tighter cap
  const clientOutbound = outboundFor(config, {
    timeoutMs: 3_000,
    maxBytes: 256 * 1024,
    onOutcome: meter.outboundFetch,
  });
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
    tokenThrottle: createFailureThrottle({
      freeFailures: config.tokenThrottle.freeFailures,
      maxDelaySeconds: config.tokenThrottle.maxDelay,
      clock,
    }),
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
        reply
          .header('cache-control', 'public, max-age=3600')
          .header('access-control-allow-origin', '*')
          .send(serverMetadata(config.baseUrl)),
      );
    },
    addMetadataRoute(app) {
      app.get('/metadata', async (_request, reply) =>
        reply.header('cache-control', 'public, max-age=3600').send(serverMetadata(config.baseUrl)),
      );
    },
    close: () => clientOutbound.close(),
  };
}
