/**
 * Rows of the settings table: where the standalone server listens and how
 * long it waits, where data lives, logging, the secret and the proxy.
 * @module
 */
import path from 'node:path';
import {
  DEFAULT_DATABASE_TIMEOUT_S,
  DEFAULT_DATA_DIR,
  DEFAULT_HOST,
  DEFAULT_PORT,
  DEFAULT_SERVER_LIMITS,
  LOG_FORMATS,
  LOG_LEVELS,
  SQLITE_FILE_NAME,
  type DatabaseLocation,
} from '../config.js';
import { baseUrl, boolean, databaseUrl, directory, integer, matching, oneOf, secret } from '../parsers.js';
import { defineSetting, type Setting } from '../setting.js';

/** The URL a listener is reached at; a wildcard address is shown as the loopback one. */
function listenerUrl(host: string, port: number): string {
  const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return `http://${shownHost}:${port}`;
}

export const SERVER_SETTINGS: readonly Setting[] = [
  defineSetting({
    name: 'INDIEWEB_BASE_URL',
    key: 'baseUrl',
    parser: baseUrl(),
    default: ({ get }) => listenerUrl(get('host'), get('port')),
    shownDefault: 'http://HOST:PORT',
    override: 'baseUrl',
    description: 'Public absolute URL the endpoints are advertised under (https in production).',
  }),
  defineSetting({
    name: 'INDIEWEB_HOST',
    key: 'host',
    parser: matching(/^[A-Za-z0-9.:_-]+$/, 'a host name or address'),
    default: DEFAULT_HOST,
    override: 'host',
    description: 'Address the standalone server listens on.',
  }),
  defineSetting({
    name: 'INDIEWEB_PORT',
    key: 'port',
    parser: integer({ min: 0, max: 65_535 }),
    default: DEFAULT_PORT,
    override: 'port',
    description: 'Port the standalone server listens on (0 picks a free one).',
  }),
  defineSetting({
    name: 'INDIEWEB_HEADERS_TIMEOUT',
    key: 'server.headersTimeout',
    parser: integer({ min: 1, max: 3600 }),
    default: DEFAULT_SERVER_LIMITS.headersTimeout,
    description: 'Seconds a client has to send a request head; slower ones get 408 and are disconnected (standalone server).',
  }),
  defineSetting({
    name: 'INDIEWEB_REQUEST_TIMEOUT',
    key: 'server.requestTimeout',
    parser: integer({ min: 1, max: 86_400 }),
    default: DEFAULT_SERVER_LIMITS.requestTimeout,
    description:
      'Seconds a client has to send a whole request, body included (uploads too); slower ones get 408 and are disconnected (standalone server).',
  }),
  defineSetting({
    name: 'INDIEWEB_KEEP_ALIVE_TIMEOUT',
    key: 'server.keepAliveTimeout',
    parser: integer({ min: 1, max: 3600 }),
    default: DEFAULT_SERVER_LIMITS.keepAliveTimeout,
    description: 'Seconds an idle keep-alive connection stays open (standalone server).',
  }),
  defineSetting({
    name: 'INDIEWEB_MAX_CONNECTIONS',
    key: 'server.maxConnections',
    parser: integer({ min: 1 }),
    default: DEFAULT_SERVER_LIMITS.maxConnections,
    description: 'Concurrent connections the standalone server accepts; more are closed at once.',
  }),
  defineSetting({
    name: 'INDIEWEB_SHUTDOWN_TIMEOUT',
    key: 'server.shutdownTimeout',
    parser: integer({ min: 0, max: 3600 }),
    default: DEFAULT_SERVER_LIMITS.shutdownTimeout,
    description: 'Seconds `serve` waits on SIGTERM/SIGINT for requests in flight before it closes their connections.',
  }),
  defineSetting({
    name: 'INDIEWEB_DATA_DIR',
    key: 'dataDir',
    parser: directory(),
    default: ({ cwd }) => path.resolve(cwd, DEFAULT_DATA_DIR),
    shownDefault: DEFAULT_DATA_DIR,
    override: 'dataDir',
    description: 'Directory for the SQLite file, the generated secret and local media.',
  }),
  defineSetting({
    name: 'INDIEWEB_DATABASE_URL',
    key: 'database',
    parser: databaseUrl(),
    default: ({ get }): DatabaseLocation => ({ kind: 'sqlite', filename: path.join(get('dataDir'), SQLITE_FILE_NAME) }),
    shownDefault: `DATA_DIR/${SQLITE_FILE_NAME}`,
    override: 'databaseUrl',
    description: '`postgres://…` selects PostgreSQL; `sqlite:PATH`, a plain path or `:memory:` selects SQLite.',
  }),
  defineSetting({
    name: 'INDIEWEB_DATABASE_TIMEOUT',
    key: 'databaseTimeout',
    parser: integer({ min: 1, max: 300 }),
    default: DEFAULT_DATABASE_TIMEOUT_S,
    description:
      'Seconds a request waits for the database (a PostgreSQL connection, a SQLite write lock held elsewhere) before it is answered 503; SQLite waits block the process, so keep it short.',
  }),
  defineSetting({
    name: 'INDIEWEB_LOG_LEVEL',
    key: 'logLevel',
    parser: oneOf(LOG_LEVELS),
    default: 'info',
    override: 'logLevel',
    description: `One of ${LOG_LEVELS.join(', ')}.`,
  }),
  defineSetting({
    name: 'INDIEWEB_LOG_FORMAT',
    key: 'logFormat',
    parser: oneOf(LOG_FORMATS),
    default: 'auto',
    description:
      'How `serve` writes its log to standard output: `pretty` (one readable line per event, coloured on a terminal unless NO_COLOR is set), `json` (one JSON object per line, for log collectors), or `auto`: pretty on a terminal, JSON otherwise. Both show the same fields, secrets removed.',
  }),
  defineSetting({
    name: 'INDIEWEB_SECRET',
    key: 'secret',
    parser: secret(32),
    default: null,
    shownDefault: 'generated into DATA_DIR/secret',
    override: 'secret',
    description: 'Key (at least 32 characters) for session cookies and CSRF tokens; set the same value on every instance.',
  }),
  defineSetting({
    name: 'INDIEWEB_TRUST_PROXY',
    key: 'trustProxy',
    parser: boolean(),
    default: false,
    description: 'Trust `X-Forwarded-*` headers (and `X-Forwarded-Authorization`) from a reverse proxy.',
  }),
];
