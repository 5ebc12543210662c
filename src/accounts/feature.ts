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
import type { Csrf } from '../web/csrf.js';
import { createSessionProofs, type SessionProofs } from './fresh-proof.js';
import type { PasskeyService } from './passkeys/service.js';
import { accountRoutes } from './routes.js';
import type { UserService } from './user-service.js';

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
  /** The core's: the accounts in use, and the built-in users and passkeys (null with the host's accounts). */
  accounts: Accounts;
  users: UserService | null;
  passkeys: PasskeyService | null;
  config: Pick<Config, 'baseUrl' | 'signInThrottle'>;
  signer: Signer;
  clock: Clock;
  csrf: Csrf;
  secureCookies: boolean;
}): AccountsFeature {
  const { accounts, users, passkeys, config, signer, clock, csrf, secureCookies } = deps;
  const { baseUrl } = config;
  const proofs = users !== null ? createSessionProofs({ signer, clock, secureCookies }) : null;
  const signInThrottle = createFailureThrottle({
    freeFailures: config.signInThrottle.freeFailures,
    maxDelaySeconds: config.signInThrottle.maxDelay,
    clock,
  });
  return {
    accounts,
    users,
    passkeys,
    proofs,
    signInThrottle,
    routes: async (app) => {
      if (users !== null && passkeys !== null)
        await accountRoutes(app, { accounts, users, passkeys, csrf, signer, clock, signInThrottle, baseUrl, secureCookies });
    },
  };
}
