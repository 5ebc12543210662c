import type { Config, ConfigOverrides } from '../config/config.js';
import { loadConfig } from '../config/env.js';
import type { CliIo } from './io.js';
import { ConfigError } from '../core/errors.js';

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
