/**
 * The only module that reads the environment. Every setting is documented
 * once, here; the README's configuration table is checked against
 * {@link SETTINGS} by a test.
 *
 * Value syntax: integers are seconds or bytes; `none` means "no limit" where
 * allowed; lists are comma- and/or whitespace-separated; booleans are
 * `true`/`false` (also `1`/`0`, `yes`/`no`).
 *
 * `INDIEWEB_ALLOWED_CLIENT_IDS` holds exact client_id URLs, separated by
 * commas and/or whitespace; unset means no list.
 * @module
 */
import path from 'node:path';
import { ConfigError } from '../core/errors.js';
import { DEFAULT_REQUEST_LIMITS } from '../core/request-limits.js';
import { parseStrictHttpUrl } from '../core/url.js';
import { filesTemplateProblems, filesUserDirProblem } from '../micropub/handlers/files/template-rules.js';
import {
  DEFAULT_AUTH_CODE_LIFETIME_S,
  DEFAULT_DATA_DIR,
  DEFAULT_FILES_GIT_REMOTE,
  DEFAULT_FILES_PATH_TEMPLATE,
  DEFAULT_FILES_SECTIONS,
  DEFAULT_FILES_URL_TEMPLATE,
  DEFAULT_FILES_USER_DIR,
  FILES_FRONT_MATTER_FORMATS,
  FILES_GIT_MODES,
  DEFAULT_HOST,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_DATABASE_TIMEOUT_S,
  DEFAULT_MAX_CONCURRENT_HASHES,
  DEFAULT_SIGNIN_FREE_ATTEMPTS,
  DEFAULT_THROTTLE_MAX_DELAY_S,
  DEFAULT_SERVER_LIMITS,
  DEFAULT_MEDIA_ALLOWED_TYPES,
  DEFAULT_MEDIA_MAX_UPLOAD_BYTES,
  DEFAULT_MEDIA_MAX_UPLOAD_COUNT,
  DEFAULT_MEDIA_MAX_UPLOAD_TOTAL_BYTES,
  DEFAULT_OUTBOUND_TIMEOUT_S,
  DEFAULT_PORT,
  DEFAULT_S3_TIMEOUT_S,
  DEFAULT_TOKEN_LIFETIME_S,
  DEFAULT_WEBMENTION_LIMITS,
  LOG_LEVELS,
  SQLITE_FILE_NAME,
  deepFreeze,
  type Config,
  type DatabaseLocation,
  type FilesConfig,
  type FilesTemplates,
  type MediaStorageConfig,
  type LogLevel,
} from './config.js';

export interface SettingDoc {
  readonly name: string;
  readonly defaultValue: string;
  readonly description: string;
}

