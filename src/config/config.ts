/**
 * The settled configuration: one frozen object, built from options, then
 * the environment (standalone), then these defaults.
 *
 * What a field means is written once, in the row of the settings table whose
 * `key` is that field's path (src/config/settings/*.ts, shown in the README).
 * The comments here only say what a value means to code that reads it: its
 * unit, what null stands for, what shape a string has.
 * @module
 */
import type { RequestLimits } from '../core/request-limits.js';

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
export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;
/** `auto`: `pretty` when standard output is a terminal, else `json`. */
export type LogFormat = (typeof LOG_FORMATS)[number];

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
export const DEFAULT_S3_TIMEOUT_S = 30;
export const DEFAULT_OUTBOUND_TIMEOUT_S = 10;
/** Seconds one fetched page may take to parse (`INDIEWEB_PARSE_TIMEOUT`); the parse pool's own default (`PARSE_LIMITS.budgetMs`) is the same. */
export const DEFAULT_PARSE_TIMEOUT_S = 5;

/** The standalone HTTP server's timeouts, in seconds, and its connection bound; see docs/reliability.md. */
export interface ServerLimits {
  readonly headersTimeout: number;
  readonly requestTimeout: number;
  readonly keepAliveTimeout: number;
  readonly maxConnections: number;
  readonly shutdownTimeout: number;
}

export const DEFAULT_SERVER_LIMITS: ServerLimits = Object.freeze({
  headersTimeout: 10,
  requestTimeout: 120,
  keepAliveTimeout: 5,
  maxConnections: 1000,
  shutdownTimeout: 10,
});

export const WEBMENTION_MODERATIONS = ['none', 'first-from-domain', 'all'] as const;
/** `none`: public once verified; `first-from-domain`: a source domain's first mention waits for approval; `all`: every new mention waits. */
export type WebmentionModeration = (typeof WEBMENTION_MODERATIONS)[number];

export const WEBMENTION_SEND_MODES = ['auto', 'off', 'on', 'deploy'] as const;
/**
 * Sending webmentions for entries published through Micropub: `on` at once,
 * `deploy` after the deploy signal (or the delay), `off` never; `auto` is `on`
 * for the database handler, `deploy` for the files handler and `off` for the
 * in-memory handler and a host's own handler.
 */
export type WebmentionSendMode = (typeof WEBMENTION_SEND_MODES)[number];

/** Bounds on what unauthenticated webmention senders may queue; null switches one off. See docs/security.md. */
export interface WebmentionLimits {
  readonly maxPendingPerHost: number | null;
  readonly perClientPerMinute: number | null;
  readonly perSourceHostPerMinute: number | null;
}

/** The pending cap is on by default; the two rate limits are off, as SPEC.md ("Rate limiting: none is implemented") has it. */
export const DEFAULT_WEBMENTION_LIMITS: WebmentionLimits = Object.freeze({
  maxPendingPerHost: 1000,
  perClientPerMinute: null,
  perSourceHostPerMinute: null,
});

/** A failure throttle's settings (src/core/throttle.ts; docs/security.md "Throttles"). */
export interface ThrottleConfig {
  /** Failures per key that cost no wait; null switches the throttle off. */
  readonly freeFailures: number | null;
  /** The longest wait, in seconds. */
  readonly maxDelay: number;
}

export const DEFAULT_SIGNIN_FREE_ATTEMPTS = 5;
export const DEFAULT_THROTTLE_MAX_DELAY_S = 900;
/** scrypt computations at once: half of libuv's default pool of 4, so file reads and DNS keep the other half. */
export const DEFAULT_MAX_CONCURRENT_HASHES = 2;

export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
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

export const DEFAULT_DATABASE_TIMEOUT_S = 3;

export type DatabaseLocation = { readonly kind: 'sqlite'; readonly filename: string } | { readonly kind: 'postgres'; readonly url: string };

export interface MediaConfig {
  /** Bytes; null means no limit. */
  readonly maxUploadBytes: number | null;
  /** Null means no limit. */
  readonly maxUploadCount: number | null;
  /** Bytes; null means no limit. */
  readonly maxUploadTotalBytes: number | null;
  /** Lowercase MIME types; null switches the allow-list off (sniffing still applies). */
  readonly allowedTypes: readonly string[] | null;
  /** Store uploaded photos byte for byte, metadata (GPS, serial numbers…) and all; off by default (see docs/media.md). */
  readonly keepMetadata: boolean;
  /** Absolute; used by the local storage backend only. */
  readonly dir: string;
  readonly storage: MediaStorageConfig;
}

