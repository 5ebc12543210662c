/**
 * The settled configuration: one frozen object, built from options,
 * then the environment (standalone), then these defaults.
 * @module
 */

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 8080;
export const DEFAULT_DATA_DIR = './data';
export const DEFAULT_TOKEN_LIFETIME_S = 86_400;
export const DEFAULT_AUTH_CODE_LIFETIME_S = 600;
export const DEFAULT_MEDIA_MAX_UPLOAD_BYTES = 10 * 1024 * 1024;
export const DEFAULT_MEDIA_MAX_UPLOAD_COUNT = 10;
export const DEFAULT_MEDIA_MAX_UPLOAD_TOTAL_BYTES = 50 * 1024 * 1024;
export const SQLITE_FILE_NAME = 'indiestack.sqlite';
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
      readonly endpoint: string | null;
      readonly forcePathStyle: boolean;
      readonly publicBaseUrl: string;
      readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string } | null;
    };

export interface Config {
  /** Absolute URL the endpoints are advertised under, without a trailing slash. */
  readonly baseUrl: string;
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  readonly database: DatabaseLocation;
  readonly logLevel: LogLevel;
  /** Key for session cookies and CSRF tokens; null means "generate one and keep it in the data dir". */
  readonly secret: string | null;
  readonly trustProxy: boolean;
  readonly authCodeExpiresIn: number;
  readonly tokenExpiresIn: number;
  readonly allowPrivateNetworks: boolean;
  /** Largest form or JSON body accepted (bytes); larger ones get 413. */
  readonly maxBodyBytes: number;
  readonly micropubHandler: string | null;
  readonly micropubServerManagedProperties: readonly string[];
  readonly micropubUrlPolicy: string | null;
  readonly clientIdValidator: string | null;
  /** Exact client_id URLs allowed; null means no list. */
  readonly allowedClientIds: readonly string[] | null;
  readonly media: MediaConfig;
  /** Extra host names whose pages may receive webmentions, besides the base URL's and the accounts' profile hosts. */
  readonly webmentionTargetHosts: readonly string[];
  /** How long a claimed background job stays leased before another worker may take it over. */
  readonly jobLeaseSeconds: number;
}

export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}
