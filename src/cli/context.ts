import { existsSync } from 'node:fs';
import { createUserService, type UserService } from '../accounts/user-service.js';
import type { Config, ConfigOverrides } from '../config/config.js';
import { loadConfig } from '../config/env.js';
import { systemClock } from '../core/clock.js';
import { DatabaseUnavailableError, describeDatabase, openDatabase } from '../storage/open.js';
import { createTokenService, type TokenService } from '../indieauth/token-service.js';
import type { DatabaseHandle } from '../storage/connect.js';
import { createRefreshTokensRepository } from '../storage/repositories/refresh-tokens.js';
import { createTokensRepository } from '../storage/repositories/tokens.js';
import { createTransactor } from '../storage/unit-of-work.js';
import { createUsersRepository } from '../storage/repositories/users.js';
import type { CliIo } from './io.js';
import { ConfigError } from '../core/errors.js';
import { findStandaloneUser } from '../accounts/standalone-accounts.js';

export interface CliServices {
  readonly config: Config;
  readonly database: DatabaseHandle;
  readonly users: UserService;
  readonly tokens: TokenService;
}

/** The settings: flags of the command, then the global flags, then the environment. */
export function configFrom(io: CliIo, overrides: ConfigOverrides = {}): Config {
  const given = Object.fromEntries(Object.entries(overrides).filter(([, value]) => value !== undefined)) as ConfigOverrides;
  const merged: ConfigOverrides = { ...io.overrides, ...given };
  try {
    return loadConfig({ env: io.env, cwd: io.cwd, overrides: merged });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    // a problem with a value the person typed as a flag names the flag, not the variable they did not set
    throw new ConfigError(
      error.problems.map((problem) => {
        const flag = FLAG_OF_SETTING.find(([name, key]) => problem.startsWith(`${name}:`) && merged[key] !== undefined);
        return flag === undefined ? problem : `--${flag[2]}${problem.slice(flag[0].length)}`;
      }),
    );
  }
}

/** Settings that have a command-line flag: variable, override key, flag. */
const FLAG_OF_SETTING: readonly (readonly [string, keyof ConfigOverrides, string])[] = [
  ['INDIEWEB_BASE_URL', 'baseUrl', 'base-url'],
  ['INDIEWEB_DATA_DIR', 'dataDir', 'data-dir'],
  ['INDIEWEB_HOST', 'host', 'host'],
  ['INDIEWEB_PORT', 'port', 'port'],
];

/**
 * Opens (and migrates) the configured database, runs `work`, and always
 * closes it. Only a command that creates (`user add`) may start a new SQLite
 * file, and says so on stderr; every other command refuses a file that does
 * not exist and names where it looked — run in the wrong directory, it would
 * otherwise print an empty list or "no user named …".
 */
export async function withServices<T>(io: CliIo, work: (services: CliServices) => Promise<T>, options: { create?: boolean } = {}): Promise<T> {
  const config = configFrom(io);
  const where = describeDatabase(config);
  const missing = config.database.kind === 'sqlite' && config.database.filename !== ':memory:' && !existsSync(config.database.filename);
  if (missing && options.create !== true) {
    throw new DatabaseUnavailableError(where, { cause: new Error('no such file; run this where `indiestack serve` runs, or give --data-dir or INDIEWEB_DATABASE_URL') });
  }
  if (missing) io.stderr.write(`indiestack: creating a new database at ${where}\n`);
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