/** Every environment variable indiestack reads, with its default and meaning. */
export const SETTINGS: readonly SettingDoc[] = Object.freeze([
  { name: 'INDIEWEB_BASE_URL', defaultValue: 'http://HOST:PORT', description: 'Public absolute URL the endpoints are advertised under (https in production).' },
  { name: 'INDIEWEB_HOST', defaultValue: DEFAULT_HOST, description: 'Address the standalone server listens on.' },
  { name: 'INDIEWEB_PORT', defaultValue: String(DEFAULT_PORT), description: 'Port the standalone server listens on (0 picks a free one).' },
  { name: 'INDIEWEB_HEADERS_TIMEOUT', defaultValue: String(DEFAULT_SERVER_LIMITS.headersTimeout), description: 'Seconds a client has to send a request head; slower ones get 408 and are disconnected (standalone server).' },
  { name: 'INDIEWEB_REQUEST_TIMEOUT', defaultValue: String(DEFAULT_SERVER_LIMITS.requestTimeout), description: 'Seconds a client has to send a whole request, body included (uploads too); slower ones get 408 and are disconnected (standalone server).' },
  { name: 'INDIEWEB_KEEP_ALIVE_TIMEOUT', defaultValue: String(DEFAULT_SERVER_LIMITS.keepAliveTimeout), description: 'Seconds an idle keep-alive connection stays open (standalone server).' },
  { name: 'INDIEWEB_MAX_CONNECTIONS', defaultValue: String(DEFAULT_SERVER_LIMITS.maxConnections), description: 'Concurrent connections the standalone server accepts; more are closed at once.' },
  { name: 'INDIEWEB_SHUTDOWN_TIMEOUT', defaultValue: String(DEFAULT_SERVER_LIMITS.shutdownTimeout), description: 'Seconds `serve` waits on SIGTERM/SIGINT for requests in flight before it closes their connections.' },
  { name: 'INDIEWEB_DATA_DIR', defaultValue: DEFAULT_DATA_DIR, description: 'Directory for the SQLite file, the generated secret and local media.' },
  { name: 'INDIEWEB_DATABASE_URL', defaultValue: `DATA_DIR/${SQLITE_FILE_NAME}`, description: '`postgres://…` selects PostgreSQL; `sqlite:PATH`, a plain path or `:memory:` selects SQLite.' },
  { name: 'INDIEWEB_DATABASE_TIMEOUT', defaultValue: String(DEFAULT_DATABASE_TIMEOUT_S), description: 'Seconds a request waits for the database (a PostgreSQL connection, a SQLite write lock held elsewhere) before it is answered 503; SQLite waits block the process, so keep it short.' },
  { name: 'INDIEWEB_LOG_LEVEL', defaultValue: 'info', description: `One of ${LOG_LEVELS.join(', ')}.` },
  { name: 'INDIEWEB_SECRET', defaultValue: 'generated into DATA_DIR/secret', description: 'Key (at least 32 characters) for session cookies and CSRF tokens; set the same value on every instance.' },
  { name: 'INDIEWEB_TRUST_PROXY', defaultValue: 'false', description: 'Trust `X-Forwarded-*` headers (and `X-Forwarded-Authorization`) from a reverse proxy.' },
  { name: 'INDIEWEB_AUTH_CODE_EXPIRES_IN', defaultValue: String(DEFAULT_AUTH_CODE_LIFETIME_S), description: 'Authorization code lifetime in seconds.' },
  { name: 'INDIEWEB_TOKEN_EXPIRES_IN', defaultValue: String(DEFAULT_TOKEN_LIFETIME_S), description: 'Access token lifetime in seconds.' },
  { name: 'INDIEWEB_REFRESH_TOKEN_EXPIRES_IN', defaultValue: '2592000', description: 'Lifetime in seconds of an unused refresh token (30 days); each use rotates it.' },
  { name: 'INDIEWEB_INTROSPECTION_SECRET', defaultValue: '(unset)', description: 'Bearer secret (at least 32 characters) a resource server presents to the introspection endpoint; without it only a token of the same owner may introspect.' },
  { name: 'INDIEWEB_ALLOW_PRIVATE_NETWORKS', defaultValue: 'false', description: 'Allow outbound fetches to private, loopback and link-local addresses (tests on one machine).' },
  { name: 'INDIEWEB_OUTBOUND_TIMEOUT', defaultValue: String(DEFAULT_OUTBOUND_TIMEOUT_S), description: 'Seconds the server\'s fetch of a webmention source may take in all (connecting, redirects, headers and body); a slower source fails that attempt and its job is retried later.' },
  { name: 'INDIEWEB_SIGNIN_FREE_ATTEMPTS', defaultValue: String(DEFAULT_SIGNIN_FREE_ATTEMPTS), description: 'Failed sign-ins (and wrong current passwords on the account page) per client address and per account name that cost no wait; after them each attempt waits 1 s, 2 s, 4 s … and is answered 429 with Retry-After until then; `none` switches this throttle off. Counted in each instance\'s memory.' },
  { name: 'INDIEWEB_SIGNIN_MAX_DELAY', defaultValue: String(DEFAULT_THROTTLE_MAX_DELAY_S), description: 'Longest wait in seconds the sign-in throttle (and the token endpoint throttle) imposes.' },
  { name: 'INDIEWEB_TOKEN_FREE_FAILURES', defaultValue: 'none', description: 'Failed code and refresh-token redemptions per client address that cost no wait; after them the token endpoint answers 429 with Retry-After as sign-in does. `none` (default) keeps SPEC.md\'s "no rate limiting".' },
  { name: 'INDIEWEB_MAX_CONCURRENT_HASHES', defaultValue: String(DEFAULT_MAX_CONCURRENT_HASHES), description: 'Password hashes (scrypt) computed at once; further sign-ins wait their turn, so file reads and DNS keep threads of libuv\'s pool (UV_THREADPOOL_SIZE, default 4).' },
  { name: 'INDIEWEB_MAX_BODY_BYTES', defaultValue: String(DEFAULT_MAX_BODY_BYTES), description: 'Largest form or JSON request body in bytes; larger ones get 413 (uploads have their own limits).' },
  { name: 'INDIEWEB_MAX_JSON_DEPTH', defaultValue: String(DEFAULT_REQUEST_LIMITS.jsonDepth), description: 'Deepest nesting of arrays and objects in a JSON body; deeper gives 400.' },
  { name: 'INDIEWEB_MAX_PROPERTIES', defaultValue: String(DEFAULT_REQUEST_LIMITS.properties), description: 'Keys in one JSON object and properties of one form or multipart Micropub create; more give 400.' },
  { name: 'INDIEWEB_MAX_PROPERTY_VALUES', defaultValue: String(DEFAULT_REQUEST_LIMITS.valuesPerProperty), description: 'Items in one JSON array (values of one property); more give 400.' },
  { name: 'INDIEWEB_MAX_FORM_FIELDS', defaultValue: String(DEFAULT_REQUEST_LIMITS.formFields), description: 'Parameters in a form-encoded body; more give 400.' },
  { name: 'INDIEWEB_MAX_MULTIPART_FIELDS', defaultValue: String(DEFAULT_REQUEST_LIMITS.multipartFields), description: 'Text fields in a multipart body (together at most INDIEWEB_MAX_BODY_BYTES); more give 413.' },
  { name: 'INDIEWEB_MAX_FIELD_NAME_BYTES', defaultValue: String(DEFAULT_REQUEST_LIMITS.fieldNameBytes), description: 'Bytes of one form or multipart field name or JSON key; longer gives 400.' },
  { name: 'INDIEWEB_MICROPUB_HANDLER', defaultValue: 'memory', description: 'Content handler as `./module.js#export` (default export without `#`): a handler object or a factory returning one; `memory` is the built-in in-memory handler (entries are lost on restart); `files` writes Markdown files for a static site (INDIEWEB_FILES_*).' },
  { name: 'INDIEWEB_MICROPUB_SERVER_MANAGED_PROPERTIES', defaultValue: '(none)', description: 'Property names clients may not set, added to `uid` and `author`.' },
  { name: 'INDIEWEB_MICROPUB_URL_POLICY', defaultValue: '(unset)', description: 'URL policy `(url, kind, request) => boolean` as `./module.js#export`.' },
  { name: 'INDIEWEB_CLIENT_ID_VALIDATOR', defaultValue: '(unset)', description: 'Client validator `(clientId) => boolean` as `./module.js#export`; fails closed when it cannot be loaded.' },
  { name: 'INDIEWEB_ALLOWED_CLIENT_IDS', defaultValue: '(unset)', description: 'Exact client_id URLs allowed, comma- or whitespace-separated; unset means no list.' },
  { name: 'INDIEWEB_MEDIA_MAX_UPLOAD_BYTES', defaultValue: String(DEFAULT_MEDIA_MAX_UPLOAD_BYTES), description: 'Bytes per uploaded file, or `none`.' },
  { name: 'INDIEWEB_MEDIA_MAX_UPLOAD_COUNT', defaultValue: String(DEFAULT_MEDIA_MAX_UPLOAD_COUNT), description: 'Files per request, or `none`.' },
  { name: 'INDIEWEB_MEDIA_MAX_UPLOAD_TOTAL_BYTES', defaultValue: String(DEFAULT_MEDIA_MAX_UPLOAD_TOTAL_BYTES), description: 'Bytes across all files of one request, or `none`.' },
  { name: 'INDIEWEB_MEDIA_ALLOWED_TYPES', defaultValue: 'common image, audio and video types', description: 'Allowed MIME types, comma- or whitespace-separated, or `none` to switch the allow-list off.' },
  { name: 'INDIEWEB_WEBMENTION_TARGET_HOSTS', defaultValue: '(none)', description: 'Extra host names that may receive webmentions, besides the base URL host and the hosts of the accounts\' profile URLs.' },
  { name: 'INDIEWEB_WEBMENTION_MAX_PENDING_PER_HOST', defaultValue: String(DEFAULT_WEBMENTION_LIMITS.maxPendingPerHost), description: 'Webmentions of one target host (`www.` ignored) that may wait for their first check; more are refused with 429 and `Retry-After` (nothing stored), or `none`.' },
  { name: 'INDIEWEB_WEBMENTION_RATE_LIMIT', defaultValue: 'none', description: 'Webmention submissions per minute from one client address (IPv6: one /64), counted per instance; more get 429 and `Retry-After`. Off (`none`) by default, as SPEC.md has no rate limiting.' },
  { name: 'INDIEWEB_WEBMENTION_SOURCE_RATE_LIMIT', defaultValue: 'none', description: 'Webmention submissions per minute naming one source host, counted per instance; more get 429 and `Retry-After`. Off (`none`) by default.' },
  { name: 'INDIEWEB_JOB_LEASE_SECONDS', defaultValue: '60', description: 'How long a background job (webmention verification) stays claimed before another worker may take it over after a crash.' },
  { name: 'INDIEWEB_MEDIA_DIR', defaultValue: 'DATA_DIR/media', description: 'Directory of the local media storage.' },
  { name: 'INDIEWEB_MEDIA_STORAGE', defaultValue: 'local', description: '`local` (files under INDIEWEB_MEDIA_DIR, served by indiestack) or `s3` (an S3-compatible bucket).' },
  { name: 'INDIEWEB_S3_BUCKET', defaultValue: '(unset)', description: 'Bucket for `s3` storage (required then).' },
  { name: 'INDIEWEB_S3_REGION', defaultValue: 'us-east-1', description: 'Region of the bucket.' },
  { name: 'INDIEWEB_S3_ENDPOINT', defaultValue: '(AWS)', description: 'Endpoint URL of an S3-compatible service (MinIO, Garage, R2…).' },
  { name: 'INDIEWEB_S3_FORCE_PATH_STYLE', defaultValue: 'false', description: 'Path-style addressing (`endpoint/bucket/key`), needed by most self-hosted services.' },
  { name: 'INDIEWEB_S3_PUBLIC_BASE_URL', defaultValue: 'ENDPOINT/BUCKET', description: 'Public URL prefix of stored objects: `{prefix}/indieweb/media/…`.' },
  { name: 'INDIEWEB_S3_ACCESS_KEY_ID', defaultValue: '(AWS default chain)', description: 'Access key; without it the AWS SDK finds credentials itself (AWS_* variables, profiles, roles).' },
  { name: 'INDIEWEB_S3_SECRET_ACCESS_KEY', defaultValue: '(AWS default chain)', description: 'Secret key belonging to INDIEWEB_S3_ACCESS_KEY_ID.' },
  { name: 'INDIEWEB_S3_TIMEOUT', defaultValue: String(DEFAULT_S3_TIMEOUT_S), description: 'Seconds one S3 request may wait for a connection, and then for data; a request is tried at most twice, so a silent endpoint fails an upload (500) after about three times this.' },
  { name: 'INDIEWEB_FILES_CONTENT_DIR', defaultValue: 'DATA_DIR/sites', description: 'Files handler: directory holding every account\'s site directory.' },
  { name: 'INDIEWEB_FILES_USER_DIR', defaultValue: DEFAULT_FILES_USER_DIR, description: 'Files handler: an account\'s site directory inside the content directory; `{user}` is the account name, `{id}` its id; `.` uses the content directory itself (then only one account may publish).' },
  { name: 'INDIEWEB_FILES_SITE_URL', defaultValue: '(first profile URL)', description: 'Files handler: public URL of the site the posts appear on (`{user}` allowed).' },
  { name: 'INDIEWEB_FILES_FRONT_MATTER', defaultValue: 'yaml', description: 'Files handler: `yaml` (between `---` lines) or `toml` (between `+++` lines).' },
  { name: 'INDIEWEB_FILES_PATH_TEMPLATE', defaultValue: DEFAULT_FILES_PATH_TEMPLATE, description: 'Files handler: file of a post inside the site directory; variables `{yyyy}` `{MM}` `{dd}` `{HH}` `{mm}` `{ss}` `{slug}` `{section}` (notes, articles, photos…) `{type}` (note, article…).' },
  { name: 'INDIEWEB_FILES_URL_TEMPLATE', defaultValue: DEFAULT_FILES_URL_TEMPLATE, description: 'Files handler: public URL of a post; starts with `{site}` and uses the same date and slug variables as the path template.' },
  { name: 'INDIEWEB_FILES_TEMPLATES', defaultValue: '(none)', description: 'Files handler: per post type overrides as `TYPE=PATH_TEMPLATE=URL_TEMPLATE`, comma- or whitespace-separated.' },
  { name: 'INDIEWEB_FILES_GIT', defaultValue: 'commit', description: 'Files handler: `off`, `commit` (one commit per operation when the site directory is a git repository) or `push` (commit, then push; a failed push is retried with the next operation).' },
  { name: 'INDIEWEB_FILES_GIT_REMOTE', defaultValue: DEFAULT_FILES_GIT_REMOTE, description: 'Files handler: remote name (or URL) that `push` mode pushes the current branch to.' },
]);

