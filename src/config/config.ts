/**
 * The settled configuration: one frozen object, built from options,
 * then the environment (standalone), then these defaults.
 * @module
 */

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

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 8080;
export const DEFAULT_DATA_DIR = './data';
export const DEFAULT_TOKEN_LIFETIME_S = 86_400;
export const DEFAULT_AUTH_CODE_LIFETIME_S = 600;
/** Longest lifetime of a code or token (10 years): timestamps stay four-digit years, so they sort as text. */
export const MAX_LIFETIME_S = 10 * 365 * 24 * 3600;
export const DEFAULT_MEDIA_MAX_UPLOAD_BYTES = 10 * 1024 * 1024;
export const DEFAULT_MEDIA_MAX_UPLOAD_COUNT = 10;
export const DEFAULT_MEDIA_MAX_UPLOAD_TOTAL_BYTES = 50 * 1024 * 1024;
export const SQLITE_FILE_NAME = 'indiestack.sqlite';
/** Seconds one S3 request may wait for a connection or for data (see {@link MediaStorageConfig}). */
export const DEFAULT_S3_TIMEOUT_S = 30;
/** Seconds the server's fetch of a webmention source may take in all. */
export const DEFAULT_OUTBOUND_TIMEOUT_S = 10;
/** Timeouts (seconds) and connection bounds of the standalone HTTP server; see docs/reliability.md. */
export interface ServerLimits {
  /** Time to receive a request's head; slower clients get 408 and are disconnected. */
  readonly headersTimeout: number;
  /** Time to receive a whole request, body included; slower clients get 408 and are disconnected. */
  readonly requestTimeout: number;
  /** How long an idle keep-alive connection stays open. */
  readonly keepAliveTimeout: number;
  /** Concurrent connections; more are refused at once. */
  readonly maxConnections: number;
  /** How long a stopping server waits for requests in flight before it closes their connections. */
  readonly shutdownTimeout: number;
}

export const DEFAULT_SERVER_LIMITS: ServerLimits = Object.freeze({ headersTimeout: 10, requestTimeout: 120, keepAliveTimeout: 5, maxConnections: 1000, shutdownTimeout: 10 });

/** Bounds on what unauthenticated webmention senders may queue; null switches one off. See docs/security.md. */
export interface WebmentionLimits {
  /** Mentions of one target host waiting for their first processing; more are refused with 429. */
  readonly maxPendingPerHost: number | null;
  /** Submissions per minute from one client address (IPv6: one /64), counted per instance; more get 429. */
  readonly perClientPerMinute: number | null;
  /** Submissions per minute naming one source host, counted per instance; more get 429. */
  readonly perSourceHostPerMinute: number | null;
}

/** The pending cap is on by default; the two rate limits are off, as SPEC.md ("Rate limiting: none is implemented") has it. */
export const DEFAULT_WEBMENTION_LIMITS: WebmentionLimits = Object.freeze({ maxPendingPerHost: 1000, perClientPerMinute: null, perSourceHostPerMinute: null });

/** A failure throttle's settings (src/core/throttle.ts; docs/security.md "Throttles"). */
export interface ThrottleConfig {
  /** Failures per key that cost no wait; after them each attempt waits 1 s, 2 s, 4 s …; null switches the throttle off. */
  readonly freeFailures: number | null;
  /** The longest wait, in seconds. */
  readonly maxDelay: number;
}

export const DEFAULT_SIGNIN_FREE_ATTEMPTS = 5;
export const DEFAULT_THROTTLE_MAX_DELAY_S = 900;
/** scrypt computations at once: half of libuv's default pool of 4, so file reads and DNS keep the other half. */
export const DEFAULT_MAX_CONCURRENT_HASHES = 2;

export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
/** Shape limits of request bodies (see {@link RequestLimits}). */
export const DEFAULT_REQUEST_LIMITS: RequestLimits = Object.freeze({
  jsonDepth: 32,
  properties: 200,
  valuesPerProperty: 1000,
  formFields: 1000,
  multipartFields: 100,
  fieldNameBytes: 256,
});