export type MediaStorageConfig =
  | { readonly kind: 'local' }
  | {
      readonly kind: 's3';
      readonly bucket: string;
      readonly region: string;
      /** Without a trailing slash; null for AWS. */
      readonly endpoint: string | null;
      readonly forcePathStyle: boolean;
      /** Without a trailing slash; the object URL is `{publicBaseUrl}/{key}`. */
      readonly publicBaseUrl: string;
      /** Null: the AWS SDK's default chain. */
      readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string } | null;
      /** Seconds, for each wait (connection, then data), not the whole request. */
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

/** A post type's file path and public URL, both templates (rules: config/files-template-rules.ts). */
export interface FilesTemplates {
  /** Relative to the account's site directory, e.g. `content/{section}/{yyyy}/{MM}/{slug}.md`. */
  readonly path: string;
  /** Starts with `{site}`, e.g. `{site}/{section}/{yyyy}/{MM}/{slug}/`. */
  readonly url: string;
}

/** Settings of the built-in `files` Micropub handler (Markdown files for a static site). */
export interface FilesConfig {
  /** Absolute. */
  readonly contentDir: string;
  /** A template over `{user}` and `{id}`, or `.`. */
  readonly userDir: string;
  /** Without a trailing slash, `{user}` allowed; null means the account's first profile URL. */
  readonly siteUrl: string | null;
  readonly frontMatter: FilesFrontMatterFormat;
  /** Used by every post type without an override. */
  readonly defaultTemplates: FilesTemplates;
  /** Keyed by post type (a key of {@link DEFAULT_FILES_SECTIONS}). */
  readonly templates: Readonly<Record<string, FilesTemplates>>;
  readonly git: FilesGitMode;
  readonly gitRemote: string;
}

/** See the module comment: each field's meaning is in the settings table row whose `key` is its path. */
export interface Config {
  /** Absolute, without a trailing slash. */
  readonly baseUrl: string;
  readonly host: string;
  readonly port: number;
  /** Plugin mode: unused, the host's server decides. */
  readonly server: ServerLimits;
  /** Absolute. */
  readonly dataDir: string;
  readonly database: DatabaseLocation;
  /** Seconds. */
  readonly databaseTimeout: number;
  readonly logLevel: LogLevel;
  readonly logFormat: LogFormat;
  /** Null: generate one and keep it in the data directory (secret.ts). */
  readonly secret: string | null;
  readonly trustProxy: boolean;
  /** Seconds. */
  readonly authCodeExpiresIn: number;
  /** Seconds. */
  readonly tokenExpiresIn: number;
  /** Seconds. */
  readonly refreshTokenExpiresIn: number;
  /** Null: only a token's owner may introspect it. */
  readonly introspectionSecret: string | null;
  readonly allowPrivateNetworks: boolean;
  readonly signInThrottle: ThrottleConfig;
  readonly tokenThrottle: ThrottleConfig;
  readonly maxConcurrentHashes: number;
  /** Bytes. */
  readonly maxBodyBytes: number;
  /** A `module#export` specifier, or `memory`/`files`; null: the in-memory handler. */
  readonly micropubHandler: string | null;
  /** The in-memory handler's cap on stored entries; null: none. */
  readonly memoryHandlerMaxEntries: number | null;
  readonly micropubServerManagedProperties: readonly string[];
  /** A `module#export` specifier (load-callable.ts); null: none. */
  readonly micropubUrlPolicy: string | null;
  /** A `module#export` specifier (load-callable.ts); null: none. */
  readonly clientIdValidator: string | null;
  /** Null: no list. */
  readonly allowedClientIds: readonly string[] | null;
  readonly media: MediaConfig;
  readonly limits: RequestLimits;
  /** Lowercase host names. */
  readonly webmentionTargetHosts: readonly string[];
  readonly webmentionLimits: WebmentionLimits;
  /** Which new mentions wait for the owner's approval before the API shows them. */
  readonly webmentionModeration: WebmentionModeration;
  /** Whether (and when) entries published through Micropub send webmentions to the pages they link to. */
  readonly webmentionSendOnPublish: WebmentionSendMode;
  /** Seconds after which sends waiting for the deploy signal go anyway; null: they wait for the signal. */
  readonly webmentionSendDelay: number | null;
  /** Seconds. */
  readonly jobLeaseSeconds: number;
  /** Seconds between two backfeed polls of one syndication target (INDIEWEB_SYNDICATION_POLL_SECONDS). */
  readonly syndicationPollSeconds: number;
  /** Seconds. */
  readonly outboundTimeout: number;
  /** Seconds one fetched page may take to parse in the parse pool. */
  readonly parseTimeout: number;
  /** Read only when `micropubHandler` is `files`. */
  readonly files: FilesConfig;
  /** A `module#export` specifier naming replacement entry-page templates; null: the built-in ones. */
  readonly entryTemplates: string | null;
  /** Null: metrics are off (no `/metrics`, nothing counted). */
  readonly metricsToken: string | null;
}

export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}
