import type { FastifyRequest } from 'fastify';
import type { Accounts, HostUser } from '../contracts/accounts.js';
import type { MicropubHandler } from '../contracts/micropub-handler.js';
import type { NewEntry } from '../contracts/micropub-types.js';
import type { MicropubPost } from '../micropub/parse-request.js';
import type { UrlPolicyCheck } from '../micropub/url-policy.js';
import type { Config } from '../config/config.js';
import type { Clock } from '../core/clock.js';
import type { Signer } from '../accounts/signing.js';
import type { UserService } from '../accounts/user-service.js';
import type { TokenService } from '../indieauth/token-service.js';
import type { AuthorizationService } from '../indieauth/authorize.js';
import type { BearerGuard } from '../indieauth/bearer.js';
import type { ClientPolicy } from '../indieauth/client-policy.js';
import type { ExchangeService } from '../indieauth/exchange.js';
import type { DatabaseHandle } from '../storage/connect.js';

/** What every feature of the plugin shares; hung on the Fastify instance as `indieweb`. */
export interface IndieWebContext {
  readonly config: Config;
  readonly database: DatabaseHandle;
  readonly clock: Clock;
  readonly signer: Signer;
  readonly accounts: Accounts;
  /** The built-in accounts; null when the host passed its own {@link Accounts}. */
  readonly users: UserService | null;
  readonly tokens: TokenService;
  readonly indieauth: {
    readonly authorization: AuthorizationService;
    readonly exchange: ExchangeService;
    /** The resource guard Micropub and media use. */
    readonly bearer: BearerGuard;
    readonly clientPolicy: ClientPolicy;
    readonly config: {
      /** The `iss` of authorization responses: the base URL with a trailing slash. */
      readonly issuer: string;
    };
  };
  readonly micropub: {
    readonly handler: MicropubHandler;
    /** Absolute URL of the media endpoint. */
    readonly mediaEndpoint: string;
    readonly serverManaged: ReadonlySet<string>;
    readonly urlPolicy: UrlPolicyCheck;
    /** Form or multipart body → a Micropub request (multipart files are kept for {@link attachUploads}). */
    parseFormLike(request: FastifyRequest, bodyType: 'form' | 'multipart'): Promise<MicropubPost>;
    /** Stores the request's uploaded files and appends their URLs to the entry. */
    attachUploads(request: FastifyRequest, entry: NewEntry, user: HostUser): Promise<NewEntry>;
  };
  /** True when cookies must carry `Secure` (the base URL is https). */
  readonly secureCookies: boolean;
}
