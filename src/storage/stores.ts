/**
 * Every repository over one open database, made once by the app root and
 * handed to each feature as the few it needs. Repositories only query; they
 * hold no state of their own.
 * @module
 */
import type { DatabaseHandle } from './connect.js';
import { createAuthCodesRepository, type AuthCodesRepository } from './repositories/auth-codes.js';
import { createEntriesRepository, type EntriesRepository } from './repositories/entries.js';
import { createJobsRepository, type JobsRepository } from './repositories/jobs.js';
import { createMediaRepository, type MediaRepository } from './repositories/media.js';
import { createPasskeysRepository, type PasskeysRepository } from './repositories/passkeys.js';
import { createProfilesRepository, type ProfilesRepository } from './repositories/profiles.js';
import { createRefreshTokensRepository, type RefreshTokensRepository } from './repositories/refresh-tokens.js';
import { createTokensRepository, type TokensRepository } from './repositories/tokens.js';
import { createUsersRepository, type UsersRepository } from './repositories/users.js';
import { createWebauthnChallengesRepository, type WebauthnChallengesRepository } from './repositories/webauthn-challenges.js';
import { createWebmentionsRepository, type WebmentionsRepository } from './repositories/webmentions.js';
import { createWebmentionAccountsRepository, type WebmentionAccountsRepository } from './repositories/webmention-accounts.js';
import { createWebmentionRulesRepository, type WebmentionRulesRepository } from './repositories/webmention-rules.js';
import { createWebhookDeliveriesRepository, type WebhookDeliveriesRepository } from './repositories/webhook-deliveries.js';
import { createWebmentionOutgoingRepository, type WebmentionOutgoingRepository } from './repositories/webmention-outgoing.js';
import { createSyndicationRepository, type SyndicationRepository } from './repositories/syndication.js';
import { createTransactor, type Transactor } from './unit-of-work.js';

/** Runs work against the webmention and job repositories bound to one transaction: all of it lands, or none. */
export type WebmentionTransactor = <T>(
  work: (repositories: { webmentions: WebmentionsRepository; jobs: JobsRepository }) => Promise<T>,
) => Promise<T>;

/** Runs work against the sent-on-publish webmentions and their jobs bound to one transaction. */
export type OutgoingTransactor = <T>(
  work: (repositories: { outgoing: WebmentionOutgoingRepository; jobs: JobsRepository }) => Promise<T>,
) => Promise<T>;

/** Runs work against the syndication rows and their jobs bound to one transaction. */
export type SyndicationTransactor = <T>(
  work: (repositories: { syndication: SyndicationRepository; jobs: JobsRepository }) => Promise<T>,
) => Promise<T>;

export interface Stores {
  readonly users: UsersRepository;
  readonly tokens: TokensRepository;
  readonly refreshTokens: RefreshTokensRepository;
  readonly authCodes: AuthCodesRepository;
  readonly media: MediaRepository;
  readonly profiles: ProfilesRepository;
  readonly webmentions: WebmentionsRepository;
  readonly jobs: JobsRepository;
  /** Entries of the built-in `database` Micropub handler. */
  readonly entries: EntriesRepository;
  /** Per account: the webmention API read token and the webhook. */
  readonly webmentionAccounts: WebmentionAccountsRepository;
  /** Block and allow lists of webmention sources. */
  readonly webmentionRules: WebmentionRulesRepository;
  /** Webhook deliveries and their outcomes. */
  readonly webhookDeliveries: WebhookDeliveriesRepository;
  /** Webmentions sent on publish and their outcomes. */
  readonly webmentionOutgoing: WebmentionOutgoingRepository;
  readonly passkeys: PasskeysRepository;
  readonly webauthnChallenges: WebauthnChallengesRepository;
  /** Syndication targets (sealed credentials) and each entry's copies on them. */
  readonly syndication: SyndicationRepository;
  /** One transaction over users, tokens, refresh tokens and codes. */
  readonly transact: Transactor;
  /** One transaction over webmentions and their jobs. */
  readonly transactWebmentions: WebmentionTransactor;
  /** One transaction over webmentions sent on publish and their jobs. */
  readonly transactOutgoing: OutgoingTransactor;
  /** One transaction over syndication rows and their jobs. */
  readonly transactSyndication: SyndicationTransactor;
}

export function createStores(database: DatabaseHandle): Stores {
  const { db, dialect } = database;
  return {
    users: createUsersRepository(db),
    tokens: createTokensRepository(db),
    refreshTokens: createRefreshTokensRepository(db),
    authCodes: createAuthCodesRepository(db),
    media: createMediaRepository(db),
    profiles: createProfilesRepository(db),
    webmentions: createWebmentionsRepository(db),
    jobs: createJobsRepository(db, dialect),
    entries: createEntriesRepository(db),
    webmentionAccounts: createWebmentionAccountsRepository(db),
    webmentionRules: createWebmentionRulesRepository(db),
    webhookDeliveries: createWebhookDeliveriesRepository(db),
    webmentionOutgoing: createWebmentionOutgoingRepository(db),
    passkeys: createPasskeysRepository(db),
    webauthnChallenges: createWebauthnChallengesRepository(db),
    syndication: createSyndicationRepository(db),
    transact: createTransactor(db),
    transactWebmentions: (work) =>
      db.transaction().execute((trx) => work({ webmentions: createWebmentionsRepository(trx), jobs: createJobsRepository(trx, dialect) })),
    transactOutgoing: (work) =>
      db
        .transaction()
        .execute((trx) => work({ outgoing: createWebmentionOutgoingRepository(trx), jobs: createJobsRepository(trx, dialect) })),
    transactSyndication: (work) =>
      db.transaction().execute((trx) => work({ syndication: createSyndicationRepository(trx), jobs: createJobsRepository(trx, dialect) })),
  };
}