/** Longest lifetime of a code or token (10 years): timestamps stay four-digit years, so they sort as text. */
export const MAX_LIFETIME_S = 10 * 365 * 24 * 3600;

const KNOWN_NAMES = new Set(SETTINGS.map((setting) => setting.name));

/** Explicit values that win over the environment (CLI flags, plugin options). */
export interface ConfigOverrides {
  host?: string;
  port?: string | number;
  baseUrl?: string;
  dataDir?: string;
  databaseUrl?: string;
  logLevel?: string;
  secret?: string;
}

export interface LoadConfigOptions {
  env?: Readonly<Record<string, string | undefined>>;
  overrides?: ConfigOverrides;
  cwd?: string;
}

/** `INDIEWEB_*` names that are set but unknown (likely typos); reported as a warning, not an error. */
export function unknownSettingNames(env: Readonly<Record<string, string | undefined>>): string[] {
  return Object.keys(env).filter((name) => name.startsWith('INDIEWEB_') && !KNOWN_NAMES.has(name));
}

/**
 * Builds the frozen {@link Config}. Every invalid value is collected and
 * reported at once in one {@link ConfigError}.
 */
export function loadConfig(options: LoadConfigOptions = {}): Config {
  const env = options.env ?? process.env;
  const overrides = options.overrides ?? {};
  const cwd = options.cwd ?? process.cwd();
  const problems: string[] = [];
  const read = (name: string, override?: string | number): string | undefined => {
    if (override !== undefined) return String(override);
    const value = env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  };

  const host = read('INDIEWEB_HOST', overrides.host) ?? DEFAULT_HOST;
  if (!/^[A-Za-z0-9.:_-]+$/.test(host)) problems.push(`INDIEWEB_HOST: "${host}" is not a host name or address`);

  const port = parseInteger(problems, 'INDIEWEB_PORT', read('INDIEWEB_PORT', overrides.port), DEFAULT_PORT, { min: 0, max: 65_535 });
  const server = {
    headersTimeout: parseInteger(problems, 'INDIEWEB_HEADERS_TIMEOUT', read('INDIEWEB_HEADERS_TIMEOUT'), DEFAULT_SERVER_LIMITS.headersTimeout, { min: 1, max: 3600 }),
    requestTimeout: parseInteger(problems, 'INDIEWEB_REQUEST_TIMEOUT', read('INDIEWEB_REQUEST_TIMEOUT'), DEFAULT_SERVER_LIMITS.requestTimeout, { min: 1, max: 86_400 }),
    keepAliveTimeout: parseInteger(problems, 'INDIEWEB_KEEP_ALIVE_TIMEOUT', read('INDIEWEB_KEEP_ALIVE_TIMEOUT'), DEFAULT_SERVER_LIMITS.keepAliveTimeout, { min: 1, max: 3600 }),
    maxConnections: parseInteger(problems, 'INDIEWEB_MAX_CONNECTIONS', read('INDIEWEB_MAX_CONNECTIONS'), DEFAULT_SERVER_LIMITS.maxConnections, { min: 1 }),
    shutdownTimeout: parseInteger(problems, 'INDIEWEB_SHUTDOWN_TIMEOUT', read('INDIEWEB_SHUTDOWN_TIMEOUT'), DEFAULT_SERVER_LIMITS.shutdownTimeout, { min: 0, max: 3600 }),
  };
  if (server.headersTimeout > server.requestTimeout) problems.push('INDIEWEB_HEADERS_TIMEOUT: must not be longer than INDIEWEB_REQUEST_TIMEOUT');

  const dataDir = path.resolve(cwd, read('INDIEWEB_DATA_DIR', overrides.dataDir) ?? DEFAULT_DATA_DIR);

  const baseUrl = parseBaseUrl(problems, read('INDIEWEB_BASE_URL', overrides.baseUrl), host, port);
  const database = parseDatabaseUrl(problems, read('INDIEWEB_DATABASE_URL', overrides.databaseUrl), dataDir, cwd);
  const databaseTimeout = parseInteger(problems, 'INDIEWEB_DATABASE_TIMEOUT', read('INDIEWEB_DATABASE_TIMEOUT'), DEFAULT_DATABASE_TIMEOUT_S, { min: 1, max: 300 });

  const logLevelRaw = read('INDIEWEB_LOG_LEVEL', overrides.logLevel) ?? 'info';
  const logLevel = (LOG_LEVELS as readonly string[]).includes(logLevelRaw) ? (logLevelRaw as LogLevel) : 'info';
  if (logLevel !== logLevelRaw) problems.push(`INDIEWEB_LOG_LEVEL: "${logLevelRaw}" is not one of ${LOG_LEVELS.join(', ')}`);

  const secret = read('INDIEWEB_SECRET', overrides.secret) ?? null;
  if (secret !== null && secret.length < 32) problems.push('INDIEWEB_SECRET: must be at least 32 characters');

  const trustProxy = parseBoolean(problems, 'INDIEWEB_TRUST_PROXY', read('INDIEWEB_TRUST_PROXY'), false);
  const authCodeExpiresIn = parseInteger(problems, 'INDIEWEB_AUTH_CODE_EXPIRES_IN', read('INDIEWEB_AUTH_CODE_EXPIRES_IN'), DEFAULT_AUTH_CODE_LIFETIME_S, { min: 1, max: MAX_LIFETIME_S });
  const tokenExpiresIn = parseInteger(problems, 'INDIEWEB_TOKEN_EXPIRES_IN', read('INDIEWEB_TOKEN_EXPIRES_IN'), DEFAULT_TOKEN_LIFETIME_S, { min: 1, max: MAX_LIFETIME_S });
  const refreshTokenExpiresIn = parseInteger(problems, 'INDIEWEB_REFRESH_TOKEN_EXPIRES_IN', read('INDIEWEB_REFRESH_TOKEN_EXPIRES_IN'), 30 * 24 * 3600, { min: 1, max: MAX_LIFETIME_S });
  const introspectionSecret = read('INDIEWEB_INTROSPECTION_SECRET') ?? null;
  if (introspectionSecret !== null && introspectionSecret.length < 32) problems.push('INDIEWEB_INTROSPECTION_SECRET: must be at least 32 characters');
  const allowPrivateNetworks = parseBoolean(problems, 'INDIEWEB_ALLOW_PRIVATE_NETWORKS', read('INDIEWEB_ALLOW_PRIVATE_NETWORKS'), false);
  const outboundTimeout = parseInteger(problems, 'INDIEWEB_OUTBOUND_TIMEOUT', read('INDIEWEB_OUTBOUND_TIMEOUT'), DEFAULT_OUTBOUND_TIMEOUT_S, { min: 1, max: 600 });

  const throttleMaxDelay = parseInteger(problems, 'INDIEWEB_SIGNIN_MAX_DELAY', read('INDIEWEB_SIGNIN_MAX_DELAY'), DEFAULT_THROTTLE_MAX_DELAY_S, { min: 1, max: 86_400 });
  const signInThrottle = { freeFailures: parseFreeFailures(problems, 'INDIEWEB_SIGNIN_FREE_ATTEMPTS', read('INDIEWEB_SIGNIN_FREE_ATTEMPTS'), DEFAULT_SIGNIN_FREE_ATTEMPTS), maxDelay: throttleMaxDelay };
  const tokenThrottle = { freeFailures: parseFreeFailures(problems, 'INDIEWEB_TOKEN_FREE_FAILURES', read('INDIEWEB_TOKEN_FREE_FAILURES'), null), maxDelay: throttleMaxDelay };
  // libuv's pool holds at most 1024 threads
  const maxConcurrentHashes = parseInteger(problems, 'INDIEWEB_MAX_CONCURRENT_HASHES', read('INDIEWEB_MAX_CONCURRENT_HASHES'), DEFAULT_MAX_CONCURRENT_HASHES, { min: 1, max: 1024 });

  const maxBodyBytes = parseInteger(problems, 'INDIEWEB_MAX_BODY_BYTES', read('INDIEWEB_MAX_BODY_BYTES'), DEFAULT_MAX_BODY_BYTES, { min: 1024 });
  const limits = {
    jsonDepth: parseInteger(problems, 'INDIEWEB_MAX_JSON_DEPTH', read('INDIEWEB_MAX_JSON_DEPTH'), DEFAULT_REQUEST_LIMITS.jsonDepth, { min: 8, max: 1000 }),
    properties: parseInteger(problems, 'INDIEWEB_MAX_PROPERTIES', read('INDIEWEB_MAX_PROPERTIES'), DEFAULT_REQUEST_LIMITS.properties, { min: 10 }),
    valuesPerProperty: parseInteger(problems, 'INDIEWEB_MAX_PROPERTY_VALUES', read('INDIEWEB_MAX_PROPERTY_VALUES'), DEFAULT_REQUEST_LIMITS.valuesPerProperty, { min: 10 }),
    formFields: parseInteger(problems, 'INDIEWEB_MAX_FORM_FIELDS', read('INDIEWEB_MAX_FORM_FIELDS'), DEFAULT_REQUEST_LIMITS.formFields, { min: 10 }),
    multipartFields: parseInteger(problems, 'INDIEWEB_MAX_MULTIPART_FIELDS', read('INDIEWEB_MAX_MULTIPART_FIELDS'), DEFAULT_REQUEST_LIMITS.multipartFields, { min: 10 }),
    fieldNameBytes: parseInteger(problems, 'INDIEWEB_MAX_FIELD_NAME_BYTES', read('INDIEWEB_MAX_FIELD_NAME_BYTES'), DEFAULT_REQUEST_LIMITS.fieldNameBytes, { min: 32 }),
  };
  const micropubHandler = parseSpecifier(problems, 'INDIEWEB_MICROPUB_HANDLER', read('INDIEWEB_MICROPUB_HANDLER'));
  const micropubUrlPolicy = parseSpecifier(problems, 'INDIEWEB_MICROPUB_URL_POLICY', read('INDIEWEB_MICROPUB_URL_POLICY'));
  const clientIdValidator = parseSpecifier(problems, 'INDIEWEB_CLIENT_ID_VALIDATOR', read('INDIEWEB_CLIENT_ID_VALIDATOR'));
  const micropubServerManagedProperties = splitList(read('INDIEWEB_MICROPUB_SERVER_MANAGED_PROPERTIES'));

  const allowedRaw = read('INDIEWEB_ALLOWED_CLIENT_IDS');
  let allowedClientIds: string[] | null = null;
  if (allowedRaw !== undefined) {
    allowedClientIds = splitList(allowedRaw);
    for (const id of allowedClientIds) {
      if (parseStrictHttpUrl(id) === null) problems.push(`INDIEWEB_ALLOWED_CLIENT_IDS: "${id}" is not an http(s) URL without fragment or userinfo`);
    }
  }

  const maxUploadBytes = parseLimit(problems, 'INDIEWEB_MEDIA_MAX_UPLOAD_BYTES', read('INDIEWEB_MEDIA_MAX_UPLOAD_BYTES'), DEFAULT_MEDIA_MAX_UPLOAD_BYTES);
  const maxUploadCount = parseLimit(problems, 'INDIEWEB_MEDIA_MAX_UPLOAD_COUNT', read('INDIEWEB_MEDIA_MAX_UPLOAD_COUNT'), DEFAULT_MEDIA_MAX_UPLOAD_COUNT);
  const maxUploadTotalBytes = parseLimit(problems, 'INDIEWEB_MEDIA_MAX_UPLOAD_TOTAL_BYTES', read('INDIEWEB_MEDIA_MAX_UPLOAD_TOTAL_BYTES'), DEFAULT_MEDIA_MAX_UPLOAD_TOTAL_BYTES);
  const allowedTypesRaw = read('INDIEWEB_MEDIA_ALLOWED_TYPES');
  let allowedTypes: readonly string[] | null = DEFAULT_MEDIA_ALLOWED_TYPES;
  if (allowedTypesRaw !== undefined) {
    if (allowedTypesRaw.toLowerCase() === 'none') {
      allowedTypes = null;
    } else {
      allowedTypes = splitList(allowedTypesRaw).map((type) => type.toLowerCase());
      for (const type of allowedTypes) {
        if (!/^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(type)) problems.push(`INDIEWEB_MEDIA_ALLOWED_TYPES: "${type}" is not a MIME type`);
      }
    }
  }
  const mediaDir = path.resolve(cwd, read('INDIEWEB_MEDIA_DIR') ?? path.join(dataDir, 'media'));
  const storage = parseMediaStorage(problems, read);
  const webmentionTargetHosts = splitList(read('INDIEWEB_WEBMENTION_TARGET_HOSTS')).map((host) => host.toLowerCase());
  for (const host of webmentionTargetHosts) {
    if (!/^[a-z0-9.-]+$/.test(host)) problems.push(`INDIEWEB_WEBMENTION_TARGET_HOSTS: "${host}" is not a host name`);
  }
  const webmentionLimits = {
    maxPendingPerHost: parseLimit(problems, 'INDIEWEB_WEBMENTION_MAX_PENDING_PER_HOST', read('INDIEWEB_WEBMENTION_MAX_PENDING_PER_HOST'), DEFAULT_WEBMENTION_LIMITS.maxPendingPerHost, { min: 1 }),
    perClientPerMinute: parseLimit(problems, 'INDIEWEB_WEBMENTION_RATE_LIMIT', read('INDIEWEB_WEBMENTION_RATE_LIMIT'), DEFAULT_WEBMENTION_LIMITS.perClientPerMinute, { min: 1 }),
    perSourceHostPerMinute: parseLimit(problems, 'INDIEWEB_WEBMENTION_SOURCE_RATE_LIMIT', read('INDIEWEB_WEBMENTION_SOURCE_RATE_LIMIT'), DEFAULT_WEBMENTION_LIMITS.perSourceHostPerMinute, { min: 1 }),
  };
  const jobLeaseSeconds = parseInteger(problems, 'INDIEWEB_JOB_LEASE_SECONDS', read('INDIEWEB_JOB_LEASE_SECONDS'), 60, { min: 1, max: 86_400 });

  const files = parseFilesConfig(problems, read, dataDir, cwd);

  if (problems.length > 0) throw new ConfigError(problems);

  return deepFreeze({
    baseUrl,
    host,
    port,
    server,
    dataDir,
    database,
    databaseTimeout,
    logLevel,
    secret,
    trustProxy,
    authCodeExpiresIn,
    tokenExpiresIn,
    refreshTokenExpiresIn,
    introspectionSecret,
    allowPrivateNetworks,
    signInThrottle,
    tokenThrottle,
    maxConcurrentHashes,
    maxBodyBytes,
    micropubHandler,
    micropubServerManagedProperties,
    micropubUrlPolicy,
    clientIdValidator,
    allowedClientIds,
    media: { maxUploadBytes, maxUploadCount, maxUploadTotalBytes, allowedTypes, dir: mediaDir, storage },
    limits,
    webmentionTargetHosts,
    webmentionLimits,
    jobLeaseSeconds,
    outboundTimeout,
    files,
  });
}

