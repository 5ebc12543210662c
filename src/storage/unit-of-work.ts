import type { Kysely } from 'kysely';
import type { Database } from './schema.js';
import { createAuthCodesRepository, type AuthCodesRepository } from './repositories/auth-codes.js';
import { createTokensRepository, type TokensRepository } from './repositories/tokens.js';
import { createUsersRepository, type UsersRepository } from './repositories/users.js';
import { createRefreshTokensRepository, type RefreshTokensRepository } from './repositories/refresh-tokens.js';

export interface Repositories {
  readonly users: UsersRepository;
  readonly tokens: TokensRepository;
  readonly authCodes: AuthCodesRepository;
  readonly refreshTokens: RefreshTokensRepository;
}

/** Runs work against repositories bound to one transaction: all of it lands, or none. */
export type Transactor = <T>(work: (repositories: Repositories) => Promise<T>) => Promise<T>;

export function createRepositories(db: Kysely<Database>): Repositories {
  return {
    users: createUsersRepository(db),
    tokens: createTokensRepository(db),
    authCodes: createAuthCodesRepository(db),
    refreshTokens: createRefreshTokensRepository(db),
  };
}

export function createTransactor(db: Kysely<Database>): Transactor {
  return (work) => db.transaction().execute((trx) => work(createRepositories(trx)));
}
