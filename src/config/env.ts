/**
 * The only module that reads the environment: {@link loadConfig} reads every
 * row of the settings table (settings.ts), runs the rules over several
 * settings (cross-checks.ts), and returns a frozen {@link Config} or reports
 * every problem at once.
 * @module
 */
import { ConfigError } from '../core/errors.js';
import { deepFreeze, type Config, type ConfigOverrides } from './config.js';
import { CROSS_CHECKS } from './cross-checks.js';
import { readSettings } from './read-settings.js';
import type { Setting } from './setting.js';
import { SETTINGS_TABLE } from './settings.js';
import { WEBMENTION_SETTINGS } from './settings/webmention.js';

export interface LoadConfigOptions {
  env?: Readonly<Record<string, string | undefined>>;
  overrides?: ConfigOverrides;
  cwd?: string;
}

/**
 * Problems are listed in table order and each rule's after its row, except for these rows,
 * whose problems have always come later: each is listed after the row it names.
 */
const REPORTED_AFTER: ReadonlyMap<string, string> = new Map([
  ['INDIEWEB_BASE_URL', 'INDIEWEB_DATA_DIR'],
  ['INDIEWEB_SIGNIN_FREE_ATTEMPTS', 'INDIEWEB_SIGNIN_MAX_DELAY'],
  ...WEBMENTION_SETTINGS.map((setting) => [setting.name, 'INDIEWEB_S3_TIMEOUT'] as const),
]);

/**
 * Builds the frozen {@link Config}. Every invalid value is collected and
 * reported at once in one {@link ConfigError}.
 */
export function loadConfig(options: LoadConfigOptions = {}): Config {
  const env = options.env ?? process.env;
  const overrides = options.overrides ?? {};
  const reading = readSettings(SETTINGS_TABLE, (setting) => rawValue(setting, env, overrides), options.cwd ?? process.cwd());
  const media = reading.config['media'] as { storage: { kind: string; credentials?: unknown } };
  // the S3 key pair: static credentials, or null for the AWS SDK's default chain (a lone key is a problem of CROSS_CHECKS)
  if (media.storage.kind === 's3') media.storage.credentials ??= null;
  const config = reading.config as unknown as Config;

  const problems = orderedProblems([
    ...SETTINGS_TABLE.map((setting) => ({
      after: REPORTED_AFTER.get(setting.name) ?? setting.name,
      moved: REPORTED_AFTER.has(setting.name),
      problems: reading.problemsOf(setting),
    })),
    ...CROSS_CHECKS.map((rule) => ({ after: rule.after, moved: true, problems: rule.check(config, reading.isSet) })),
  ]);
  if (problems.length > 0) throw new ConfigError(problems);
  return deepFreeze(config);
}

/** Problems listed by the row they follow; a row's own come before those moved after it, which keep their order. */
function orderedProblems(entries: readonly { after: string; moved: boolean; problems: readonly string[] }[]): string[] {
  const rows = new Map(SETTINGS_TABLE.map((setting, index) => [setting.name, index]));
  const place = (name: string): number => {
    const index = rows.get(name);
    if (index === undefined) throw new Error(`settings table: no row ${name}`);
    return index;
  };
  // Array.prototype.sort is stable
  return [...entries]
    .sort((a, b) => place(a.after) - place(b.after) || Number(a.moved) - Number(b.moved))
    .flatMap((entry) => entry.problems);
}

/** An override as given, or the variable trimmed; an unset or blank variable is not given. */
function rawValue(setting: Setting, env: Readonly<Record<string, string | undefined>>, overrides: ConfigOverrides): string | undefined {
  const override = setting.override === undefined ? undefined : overrides[setting.override];
  if (override !== undefined) return String(override);
  const value = env[setting.name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}