function parseInteger(problems: string[], name: string, raw: string | undefined, fallback: number, range: { min?: number; max?: number } = {}): number {
  if (raw === undefined) return fallback;
  const min = range.min ?? 0;
  const max = range.max ?? Number.MAX_SAFE_INTEGER;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    problems.push(`${name}: "${raw}" is not a whole number between ${min} and ${max}`);
    return fallback;
  }
  return Number(raw);
}

function parseLimit(problems: string[], name: string, raw: string | undefined, fallback: number | null, range: { min?: number } = {}): number | null {
  if (raw === undefined) return fallback;
  if (raw.toLowerCase() === 'none') return null;
  if (!/^\d+$/.test(raw)) {
    problems.push(`${name}: "${raw}" is not a whole number or "none"`);
    return fallback;
  }
  const value = parseInteger(problems, name, raw, Number.NaN, { min: range.min ?? 0 });
  return Number.isNaN(value) ? fallback : value;
}

/** A throttle's free failures: a whole number from 1 to 1000, or `none` (null: the throttle is off). */
function parseFreeFailures(problems: string[], name: string, raw: string | undefined, fallback: number | null): number | null {
  if (raw === undefined) return fallback;
  if (raw.toLowerCase() === 'none') return null;
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > 1000) {
    problems.push(`${name}: "${raw}" is not a whole number between 1 and 1000 or "none"`);
    return fallback;
  }
  return Number(raw);
}

