import { createUserService, type UserService } from '../accounts/user-service.js';
import type { Config } from '../config/config.js';
import { loadConfig, type ConfigOverrides } from '../config/env.js';
import { systemClock } from '../core/clock.js';
import { openDatabase } from '../storage/open.js';
import { createTokenService, type TokenService } from '../indieauth/token-service.js';
import type { DatabaseHandle } from '../storage/connect.js';
import { createRefreshTokensRepository } from '../storage/repositories/refresh-tokens.js';
import { createTokensRepository } from '../storage/repositories/tokens.js';
import { createTransactor } from '../storage/unit-of-work.js';
import { createUsersRepository } from '../storage/repositories/users.js';
import type { CliIo } from './io.js';
import { findStandaloneUser } from '../accounts/standalone-accounts.js';

export interface CliServices {
  readonly config: Config;
  readonly database: DatabaseHandle;
  readonly users: UserService;
  readonly tokens: TokenService;
}

export function configFrom(io: CliIo, overrides: ConfigOverrides = {}): Config {
  return loadConfig({ env: io.env, cwd: io.cwd, overrides });
}

/** Opens (and migrates) the configured database, runs `work`, and always closes it. */
export async function withServices<T>(io: CliIo, work: (services: CliServices) => Promise<T>): Promise<T> {
  const config = configFrom(io);
  const database = await openDatabase(config);
  try {
    const usersRepository = createUsersRepository(database.db);
    return await work({
      config,
      database,
      users: createUserService({ users: usersRepository, clock: systemClock }),
      tokens: createTokenService({
        tokens: createTokensRepository(database.db),
        refreshTokens: createRefreshTokensRepository(database.db),
        transact: createTransactor(database.db),
        findUser: findStandaloneUser(usersRepository),
        clock: systemClock,
      }),
    });
  } finally {
    await database.close();
  }
}
