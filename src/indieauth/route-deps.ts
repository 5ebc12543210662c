/**
 * What the IndieAuth routes are given by the feature factory (feature.ts).
 * @module
 */
import type { Accounts } from '../contracts/accounts.js';
import type { Config } from '../config/config.js';
import type { Clock } from '../core/clock.js';
import type { Meter } from '../core/meter.js';
import type { FailureThrottle } from '../core/throttle.js';
import type { Csrf } from '../web/csrf.js';
import type { ProfileService } from '../profile/service.js';
import type { AuthorizationService } from './authorize.js';
import type { BearerGuard } from './bearer.js';
import type { ClientInfoFetcher } from './client-info.js';
import type { ExchangeService } from './exchange.js';
import type { TokenService } from './token-service.js';

export interface IndieAuthRoutesDeps {
  readonly authorization: AuthorizationService;
  readonly exchange: ExchangeService;
  readonly tokens: TokenService;
  /** The resource guard, for token verification and userinfo. */
  readonly bearer: BearerGuard;
  /** What clients publish about themselves at their client_id. */
  readonly clientInfo: ClientInfoFetcher;
  readonly accounts: Accounts;
  readonly profiles: ProfileService;
  readonly csrf: Csrf;
  readonly clock: Clock;
  /** Code and refresh-token redemptions: a key per client address; off unless INDIEWEB_TOKEN_FREE_FAILURES is set. */
  readonly tokenThrottle: FailureThrottle;
  /** The `iss` of authorization responses: the base URL with a trailing slash. */
  readonly issuer: string;
  readonly config: Pick<Config, 'introspectionSecret' | 'trustProxy'>;
  /** Tokens issued and refused, for the metrics. */
  readonly meter: Meter;
}