function parseBoolean(problems: string[], name: string, raw: string | undefined, fallback: boolean): boolean {
  if (raw === undefined) return fallback;
  const value = raw.toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(value)) return true;
  if (['false', '0', 'no', 'off'].includes(value)) return false;
  problems.push(`${name}: "${raw}" is not true or false`);
  return fallback;
}

function parseSpecifier(problems: string[], name: string, raw: string | undefined): string | null {
  if (raw === undefined) return null;
  const [specifier, exportName, extra] = raw.split('#');
  if (specifier === undefined || specifier === '' || extra !== undefined || exportName === '') {
    problems.push(`${name}: "${raw}" is not a module specifier with an optional #export`);
    return null;
  }
  return raw;
}

function parseBaseUrl(problems: string[], raw: string | undefined, host: string, port: number): string {
  if (raw === undefined) {
    const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
    return `http://${shownHost}:${port}`;
  }
  const url = parseStrictHttpUrl(raw);
  if (url === null || url.search !== '') {
    problems.push(`INDIEWEB_BASE_URL: "${raw}" is not an absolute http(s) URL without query, fragment or userinfo`);
    return 'http://invalid';
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

function parseDatabaseUrl(problems: string[], raw: string | undefined, dataDir: string, cwd: string): DatabaseLocation {
  if (raw === undefined) return { kind: 'sqlite', filename: path.join(dataDir, SQLITE_FILE_NAME) };
  if (/^postgres(ql)?:\/\//i.test(raw)) {
    try {
      const url = new URL(raw);
      if (url.hostname === '' && !url.searchParams.has('host')) throw new Error('no host');
    } catch {
      problems.push(`INDIEWEB_DATABASE_URL: "${redactUrl(raw)}" is not a valid postgres:// URL`);
    }
    return { kind: 'postgres', url: raw };
  }
  if (raw === ':memory:') return { kind: 'sqlite', filename: ':memory:' };
  const match = /^(?:sqlite|file):(?:\/\/)?(.+)$/i.exec(raw);
  if (match !== null) return { kind: 'sqlite', filename: match[1] === ':memory:' ? ':memory:' : path.resolve(cwd, match[1] ?? '') };
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(raw)) {
    problems.push(`INDIEWEB_DATABASE_URL: "${redactUrl(raw)}" uses an unsupported scheme (use postgres:// or sqlite:)`);
    return { kind: 'sqlite', filename: ':memory:' };
  }
  return { kind: 'sqlite', filename: path.resolve(cwd, raw) };
}

/** Hides a password in a database URL before it is shown anywhere. */
export function redactUrl(raw: string): string {
  try {
    const url = new URL(raw);
    if (url.password !== '') url.password = '***';
    return url.href;
  } catch {
    // unparseable: hide everything between the scheme and the last "@"
    return raw.replace(/\/\/.*@/, '//***@');
  }
}

function parseMediaStorage(problems: string[], read: (name: string) => string | undefined): MediaStorageConfig {
  const kind = read('INDIEWEB_MEDIA_STORAGE') ?? 'local';
  if (kind === 'local') return { kind: 'local' };
  if (kind !== 's3') {
    problems.push(`INDIEWEB_MEDIA_STORAGE: "${kind}" is not local or s3`);
    return { kind: 'local' };
  }
  const bucket = read('INDIEWEB_S3_BUCKET');
  if (bucket === undefined) problems.push('INDIEWEB_S3_BUCKET: required when INDIEWEB_MEDIA_STORAGE=s3');
  const region = read('INDIEWEB_S3_REGION') ?? 'us-east-1';
  const endpointRaw = read('INDIEWEB_S3_ENDPOINT');
  let endpoint: string | null = null;
  if (endpointRaw !== undefined) {
    const url = parseStrictHttpUrl(endpointRaw);
    if (url === null) problems.push(`INDIEWEB_S3_ENDPOINT: "${endpointRaw}" is not an http(s) URL`);
    else endpoint = endpointRaw.replace(/\/+$/, '');
  }
  const forcePathStyle = parseBoolean(problems, 'INDIEWEB_S3_FORCE_PATH_STYLE', read('INDIEWEB_S3_FORCE_PATH_STYLE'), false);
  const publicRaw = read('INDIEWEB_S3_PUBLIC_BASE_URL');
  let publicBaseUrl = endpoint !== null ? `${endpoint}/${bucket ?? ''}` : `https://${bucket ?? 'bucket'}.s3.${region}.amazonaws.com`;
  if (publicRaw !== undefined) {
    if (parseStrictHttpUrl(publicRaw) === null) problems.push(`INDIEWEB_S3_PUBLIC_BASE_URL: "${publicRaw}" is not an http(s) URL`);
    publicBaseUrl = publicRaw.replace(/\/+$/, '');
  }
  const accessKeyId = read('INDIEWEB_S3_ACCESS_KEY_ID');
  const secretAccessKey = read('INDIEWEB_S3_SECRET_ACCESS_KEY');
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) problems.push('INDIEWEB_S3_ACCESS_KEY_ID and INDIEWEB_S3_SECRET_ACCESS_KEY go together');
  const timeout = parseInteger(problems, 'INDIEWEB_S3_TIMEOUT', read('INDIEWEB_S3_TIMEOUT'), DEFAULT_S3_TIMEOUT_S, { min: 1, max: 3600 });
  return {
    kind: 's3',
    bucket: bucket ?? '',
    region,
    endpoint,
    forcePathStyle,
    publicBaseUrl,
    credentials: accessKeyId !== undefined && secretAccessKey !== undefined ? { accessKeyId, secretAccessKey } : null,
    timeout,
  };
}

