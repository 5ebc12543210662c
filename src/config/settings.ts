/**
 * The settings table: every environment variable indiestack reads, each
 * declared once with its parser, default, documentation and key in
 * {@link Config}. loadConfig (env.ts), the README's configuration table
 * (`npm run docs:config`) and the unknown-name warning are all driven by it.
 *
 * Why a typed table of our own and not fastify's env-schema: env-schema
 * validates a flat object of variables with JSON Schema (ajv), so every
 * problem would be worded by ajv, not as the one quoted line per variable we
 * print (with passwords hidden); its result is keyed by variable name, so each
 * key of our nested Config would still need a mapping of its own; and `none`
 * limits, module specifiers, defaults derived from other settings (the base
 * URL from host and port, directories inside the data directory) and S3
 * variables read only for S3 storage are not JSON Schema ideas. Here tsc
 * checks each row's parser and default against the type at its key.
 *
 * Rows are in README order; the files in settings/ group them by area.
 * Value syntax: integers are seconds or bytes; `none` means "no limit" where
 * allowed; lists are comma- and/or whitespace-separated; booleans are
 * `true`/`false` (also `1`/`0`, `yes`/`no`, `on`/`off`).
 * @module
 */
import type { Setting } from './setting.js';
import { ENTRY_PAGE_SETTINGS } from './settings/entries.js';
import { FILES_SETTINGS } from './settings/files.js';
import { THROTTLE_SETTINGS, TOKEN_SETTINGS } from './settings/indieauth.js';
import { MEDIA_LIMIT_SETTINGS, MEDIA_STORAGE_SETTINGS } from './settings/media.js';
import { MICROPUB_SETTINGS } from './settings/micropub.js';
import { OPERATIONS_SETTINGS } from './settings/operations.js';
import { REQUEST_LIMIT_SETTINGS } from './settings/requests.js';
import { SERVER_SETTINGS } from './settings/server.js';
import { OUTBOUND_SETTINGS, WEBMENTION_SETTINGS } from './settings/webmention.js';
import type { Config } from './config.js';

export const SETTINGS_TABLE: readonly Setting[] = Object.freeze([
  ...SERVER_SETTINGS,
  ...TOKEN_SETTINGS,
  ...OUTBOUND_SETTINGS,
  ...THROTTLE_SETTINGS,
  ...REQUEST_LIMIT_SETTINGS,
  ...MICROPUB_SETTINGS,
  ...MEDIA_LIMIT_SETTINGS,
  ...WEBMENTION_SETTINGS,
  ...MEDIA_STORAGE_SETTINGS,
  ...FILES_SETTINGS,
  ...ENTRY_PAGE_SETTINGS,
  ...OPERATIONS_SETTINGS,
]);

/** A row of the README's configuration table. */
export interface SettingDoc {
  readonly name: string;
  readonly defaultValue: string;
  readonly description: string;
}

/** Every environment variable indiestack reads, with its default and meaning. */
export const SETTINGS: readonly SettingDoc[] = Object.freeze(
  SETTINGS_TABLE.map(({ name, shownDefault, description }) => ({ name, defaultValue: shownDefault, description })),
);

const KNOWN_NAMES = new Set(SETTINGS_TABLE.map((setting) => setting.name));

/** `INDIEWEB_*` names that are set but unknown (likely typos); reported as a warning, not an error. */
export function unknownSettingNames(env: Readonly<Record<string, string | undefined>>): string[] {
  return Object.keys(env).filter((name) => name.startsWith('INDIEWEB_') && !KNOWN_NAMES.has(name));
}
