import type { FastifyRequest } from 'fastify';
import type { Accounts } from '../contracts/accounts.js';
import type { Outbound } from '../outbound/fetch.js';
import type { ProfileService } from '../profile/service.js';
import type { WebmentionEvents } from '../webmention/events.js';
import type { WebmentionService } from '../webmention/service.js';
import type { JobWorker } from '../webmention/worker.js';
import type { LocalMediaStorage } from '../media/fs-storage.js';
import type { MultipartFields, ReceivedMultipart } from '../media/receive.js';
import type { BearerAuth } from '../indieauth/bearer.js';
import type { UploadPipeline } from '../media/upload.js';
import type { MediaRepository } from '../storage/repositories/media.js';
import type { MicropubHandler } from '../contracts/micropub-handler.js';
import type { UrlPolicyCheck } from '../micropub/url-policy.js';
import type { Config } from '../config/config.js';
import type { Clock } from '../core/clock.js';
import type { Signer } from '../accounts/signing.js';
import type { UserService } from '../accounts/user-service.js';
import type { TokenService } from '../indieauth/token-service.js';
import type { AuthorizationService } from '../indieauth/authorize.js';
import type { BearerGuard } from '../indieauth/bearer.js';
import type { ClientPolicy } from '../indieauth/client-policy.js';
import type { ClientInfoFetcher } from '../indieauth/client-info.js';
import type { ExchangeService } from '../indieauth/exchange.js';
import type { DatabaseHandle } from '../storage/connect.js';
import type { FailureThrottle } from '../core/throttle.js';

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
  /** Failure throttles, counted in this instance's memory (docs/security.md "Throttles"). */
  readonly throttles: {
    /** The sign-in form and the account page's password change: keys per client address and per account name. */
    readonly signIn: FailureThrottle;
    /** Code and refresh-token redemptions: a key per client address; off unless INDIEWEB_TOKEN_FREE_FAILURES is set. */
    readonly token: FailureThrottle;
  };
  readonly indieauth: {
    readonly authorization: AuthorizationService;
    readonly exchange: ExchangeService;
    /** The resource guard Micropub and media use. */
    readonly bearer: BearerGuard;
    readonly clientPolicy: ClientPolicy;
    /** What clients publish about themselves at their client_id. */
    readonly clientInfo: ClientInfoFetcher;
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
  };
  readonly media: {
    readonly pipeline: UploadPipeline;
    readonly repository: MediaRepository;
    /** The built-in local storage, whose files indiestack serves; null with any other storage. */
    readonly localStorage: LocalMediaStorage | null;
    /**
     * Reads a multipart request: authenticates before the first file (or at
     * the end, when the token comes after the files), checks `scope` (a
     * function of the fields gets them; null leaves the scope to the caller),
     * stores accepted file parts.
     */
    receive(
      request: FastifyRequest,
      options: { acceptsFile: (name: string, fields: MultipartFields) => boolean; scope: string | ((fields: MultipartFields) => string | null) },
    ): Promise<ReceivedMultipart & { readonly auth: BearerAuth }>;
  };
  readonly webmention: WebmentionService;
  readonly profiles: ProfileService;
  /** Typed events; `webmention_received` fires for every accepted submission. */
  readonly events: WebmentionEvents;
  /** The background job worker (webmention verification). */
  readonly jobs: JobWorker;
  /** The guarded HTTP client for everything the server fetches. */
  readonly outbound: Outbound;
  /** True when cookies must carry `Secure` (the base URL is https). */
  readonly secureCookies: boolean;
}