function splitList(raw: string | undefined): string[] {
  if (raw === undefined) return [];
  return raw.split(/[\s,]+/).filter((item) => item !== '');
}

function parseFilesConfig(problems: string[], read: (name: string) => string | undefined, dataDir: string, cwd: string): FilesConfig {
  const contentDir = path.resolve(cwd, read('INDIEWEB_FILES_CONTENT_DIR') ?? path.join(dataDir, 'sites'));
  const userDir = read('INDIEWEB_FILES_USER_DIR') ?? DEFAULT_FILES_USER_DIR;
  const userDirProblem = filesUserDirProblem(userDir);
  if (userDirProblem !== null) problems.push(`INDIEWEB_FILES_USER_DIR: "${userDir}" ${userDirProblem}`);

  const siteRaw = read('INDIEWEB_FILES_SITE_URL');
  let siteUrl: string | null = null;
  if (siteRaw !== undefined) {
    const url = parseStrictHttpUrl(siteRaw.replaceAll('{user}', 'user'));
    if (url === null || url.search !== '' || /[{}]/.test(siteRaw.replaceAll('{user}', ''))) problems.push(`INDIEWEB_FILES_SITE_URL: "${siteRaw}" is not an absolute http(s) URL without query or fragment ({user} allowed)`);
    else siteUrl = siteRaw.replace(/\/+$/, '');
  }

  const frontMatterRaw = read('INDIEWEB_FILES_FRONT_MATTER') ?? 'yaml';
  const frontMatter = FILES_FRONT_MATTER_FORMATS.find((format) => format === frontMatterRaw.toLowerCase());
  if (frontMatter === undefined) problems.push(`INDIEWEB_FILES_FRONT_MATTER: "${frontMatterRaw}" is not one of ${FILES_FRONT_MATTER_FORMATS.join(', ')}`);

  const defaultTemplates: FilesTemplates = { path: read('INDIEWEB_FILES_PATH_TEMPLATE') ?? DEFAULT_FILES_PATH_TEMPLATE, url: read('INDIEWEB_FILES_URL_TEMPLATE') ?? DEFAULT_FILES_URL_TEMPLATE };
  for (const problem of filesTemplateProblems(defaultTemplates)) problems.push(`INDIEWEB_FILES_PATH_TEMPLATE/INDIEWEB_FILES_URL_TEMPLATE: ${problem}`);

  const templates: Record<string, FilesTemplates> = {};
  for (const item of splitList(read('INDIEWEB_FILES_TEMPLATES'))) {
    const [type, pathTemplate, urlTemplate, extra] = item.split('=');
    if (type === undefined || pathTemplate === undefined || urlTemplate === undefined || extra !== undefined) {
      problems.push(`INDIEWEB_FILES_TEMPLATES: "${item}" is not TYPE=PATH_TEMPLATE=URL_TEMPLATE`);
      continue;
    }
    if (!Object.hasOwn(DEFAULT_FILES_SECTIONS, type)) {
      problems.push(`INDIEWEB_FILES_TEMPLATES: "${type}" is not one of ${Object.keys(DEFAULT_FILES_SECTIONS).join(', ')}`);
      continue;
    }
    templates[type] = { path: pathTemplate, url: urlTemplate };
    for (const problem of filesTemplateProblems(templates[type])) problems.push(`INDIEWEB_FILES_TEMPLATES: ${type}: ${problem}`);
  }

  const gitRaw = read('INDIEWEB_FILES_GIT') ?? 'commit';
  const git = FILES_GIT_MODES.find((mode) => mode === gitRaw.toLowerCase());
  if (git === undefined) problems.push(`INDIEWEB_FILES_GIT: "${gitRaw}" is not one of ${FILES_GIT_MODES.join(', ')}`);
  const gitRemote = read('INDIEWEB_FILES_GIT_REMOTE') ?? DEFAULT_FILES_GIT_REMOTE;
  // security: the value becomes a git argument; a leading "-" would be read as an option
  if (!/^[A-Za-z0-9_.:@/~+][A-Za-z0-9_.:@/~+-]*$/.test(gitRemote)) problems.push(`INDIEWEB_FILES_GIT_REMOTE: "${gitRemote}" is not a remote name, URL or path`);

  return { contentDir, userDir, siteUrl, frontMatter: frontMatter ?? 'yaml', defaultTemplates, templates, git: git ?? 'commit', gitRemote };
}