/** Common image, audio and video types accepted by default. */
export const DEFAULT_MEDIA_ALLOWED_TYPES: readonly string[] = Object.freeze([
  'image/jpeg',
  'image/png',
  'image/gif',
  'image/webp',
  'image/avif',
  'audio/mpeg',
  'audio/mp4',
  'audio/ogg',
  'audio/wav',
  'audio/flac',
  'video/mp4',
  'video/webm',
  'video/ogg',
  'video/quicktime',
]);

/** Seconds a query waits for the database (a PostgreSQL connection, a SQLite write lock) before it fails with 503. */
export const DEFAULT_DATABASE_TIMEOUT_S = 3;

export type DatabaseLocation =
  | { readonly kind: 'sqlite'; readonly filename: string }
  | { readonly kind: 'postgres'; readonly url: string };

export interface MediaConfig {
  /** Bytes per file; null means no limit. */
  readonly maxUploadBytes: number | null;
  /** Files per request; null means no limit. */
  readonly maxUploadCount: number | null;
  /** Bytes across all files of one request; null means no limit. */
  readonly maxUploadTotalBytes: number | null;
  /** Allowed MIME types; null switches the allow-list off (sniffing still applies). */
  readonly allowedTypes: readonly string[] | null;
  /** Where the local storage backend keeps files. */
  readonly dir: string;
  /** Which storage backend keeps uploads. */
  readonly storage: MediaStorageConfig;
}

export type MediaStorageConfig =
  | { readonly kind: 'local' }
  | {
      readonly kind: 's3';
      readonly bucket: string;
      readonly region: string;
      /** For S3-compatible services; null for AWS. */
      readonly endpoint: string | null;
      /** Path-style addressing (`endpoint/bucket/key`), needed by most self-hosted services. */
      readonly forcePathStyle: boolean;
      /** Public URL prefix of the bucket; the object URL is `{publicBaseUrl}/{key}`. */
      readonly publicBaseUrl: string;
      /** Static credentials; null: the AWS SDK's default chain. */
      readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string } | null;
      /** Seconds one S3 request may wait for a connection, and then for data (each wait, not the whole request). */
      readonly timeout: number;
    };

/** Front-matter formats of the files handler: YAML between `---` lines, TOML between `+++` lines (Hugo's convention). */
export const FILES_FRONT_MATTER_FORMATS = ['yaml', 'toml'] as const;
export type FilesFrontMatterFormat = (typeof FILES_FRONT_MATTER_FORMATS)[number];

/** `off`: never touch git; `commit`: one commit per operation when the site directory is a repository; `push`: also push. */
export const FILES_GIT_MODES = ['off', 'commit', 'push'] as const;
export type FilesGitMode = (typeof FILES_GIT_MODES)[number];

/** The post types the files handler stores, with the folder (`{section}`) each one goes to by default. */
export const DEFAULT_FILES_SECTIONS: Readonly<Record<string, string>> = Object.freeze({
  note: 'notes',
  article: 'articles',
  photo: 'photos',
  audio: 'audio',
  video: 'videos',
  reply: 'replies',
  bookmark: 'bookmarks',
  like: 'likes',
  repost: 'reposts',
  event: 'events',
  rsvp: 'rsvps',
});
export const DEFAULT_FILES_USER_DIR = '{user}';
export const DEFAULT_FILES_PATH_TEMPLATE = 'content/{section}/{yyyy}/{MM}/{slug}.md';
export const DEFAULT_FILES_URL_TEMPLATE = '{site}/{section}/{yyyy}/{MM}/{slug}/';
export const DEFAULT_FILES_GIT_REMOTE = 'origin';

/** A post type's file path and public URL, both templates. */
export interface FilesTemplates {
  /** Relative to the account's site directory, e.g. `content/{section}/{yyyy}/{MM}/{slug}.md`. */
  readonly path: string;
  /** Starts with `{site}`, e.g. `{site}/{section}/{yyyy}/{MM}/{slug}/`. */
  readonly url: string;
}

