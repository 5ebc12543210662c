/**
 * Rows of the settings table: the Micropub content handler and the
 * callables a host plugs in (URL policy, client validator), the
 * server-managed properties and the client allow-list.
 *
 * `INDIEWEB_ALLOWED_CLIENT_IDS` holds exact client_id URLs, separated by
 * commas and/or whitespace; unset means no list.
 * @module
 */
import { parseStrictHttpUrl } from '../../core/url.js';
import { integerOrNone, list, moduleSpecifier } from '../parsers.js';
import { defineSetting, type Setting } from '../setting.js';

export const MICROPUB_SETTINGS: readonly Setting[] = [
  defineSetting({
    name: 'INDIEWEB_MICROPUB_HANDLER',
    key: 'micropubHandler',
    parser: moduleSpecifier(),
    default: null,
    shownDefault: 'memory',
    description:
      "Content handler as `./module.js#export` (default export without `#`): a handler object or a factory returning one; `memory` is the built-in in-memory handler (entries served at `BASE_URL/indieweb/entries/{slug}` while the server runs, lost on restart); `database` keeps entries in indiestack's own database (SQLite or PostgreSQL, shared by every instance) at `BASE_URL/{user}/{yyyy}/{MM}/{slug}/`; `files` writes Markdown files for a static site (INDIEWEB_FILES_*).",
  }),
  defineSetting({
    name: 'INDIEWEB_MEMORY_HANDLER_MAX_ENTRIES',
    key: 'memoryHandlerMaxEntries',
    parser: integerOrNone({ min: 1, max: 100_000_000 }),
    default: null,
    description:
      'In-memory handler only: the most entries it keeps (each costs about 0.5–1 KiB of memory plus its properties); past it the oldest entry is forgotten. `none` (default): no cap, memory grows with every entry ([docs/performance.md](docs/performance.md#memory)).',
  }),
  defineSetting({
    name: 'INDIEWEB_MICROPUB_SERVER_MANAGED_PROPERTIES',
    key: 'micropubServerManagedProperties',
    parser: list(),
    default: [],
    description: 'Property names clients may not set, added to `uid` and `author`.',
  }),
  defineSetting({
    name: 'INDIEWEB_MICROPUB_URL_POLICY',
    key: 'micropubUrlPolicy',
    parser: moduleSpecifier(),
    default: null,
    shownDefault: '(unset)',
    description: 'URL policy `(url, kind, request) => boolean` as `./module.js#export`.',
  }),
  defineSetting({
    name: 'INDIEWEB_CLIENT_ID_VALIDATOR',
    key: 'clientIdValidator',
    parser: moduleSpecifier(),
    default: null,
    shownDefault: '(unset)',
    description: 'Client validator `(clientId) => boolean` as `./module.js#export`; fails closed when it cannot be loaded.',
  }),
  defineSetting({
    name: 'INDIEWEB_ALLOWED_CLIENT_IDS',
    key: 'allowedClientIds',
    parser: list({
      check: (id) => (parseStrictHttpUrl(id) === null ? `"${id}" is not an http(s) URL without fragment or userinfo` : null),
    }),
    default: null,
    shownDefault: '(unset)',
    description: 'Exact client_id URLs allowed, comma- or whitespace-separated; unset means no list.',
  }),
];
