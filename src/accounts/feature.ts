/**
 * The accounts feature: the host's {@link Accounts}, or indiestack's own
 * (the users table, the signed session cookie and the sign-in pages).
 * @module
 */
import type { FastifyInstance } from 'fastify';
import type { Accounts } from '../contracts/accounts.js';
import type { Clock } from '../core/clock.js';
import type { Signer } from '../core/signing.js';
import type { UsersRepository } from '../storage/repositories/users.js';
import type { Csrf } from '../web/csrf.js';
import { accountRoutes } from './routes.js';
import { createStandaloneAccounts } from './standalone-accounts.js';
import { createUserService, type UserService } from './user-service.js';

export interface AccountsFeature {
  /** Who is signed in, and who owns a token: the host's accounts, else our own. */
  readonly accounts: Accounts;
  /** The built-in accounts; null when the host passed its own {@link Accounts}. */
  readonly users: UserService | null;
  /** Login, logout and the account home; registers nothing when the host brings its own accounts. */
  readonly routes: (app: FastifyInstance) => Promise<void>;
}

export function createAccounts(deps: {
  /** The host's accounts (plugin mode); undefined for our own. */
  host: Accounts | undefined;
  repository: UsersRepository;
  signer: Signer;
  clock: Clock;
  csrf: Csrf;
  baseUrl: string;
  secureCookies: boolean;
}): AccountsFeature {
  const { host, repository, signer, clock, csrf, baseUrl, secureCookies } = deps;
  const users = host === undefined ? createUserService({ users: repository, clock }) : null;
  const accounts = host ?? createStandaloneAccounts({ users: repository, signer, clock, baseUrl });
  return {
    accounts,
    users,
    routes: async (app) => {
      if (users !== null) await accountRoutes(app, { accounts, users, csrf, signer, clock, baseUrl, secureCookies });
    },
  };
}