/** Settings of the built-in `files` Micropub handler (Markdown files for a static site). */
export interface FilesConfig {
  /** Root of every account's site directory. */
  readonly contentDir: string;
  /** Each account's site directory inside `contentDir`: a template over `{user}` (account name) and `{id}`, or `.`. */
  readonly userDir: string;
  /** Public site URL template (`{user}` allowed), without a trailing slash; null means the account's first profile URL. */
  readonly siteUrl: string | null;
  readonly frontMatter: FilesFrontMatterFormat;
  /** Templates used by every post type without an override. */
  readonly defaultTemplates: FilesTemplates;
  /** Per post type overrides. */
  readonly templates: Readonly<Record<string, FilesTemplates>>;
  readonly git: FilesGitMode;
  /** Remote name (or URL/path) pushed to in `push` mode. */
  readonly gitRemote: string;
}

/** Shape limits applied to request bodies before any route sees them (4xx when crossed). */
export interface RequestLimits {
  /** Deepest nesting of arrays/objects in a JSON body. */
  readonly jsonDepth: number;
  /** Keys in one JSON object (Micropub properties), and properties of a form/multipart Micropub create. */
  readonly properties: number;
  /** Items in one JSON array (values of one property). */
  readonly valuesPerProperty: number;
  /** Parameters in a form-encoded body. */
  readonly formFields: number;
  /** Text fields in a multipart body (all of them together hold at most maxBodyBytes). */
  readonly multipartFields: number;
  /** Bytes of one form/multipart field name or JSON object key. */
  readonly fieldNameBytes: number;
}

export interface Config {
  /** Absolute URL the endpoints are advertised under, without a trailing slash. */
  readonly baseUrl: string;
  readonly host: string;
  readonly port: number;
  /** Timeouts and connection bounds of the standalone server (plugin mode: the host's server decides). */
  readonly server: ServerLimits;
  readonly dataDir: string;
  readonly database: DatabaseLocation;
  /** Seconds a query waits for a PostgreSQL connection or a SQLite write lock before it fails (503). */
  readonly databaseTimeout: number;
  readonly logLevel: LogLevel;
  /** Key for session cookies and CSRF tokens; null means "generate one and keep it in the data dir". */
  readonly secret: string | null;
  readonly trustProxy: boolean;
  readonly authCodeExpiresIn: number;
  readonly tokenExpiresIn: number;
  /** Lifetime of an unused refresh token (seconds). */
  readonly refreshTokenExpiresIn: number;
  /** Bearer secret a resource server may present to the introspection endpoint; null: only a token's owner may introspect. */
  readonly introspectionSecret: string | null;
  readonly allowPrivateNetworks: boolean;
  /** The sign-in form and the account page's password change: per client address and per account name. */
  readonly signInThrottle: ThrottleConfig;
  /**
   * Code and refresh-token redemptions (token endpoint, code verification): per client address.
   * Off by default: SPEC.md says no rate limiting is implemented, and conformance suites send many failing requests from one address.
   */
  readonly tokenThrottle: ThrottleConfig;
  /** Password hashes (scrypt) computed at once; more wait their turn. */
  readonly maxConcurrentHashes: number;
  /** Largest form or JSON body accepted (bytes); larger ones get 413. */
  readonly maxBodyBytes: number;
  readonly micropubHandler: string | null;
  readonly micropubServerManagedProperties: readonly string[];
  readonly micropubUrlPolicy: string | null;
  readonly clientIdValidator: string | null;
  /** Exact client_id URLs allowed; null means no list. */
  readonly allowedClientIds: readonly string[] | null;
  readonly media: MediaConfig;
  readonly limits: RequestLimits;
  /** Extra host names whose pages may receive webmentions, besides the base URL's and the accounts' profile hosts. */
  readonly webmentionTargetHosts: readonly string[];
  /** Pending cap and submission rate limits of the receiving endpoint. */
  readonly webmentionLimits: WebmentionLimits;
  /** How long a claimed background job stays leased before another worker may take it over. */
  readonly jobLeaseSeconds: number;
  /** Seconds the server's fetch of a webmention source (verification) may take in all, redirects and body included. */
  readonly outboundTimeout: number;
  /** The built-in `files` handler (`INDIEWEB_MICROPUB_HANDLER=files`). */
  readonly files: FilesConfig;
}

export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}
