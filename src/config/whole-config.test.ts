import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../core/errors.js';
import { DEFAULT_MEDIA_ALLOWED_TYPES, type ConfigOverrides } from './config.js';
import { loadConfig } from './env.js';

// Whole results of loadConfig, value for value and problem for problem in order, so that a change
// to how settings are read shows up here even where env.test.ts checks one field or one prefix.

type Env = Record<string, string>;

const CWD = path.resolve('/srv/site');

function problemsOf(env: Env, overrides?: ConfigOverrides): readonly string[] {
  try {
    loadConfig(overrides === undefined ? { env, cwd: CWD } : { env, cwd: CWD, overrides });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error('expected loadConfig to throw a ConfigError');
}

describe('loadConfig, whole results', () => {
  it('returns exactly the defaults for an empty environment', () => {
    expect(loadConfig({ env: {}, cwd: CWD })).toStrictEqual({
      baseUrl: 'http://127.0.0.1:8080',
      host: '127.0.0.1',
      port: 8080,
      server: { headersTimeout: 10, requestTimeout: 120, keepAliveTimeout: 5, maxConnections: 1000, shutdownTimeout: 10 },
      dataDir: path.join(CWD, 'data'),
      database: { kind: 'sqlite', filename: path.join(CWD, 'data', 'indiestack.sqlite') },
      databaseTimeout: 3,
      logLevel: 'info',
      secret: null,
      trustProxy: false,
      authCodeExpiresIn: 600,
      tokenExpiresIn: 86_400,
      refreshTokenExpiresIn: 2_592_000,
      introspectionSecret: null,
      allowPrivateNetworks: false,
      signInThrottle: { freeFailures: 5, maxDelay: 900 },
      tokenThrottle: { freeFailures: null, maxDelay: 900 },
      maxConcurrentHashes: 2,
      maxBodyBytes: 1_048_576,
      micropubHandler: null,
      micropubServerManagedProperties: [],
      micropubUrlPolicy: null,
      clientIdValidator: null,
      allowedClientIds: null,
      media: {
        maxUploadBytes: 10_485_760,
        maxUploadCount: 10,
        maxUploadTotalBytes: 52_428_800,
        allowedTypes: DEFAULT_MEDIA_ALLOWED_TYPES,
        dir: path.join(CWD, 'data', 'media'),
        storage: { kind: 'local' },
      },
      limits: { jsonDepth: 32, properties: 200, valuesPerProperty: 1000, formFields: 1000, multipartFields: 100, fieldNameBytes: 256 },
      webmentionTargetHosts: [],
      webmentionLimits: { maxPendingPerHost: 1000, perClientPerMinute: null, perSourceHostPerMinute: null },
      jobLeaseSeconds: 60,
      outboundTimeout: 10,
      files: {
        contentDir: path.join(CWD, 'data', 'sites'),
        userDir: '{user}',
        siteUrl: null,
        frontMatter: 'yaml',
        defaultTemplates: { path: 'content/{section}/{yyyy}/{MM}/{slug}.md', url: '{site}/{section}/{yyyy}/{MM}/{slug}/' },
        templates: {},
        git: 'commit',
        gitRemote: 'origin',
      },
    });
  });

  it('returns exactly what an environment setting every variable asks for', () => {
    const config = loadConfig({
      cwd: CWD,
      env: {
        INDIEWEB_BASE_URL: 'https://id.example/indie/',
        INDIEWEB_HOST: '0.0.0.0',
        INDIEWEB_PORT: '3000',
        INDIEWEB_HEADERS_TIMEOUT: '20',
        INDIEWEB_REQUEST_TIMEOUT: '60',
        INDIEWEB_KEEP_ALIVE_TIMEOUT: '7',
        INDIEWEB_MAX_CONNECTIONS: '50',
        INDIEWEB_SHUTDOWN_TIMEOUT: '0',
        INDIEWEB_DATA_DIR: 'var',
        INDIEWEB_DATABASE_URL: 'postgres://u:pw@db.example/indie',
        INDIEWEB_DATABASE_TIMEOUT: '9',
        INDIEWEB_LOG_LEVEL: 'debug',
        INDIEWEB_SECRET: 's'.repeat(32),
        INDIEWEB_TRUST_PROXY: 'yes',
        INDIEWEB_AUTH_CODE_EXPIRES_IN: '60',
        INDIEWEB_TOKEN_EXPIRES_IN: '3600',
        INDIEWEB_REFRESH_TOKEN_EXPIRES_IN: '7200',
        INDIEWEB_INTROSPECTION_SECRET: 'i'.repeat(36),
        INDIEWEB_ALLOW_PRIVATE_NETWORKS: 'on',
        INDIEWEB_OUTBOUND_TIMEOUT: '4',
        INDIEWEB_SIGNIN_FREE_ATTEMPTS: 'none',
        INDIEWEB_SIGNIN_MAX_DELAY: '30',
        INDIEWEB_TOKEN_FREE_FAILURES: '12',
        INDIEWEB_MAX_CONCURRENT_HASHES: '3',
        INDIEWEB_MAX_BODY_BYTES: '2048',
        INDIEWEB_MAX_JSON_DEPTH: '9',
        INDIEWEB_MAX_PROPERTIES: '11',
        INDIEWEB_MAX_PROPERTY_VALUES: '12',
        INDIEWEB_MAX_FORM_FIELDS: '13',
        INDIEWEB_MAX_MULTIPART_FIELDS: '14',
        INDIEWEB_MAX_FIELD_NAME_BYTES: '33',
        INDIEWEB_MICROPUB_HANDLER: 'files',
        INDIEWEB_MICROPUB_SERVER_MANAGED_PROPERTIES: 'published updated',
        INDIEWEB_MICROPUB_URL_POLICY: './policy.js#allow',
        INDIEWEB_CLIENT_ID_VALIDATOR: '@acme/v',
        INDIEWEB_ALLOWED_CLIENT_IDS: 'https://a.example/',
        INDIEWEB_MEDIA_MAX_UPLOAD_BYTES: 'none',
        INDIEWEB_MEDIA_MAX_UPLOAD_COUNT: '0',
        INDIEWEB_MEDIA_MAX_UPLOAD_TOTAL_BYTES: '4096',
        INDIEWEB_MEDIA_ALLOWED_TYPES: 'image/PNG',
        INDIEWEB_WEBMENTION_TARGET_HOSTS: 'Blog.Example',
        INDIEWEB_WEBMENTION_MAX_PENDING_PER_HOST: 'none',
        INDIEWEB_WEBMENTION_RATE_LIMIT: '30',
        INDIEWEB_WEBMENTION_SOURCE_RATE_LIMIT: '10',
        INDIEWEB_JOB_LEASE_SECONDS: '120',
        INDIEWEB_MEDIA_DIR: 'up',
        INDIEWEB_MEDIA_STORAGE: 's3',
        INDIEWEB_S3_BUCKET: 'pics',
        INDIEWEB_S3_REGION: 'eu-west-1',
        INDIEWEB_S3_ENDPOINT: 'https://minio.example//',
        INDIEWEB_S3_FORCE_PATH_STYLE: 'true',
        INDIEWEB_S3_ACCESS_KEY_ID: 'AK',
        INDIEWEB_S3_SECRET_ACCESS_KEY: 'SK',
        INDIEWEB_S3_TIMEOUT: '5',
        INDIEWEB_FILES_CONTENT_DIR: 'sites',
        INDIEWEB_FILES_USER_DIR: 'u/{id}',
        INDIEWEB_FILES_SITE_URL: 'https://{user}.example/',
        INDIEWEB_FILES_FRONT_MATTER: 'TOML',
        INDIEWEB_FILES_PATH_TEMPLATE: 'posts/{yyyy}/{slug}.md',
        INDIEWEB_FILES_URL_TEMPLATE: '{site}/{yyyy}/{slug}',
        INDIEWEB_FILES_TEMPLATES: 'note=notes/{slug}.md={site}/n/{slug}',
        INDIEWEB_FILES_GIT: 'PUSH',
        INDIEWEB_FILES_GIT_REMOTE: 'backup',
      },
    });
    expect(config).toStrictEqual({
      baseUrl: 'https://id.example/indie',
      host: '0.0.0.0',
      port: 3000,
      server: { headersTimeout: 20, requestTimeout: 60, keepAliveTimeout: 7, maxConnections: 50, shutdownTimeout: 0 },
      dataDir: path.join(CWD, 'var'),
      database: { kind: 'postgres', url: 'postgres://u:pw@db.example/indie' },
      databaseTimeout: 9,
      logLevel: 'debug',
      secret: 's'.repeat(32),
      trustProxy: true,
      authCodeExpiresIn: 60,
      tokenExpiresIn: 3600,
      refreshTokenExpiresIn: 7200,
      introspectionSecret: 'i'.repeat(36),
      allowPrivateNetworks: true,
      signInThrottle: { freeFailures: null, maxDelay: 30 },
      tokenThrottle: { freeFailures: 12, maxDelay: 30 },
      maxConcurrentHashes: 3,
      maxBodyBytes: 2048,
      micropubHandler: 'files',
      micropubServerManagedProperties: ['published', 'updated'],
      micropubUrlPolicy: './policy.js#allow',
      clientIdValidator: '@acme/v',
      allowedClientIds: ['https://a.example/'],
      media: {
        maxUploadBytes: null,
        maxUploadCount: 0,
        maxUploadTotalBytes: 4096,
        allowedTypes: ['image/png'],
        dir: path.join(CWD, 'up'),
        storage: {
          kind: 's3',
          bucket: 'pics',
          region: 'eu-west-1',
          endpoint: 'https://minio.example',
          forcePathStyle: true,
          publicBaseUrl: 'https://minio.example/pics',
          credentials: { accessKeyId: 'AK', secretAccessKey: 'SK' },
          timeout: 5,
        },
      },
      limits: { jsonDepth: 9, properties: 11, valuesPerProperty: 12, formFields: 13, multipartFields: 14, fieldNameBytes: 33 },
      webmentionTargetHosts: ['blog.example'],
      webmentionLimits: { maxPendingPerHost: null, perClientPerMinute: 30, perSourceHostPerMinute: 10 },
      jobLeaseSeconds: 120,
      outboundTimeout: 4,
      files: {
        contentDir: path.join(CWD, 'sites'),
        userDir: 'u/{id}',
        siteUrl: 'https://{user}.example',
        frontMatter: 'toml',
        defaultTemplates: { path: 'posts/{yyyy}/{slug}.md', url: '{site}/{yyyy}/{slug}' },
        templates: { note: { path: 'notes/{slug}.md', url: '{site}/n/{slug}' } },
        git: 'push',
        gitRemote: 'backup',
      },
    });
  });

  it('fills in S3 storage for AWS: region us-east-1, the bucket host as public URL, the SDK default chain for credentials', () => {
    expect(loadConfig({ env: { INDIEWEB_MEDIA_STORAGE: 's3', INDIEWEB_S3_BUCKET: 'pics' }, cwd: CWD }).media.storage).toStrictEqual({
      kind: 's3',
      bucket: 'pics',
      region: 'us-east-1',
      endpoint: null,
      forcePathStyle: false,
      publicBaseUrl: 'https://pics.s3.us-east-1.amazonaws.com',
      credentials: null,
      timeout: 30,
    });
    const given = { INDIEWEB_MEDIA_STORAGE: 's3', INDIEWEB_S3_BUCKET: 'pics', INDIEWEB_S3_PUBLIC_BASE_URL: 'https://cdn.example/m/' };
    expect(loadConfig({ env: given, cwd: CWD }).media.storage).toMatchObject({ publicBaseUrl: 'https://cdn.example/m' });
  });

  it('reads no S3 variable unless INDIEWEB_MEDIA_STORAGE is s3', () => {
    const s3 = { INDIEWEB_S3_ENDPOINT: 'ftp://x', INDIEWEB_S3_TIMEOUT: 'x', INDIEWEB_S3_ACCESS_KEY_ID: 'AK' };
    expect(loadConfig({ env: s3, cwd: CWD }).media.storage).toStrictEqual({ kind: 'local' });
    expect(problemsOf({ ...s3, INDIEWEB_MEDIA_STORAGE: 'S3' })).toEqual(['INDIEWEB_MEDIA_STORAGE: "S3" is not local or s3']);
  });

  it('reports every problem of a broken environment, word for word and in a fixed order', () => {
    expect(
      problemsOf({
        INDIEWEB_BASE_URL: 'ftp://x.example/',
        INDIEWEB_HOST: 'bad host',
        INDIEWEB_PORT: 'p',
        INDIEWEB_HEADERS_TIMEOUT: '100',
        INDIEWEB_REQUEST_TIMEOUT: '50',
        INDIEWEB_KEEP_ALIVE_TIMEOUT: 'k',
        INDIEWEB_MAX_CONNECTIONS: '0',
        INDIEWEB_SHUTDOWN_TIMEOUT: '3601',
        INDIEWEB_DATABASE_URL: 'mysql://u:pw@h/db',
        INDIEWEB_DATABASE_TIMEOUT: '0',
        INDIEWEB_LOG_LEVEL: 'loud',
        INDIEWEB_SECRET: 'short',
        INDIEWEB_TRUST_PROXY: 'maybe',
        INDIEWEB_AUTH_CODE_EXPIRES_IN: '0',
        INDIEWEB_TOKEN_EXPIRES_IN: '0',
        INDIEWEB_REFRESH_TOKEN_EXPIRES_IN: '0',
        INDIEWEB_INTROSPECTION_SECRET: 'short',
        INDIEWEB_ALLOW_PRIVATE_NETWORKS: 'x',
        INDIEWEB_OUTBOUND_TIMEOUT: '0',
        INDIEWEB_SIGNIN_FREE_ATTEMPTS: '0',
        INDIEWEB_SIGNIN_MAX_DELAY: '0',
        INDIEWEB_TOKEN_FREE_FAILURES: '0',
        INDIEWEB_MAX_CONCURRENT_HASHES: '0',
        INDIEWEB_MAX_BODY_BYTES: '1',
        INDIEWEB_MAX_JSON_DEPTH: '1',
        INDIEWEB_MAX_PROPERTIES: '1',
        INDIEWEB_MAX_PROPERTY_VALUES: '1',
        INDIEWEB_MAX_FORM_FIELDS: '1',
        INDIEWEB_MAX_MULTIPART_FIELDS: '1',
        INDIEWEB_MAX_FIELD_NAME_BYTES: '1',
        INDIEWEB_MICROPUB_HANDLER: '#x',
        INDIEWEB_MICROPUB_URL_POLICY: 'a#',
        INDIEWEB_CLIENT_ID_VALIDATOR: 'a#b#c',
        INDIEWEB_ALLOWED_CLIENT_IDS: 'c.example https://ok.example/ ftp://d.example/',
        INDIEWEB_MEDIA_MAX_UPLOAD_BYTES: 'lots',
        INDIEWEB_MEDIA_MAX_UPLOAD_COUNT: '-1',
        INDIEWEB_MEDIA_MAX_UPLOAD_TOTAL_BYTES: '99999999999999999999',
        INDIEWEB_MEDIA_ALLOWED_TYPES: 'png image/PNG',
        INDIEWEB_WEBMENTION_TARGET_HOSTS: 'a_b.example',
        INDIEWEB_WEBMENTION_MAX_PENDING_PER_HOST: '0',
        INDIEWEB_WEBMENTION_RATE_LIMIT: 'x',
        INDIEWEB_WEBMENTION_SOURCE_RATE_LIMIT: '1.5',
        INDIEWEB_JOB_LEASE_SECONDS: '0',
        INDIEWEB_MEDIA_STORAGE: 'S3',
        INDIEWEB_FILES_USER_DIR: '../{user}',
        INDIEWEB_FILES_SITE_URL: 'https://x.example/?q',
        INDIEWEB_FILES_FRONT_MATTER: 'json',
        INDIEWEB_FILES_PATH_TEMPLATE: '/abs.txt',
        INDIEWEB_FILES_TEMPLATES: 'note=x.md={site}/x xyz=a=b bad',
        INDIEWEB_FILES_GIT: 'maybe',
        INDIEWEB_FILES_GIT_REMOTE: '-x',
      }),
    ).toEqual([
      'INDIEWEB_HOST: "bad host" is not a host name or address',
      'INDIEWEB_PORT: "p" is not a whole number between 0 and 65535',
      'INDIEWEB_KEEP_ALIVE_TIMEOUT: "k" is not a whole number between 1 and 3600',
      'INDIEWEB_MAX_CONNECTIONS: "0" is not a whole number between 1 and 9007199254740991',
      'INDIEWEB_SHUTDOWN_TIMEOUT: "3601" is not a whole number between 0 and 3600',
      'INDIEWEB_HEADERS_TIMEOUT: must not be longer than INDIEWEB_REQUEST_TIMEOUT',
      'INDIEWEB_BASE_URL: "ftp://x.example/" is not an absolute http(s) URL without query, fragment or userinfo',
      'INDIEWEB_DATABASE_URL: "mysql://u:***@h/db" uses an unsupported scheme (use postgres:// or sqlite:)',
      'INDIEWEB_DATABASE_TIMEOUT: "0" is not a whole number between 1 and 300',
      'INDIEWEB_LOG_LEVEL: "loud" is not one of fatal, error, warn, info, debug, trace, silent',
      'INDIEWEB_SECRET: must be at least 32 characters',
      'INDIEWEB_TRUST_PROXY: "maybe" is not true or false',
      'INDIEWEB_AUTH_CODE_EXPIRES_IN: "0" is not a whole number between 1 and 315360000',
      'INDIEWEB_TOKEN_EXPIRES_IN: "0" is not a whole number between 1 and 315360000',
      'INDIEWEB_REFRESH_TOKEN_EXPIRES_IN: "0" is not a whole number between 1 and 315360000',
      'INDIEWEB_INTROSPECTION_SECRET: must be at least 32 characters',
      'INDIEWEB_ALLOW_PRIVATE_NETWORKS: "x" is not true or false',
      'INDIEWEB_OUTBOUND_TIMEOUT: "0" is not a whole number between 1 and 600',
      'INDIEWEB_SIGNIN_MAX_DELAY: "0" is not a whole number between 1 and 86400',
      'INDIEWEB_SIGNIN_FREE_ATTEMPTS: "0" is not a whole number between 1 and 1000 or "none"',
      'INDIEWEB_TOKEN_FREE_FAILURES: "0" is not a whole number between 1 and 1000 or "none"',
      'INDIEWEB_MAX_CONCURRENT_HASHES: "0" is not a whole number between 1 and 1024',
      'INDIEWEB_MAX_BODY_BYTES: "1" is not a whole number between 1024 and 9007199254740991',
      'INDIEWEB_MAX_JSON_DEPTH: "1" is not a whole number between 8 and 1000',
      'INDIEWEB_MAX_PROPERTIES: "1" is not a whole number between 10 and 9007199254740991',
      'INDIEWEB_MAX_PROPERTY_VALUES: "1" is not a whole number between 10 and 9007199254740991',
      'INDIEWEB_MAX_FORM_FIELDS: "1" is not a whole number between 10 and 9007199254740991',
      'INDIEWEB_MAX_MULTIPART_FIELDS: "1" is not a whole number between 10 and 9007199254740991',
      'INDIEWEB_MAX_FIELD_NAME_BYTES: "1" is not a whole number between 32 and 9007199254740991',
      'INDIEWEB_MICROPUB_HANDLER: "#x" is not a module specifier with an optional #export',
      'INDIEWEB_MICROPUB_URL_POLICY: "a#" is not a module specifier with an optional #export',
      'INDIEWEB_CLIENT_ID_VALIDATOR: "a#b#c" is not a module specifier with an optional #export',
      'INDIEWEB_ALLOWED_CLIENT_IDS: "c.example" is not an http(s) URL without fragment or userinfo',
      'INDIEWEB_ALLOWED_CLIENT_IDS: "ftp://d.example/" is not an http(s) URL without fragment or userinfo',
      'INDIEWEB_MEDIA_MAX_UPLOAD_BYTES: "lots" is not a whole number or "none"',
      'INDIEWEB_MEDIA_MAX_UPLOAD_COUNT: "-1" is not a whole number or "none"',
      'INDIEWEB_MEDIA_MAX_UPLOAD_TOTAL_BYTES: "99999999999999999999" is not a whole number between 0 and 9007199254740991',
      'INDIEWEB_MEDIA_ALLOWED_TYPES: "png" is not a MIME type',
      'INDIEWEB_MEDIA_STORAGE: "S3" is not local or s3',
      'INDIEWEB_WEBMENTION_TARGET_HOSTS: "a_b.example" is not a host name',
      'INDIEWEB_WEBMENTION_MAX_PENDING_PER_HOST: "0" is not a whole number between 1 and 9007199254740991',
      'INDIEWEB_WEBMENTION_RATE_LIMIT: "x" is not a whole number or "none"',
      'INDIEWEB_WEBMENTION_SOURCE_RATE_LIMIT: "1.5" is not a whole number or "none"',
      'INDIEWEB_JOB_LEASE_SECONDS: "0" is not a whole number between 1 and 86400',
      'INDIEWEB_FILES_USER_DIR: "../{user}" must be relative, without empty, "." or ".." segments or hidden names',
      'INDIEWEB_FILES_SITE_URL: "https://x.example/?q" is not an absolute http(s) URL without query or fragment ({user} allowed)',
      'INDIEWEB_FILES_FRONT_MATTER: "json" is not one of yaml, toml',
      'INDIEWEB_FILES_PATH_TEMPLATE/INDIEWEB_FILES_URL_TEMPLATE: path template "/abs.txt" must be relative, without empty, "." or ".." segments or hidden names',
      'INDIEWEB_FILES_PATH_TEMPLATE/INDIEWEB_FILES_URL_TEMPLATE: path template "/abs.txt" must end in .md or .markdown',
      'INDIEWEB_FILES_PATH_TEMPLATE/INDIEWEB_FILES_URL_TEMPLATE: path template "/abs.txt" must contain {slug}',
      'INDIEWEB_FILES_PATH_TEMPLATE/INDIEWEB_FILES_URL_TEMPLATE: path template "/abs.txt" and URL template "{site}/{section}/{yyyy}/{MM}/{slug}/" must use the same date and slug variables',
      'INDIEWEB_FILES_TEMPLATES: note: path template "x.md" must contain {slug}',
      'INDIEWEB_FILES_TEMPLATES: "xyz" is not one of note, article, photo, audio, video, reply, bookmark, like, repost, event, rsvp',
      'INDIEWEB_FILES_TEMPLATES: "bad" is not TYPE=PATH_TEMPLATE=URL_TEMPLATE',
      'INDIEWEB_FILES_GIT: "maybe" is not one of off, commit, push',
      'INDIEWEB_FILES_GIT_REMOTE: "-x" is not a remote name, URL or path',
    ]);
  });

  it('reports S3 problems, the bucket and key pair rules among them, between the media and the webmention problems', () => {
    expect(
      problemsOf({
        INDIEWEB_MEDIA_ALLOWED_TYPES: 'image/',
        INDIEWEB_MEDIA_STORAGE: 's3',
        INDIEWEB_S3_ENDPOINT: 'ftp://minio.example',
        INDIEWEB_S3_FORCE_PATH_STYLE: 'sometimes',
        INDIEWEB_S3_PUBLIC_BASE_URL: 'cdn.example',
        INDIEWEB_S3_ACCESS_KEY_ID: 'AKIA',
        INDIEWEB_S3_TIMEOUT: '0',
        INDIEWEB_WEBMENTION_TARGET_HOSTS: 'a b/c',
        INDIEWEB_JOB_LEASE_SECONDS: '86401',
        INDIEWEB_FILES_GIT: 'x',
      }),
    ).toEqual([
      'INDIEWEB_MEDIA_ALLOWED_TYPES: "image/" is not a MIME type',
      'INDIEWEB_S3_BUCKET: required when INDIEWEB_MEDIA_STORAGE=s3',
      'INDIEWEB_S3_ENDPOINT: "ftp://minio.example" is not an http(s) URL',
      'INDIEWEB_S3_FORCE_PATH_STYLE: "sometimes" is not true or false',
      'INDIEWEB_S3_PUBLIC_BASE_URL: "cdn.example" is not an http(s) URL',
      'INDIEWEB_S3_ACCESS_KEY_ID and INDIEWEB_S3_SECRET_ACCESS_KEY go together',
      'INDIEWEB_S3_TIMEOUT: "0" is not a whole number between 1 and 3600',
      'INDIEWEB_WEBMENTION_TARGET_HOSTS: "b/c" is not a host name',
      'INDIEWEB_JOB_LEASE_SECONDS: "86401" is not a whole number between 1 and 86400',
      'INDIEWEB_FILES_GIT: "x" is not one of off, commit, push',
    ]);
  });

  it('checks overrides untrimmed, in place of the variable they replace', () => {
    expect(problemsOf({ INDIEWEB_PORT: '70000', INDIEWEB_BASE_URL: 'https://x.example/?a' }, { host: '' })).toEqual([
      'INDIEWEB_HOST: "" is not a host name or address',
      'INDIEWEB_PORT: "70000" is not a whole number between 0 and 65535',
      'INDIEWEB_BASE_URL: "https://x.example/?a" is not an absolute http(s) URL without query, fragment or userinfo',
    ]);
    expect(problemsOf({}, { logLevel: ' info' })).toEqual(['INDIEWEB_LOG_LEVEL: " info" is not one of fatal, error, warn, info, debug, trace, silent']);
  });
});
