/**
 * The accounts feature: the host's {@link Accounts}, or indiestack's own
 * (the users table, the signed session cookie and the sign-in pages).
 * @module
 */
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config/config.js';
import type { Accounts } from '../contracts/accounts.js';
import type { Clock } from '../core/clock.js';
import type { Signer } from '../core/signing.js';
import { createFailureThrottle, type FailureThrottle } from '../core/throttle.js';
import type { PasskeysRepository } from '../storage/repositories/passkeys.js';
import type { UsersRepository } from '../storage/repositories/users.js';
import type { WebauthnChallengesRepository } from '../storage/repositories/webauthn-challenges.js';
import type { Csrf } from '../web/csrf.js';
import { createSessionProofs, type SessionProofs } from './fresh-proof.js';
import { createPasskeyService, type PasskeyService } from './passkeys/service.js';
import { createPasswordHasher } from './passwords.js';
import { accountRoutes } from './routes.js';
import { createStandaloneAccounts } from './standalone-accounts.js';
import { createUserService, type UserService } from './user-service.js';

export interface AccountsFeature {
  /** Who is signed in, and who owns a token: the host's accounts, else our own. */
  readonly accounts: Accounts;
  /** The built-in accounts; null when the host passed its own {@link Accounts}. */
  readonly users: UserService | null;
  /** Passkeys of the built-in accounts; null when the host passed its own {@link Accounts}. */
  readonly passkeys: PasskeyService | null;
  /** When the person of a session last proved who they are (built-in accounts only; null with the host's accounts). */
  readonly proofs: SessionProofs | null;
  /** Failed password attempts (sign-in, the account page's password change), counted in this instance's memory (docs/security.md "Throttles"). */
  readonly signInThrottle: FailureThrottle;
  /** Login, logout and the account home; registers nothing when the host brings its own accounts. */
  readonly routes: (app: FastifyInstance) => Promise<void>;
}

export function createAccounts(deps: {
  /** The host's accounts (plugin mode); undefined for our own. */
  host: Accounts | undefined;
  repository: UsersRepository;
  /** Passkeys and the challenges of ceremonies in progress (the built-in accounts only). */
  passkeyStores: { passkeys: PasskeysRepository; challenges: WebauthnChallengesRepository };
  config: Pick<Config, 'baseUrl' | 'maxConcurrentHashes' | 'signInThrottle'>;
  signer: Signer;
  clock: Clock;
  csrf: Csrf;
  secureCookies: boolean;
}): AccountsFeature {
  const { host, repository, config, signer, clock, csrf, secureCookies } = deps;
  const { baseUrl } = config;
  const users = host === undefined ? createUserService({ users: repository, clock, passwords: createPasswordHasher({ maxConcurrent: config.maxConcurrentHashes }) }) : null;
  const passkeys = host === undefined ? createPasskeyService({ ...deps.passkeyStores, users: repository, clock, baseUrl, signer }) : null;
  const accounts = host ?? createStandaloneAccounts({ users: repository, signer, clock, baseUrl });
  const proofs = host === undefined ? createSessionProofs({ signer, clock, secureCookies }) : null;
  const signInThrottle = createFailureThrottle({ freeFailures: config.signInThrottle.freeFailures, maxDelaySeconds: config.signInThrottle.maxDelay, clock });
  return {
    accounts,
    users,
    passkeys,
    proofs,
    signInThrottle,
    routes: async (app) => {
      if (users !== null && passkeys !== null) await accountRoutes(app, { accounts, users, passkeys, csrf, signer, clock, signInThrottle, baseUrl, secureCookies });
    },
  };
}
