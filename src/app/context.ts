import type { PasskeyService } from '../accounts/passkeys/service.js';
import type { UserService } from '../accounts/user-service.js';
import type { Config } from '../config/config.js';
import type { Accounts } from '../contracts/accounts.js';
import type { BearerGuard } from '../indieauth/bearer.js';
import type { TokenService } from '../indieauth/token-service.js';
import type { ProfileService } from '../profile/service.js';
import type { MediaRepository } from '../storage/repositories/media.js';
import type { ReadTokens } from '../webmention/api/read-tokens.js';
import type { WebmentionEvents } from '../webmention/events.js';
import type { ModerationService } from '../webmention/moderation-service.js';
import type { Webhooks } from '../webmention/webhooks.js';
import type { WebmentionService } from '../webmention/service.js';
import type { JobWorker } from '../jobs/worker.js';
import type { Metrics } from '../operations/metrics/metrics.js';
import type { SyndicationService } from '../syndication/service.js';

/**
 * What the plugin hangs on the host's Fastify instance as `indieweb`: the
 * settled configuration and the services a host's own code (its routes,
 * templates, jobs and tests) may call. The routes get their dependencies
 * from the feature factories, never from here.
 */
export interface IndieWebContext {
  readonly config: Config;
  /** The accounts in use: the host's, or the built-in ones. */
  readonly accounts: Accounts;
  /** The built-in accounts; null when the host passed its own {@link Accounts}. */
  readonly users: UserService | null;
  /** Passkeys of the built-in accounts (list, remove, passkey-only sign-in); null with the host's accounts. */
  readonly passkeys: PasskeyService | null;
  /** Issue, list, validate and revoke access tokens. */
  readonly tokens: TokenService;
  /** Read and update a user's h-card. */
  readonly profiles: ProfileService;
  /** Receive, list, moderate and reprocess webmentions. */
  readonly webmention: WebmentionService;
  /** The read tokens of the webmention.io-compatible API, per account. */
  readonly webmentionTokens: ReadTokens;
  /** Approve and reject mentions; block and allow lists. */
  readonly webmentionModeration: ModerationService;
  /** Per-account webhooks and their delivery log. */
  readonly webhooks: Webhooks;
  /** Typed events; `webmention_received` fires for every accepted submission. */
  readonly events: WebmentionEvents;
  /** The one background job worker: the kinds features registered (`kinds()`: webmention verification, webhook delivery, sending); `drain()` runs due jobs now. */
  readonly jobs: JobWorker;
  readonly indieauth: {
    /** The resource guard Micropub and media use, for a host's own token-protected routes. */
    readonly bearer: BearerGuard;
  };
  readonly media: {
    /** The uploads indiestack stored, by user. */
    readonly repository: MediaRepository;
  };
  /** Syndication (POSSE): the user's targets on Mastodon and Bluesky, entries' copies there, status and retry. */
  readonly syndication: SyndicationService;
  /** The metrics of this instance; null unless `config.metricsToken` is set. Serve them with `addMetricsRoute` (docs/operations.md). */
  readonly metrics: Metrics | null;
}
