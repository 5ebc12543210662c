import path from 'node:path';
import { describe, it, expect } from 'vitest';
import { ConfigError } from '../core/errors.js';
import { DEFAULT_MEDIA_ALLOWED_TYPES, type ConfigOverrides } from './config.js';
import { loadConfig } from './env.js';
import { redactUrl } from './redact.js';
import { SETTINGS, unknownSettingNames } from './settings.js';

type Env = Record<string, string | undefined>;

const CWD = path.resolve('/srv/site');
const SECRET = 's'.repeat(32);

function load(env: Env = {}, overrides?: ConfigOverrides) {
  return loadConfig(overrides === undefined ? { env, cwd: CWD } : { env, cwd: CWD, overrides });
}

/** The problems a rejected configuration reports; fails the test when it loads. */
function problemsOf(env: Env, overrides?: ConfigOverrides): readonly string[] {
  try {
    load(env, overrides);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error('expected loadConfig to throw a ConfigError');
}

describe('loadConfig', () => {
  describe('defaults', () => {
    const config = load();

    it('listens on 127.0.0.1:8080', () => {
      expect(config.host).toBe('127.0.0.1');
      expect(config.port).toBe(8080);
    });

    it('advertises http://127.0.0.1:8080', () => {
      expect(config.baseUrl).toBe('http://127.0.0.1:8080');
    });

    it('keeps data in ./data resolved against cwd', () => {
      expect(config.dataDir).toBe(path.join(CWD, 'data'));
    });

    it('uses a SQLite file in the data directory', () => {
      expect(config.database).toEqual({ kind: 'sqlite', filename: path.join(CWD, 'data', 'indiestack.sqlite') });
    });

    it('logs at info', () => {
      expect(config.logLevel).toBe('info');
    });

    it('has no secret, so one is generated later', () => {
      expect(config.secret).toBeNull();
    });

    it('uses token and auth code lifetimes of 86400 and 600 seconds', () => {
      expect(config.tokenExpiresIn).toBe(86_400);
      expect(config.authCodeExpiresIn).toBe(600);
    });

    it('trusts no proxy and refuses private networks', () => {
      expect(config.trustProxy).toBe(false);
      expect(config.allowPrivateNetworks).toBe(false);
    });

    it('has no handler, URL policy, validator or client list', () => {
      expect(config.micropubHandler).toBeNull();
      expect(config.micropubUrlPolicy).toBeNull();
      expect(config.clientIdValidator).toBeNull();
      expect(config.allowedClientIds).toBeNull();
      expect(config.micropubServerManagedProperties).toEqual([]);
    });

    it('limits media to 10 MiB per file, 10 files and 50 MiB per request', () => {
      expect(config.media.maxUploadBytes).toBe(10 * 1024 * 1024);
      expect(config.media.maxUploadCount).toBe(10);
      expect(config.media.maxUploadTotalBytes).toBe(50 * 1024 * 1024);
    });

    it('allows the default image, audio and video types', () => {
      expect(config.media.allowedTypes).toEqual(DEFAULT_MEDIA_ALLOWED_TYPES);
      expect(config.media.allowedTypes?.length).toBeGreaterThan(0);
      expect(config.media.allowedTypes).toContain('image/jpeg');
    });

    it('keeps media in the data directory', () => {
      expect(config.media.dir).toBe(path.join(CWD, 'data', 'media'));
    });

    it('throttles sign-in after 5 free failures up to 900 s, and not the token endpoint (SPEC.md: no rate limiting)', () => {
      expect(config.signInThrottle).toEqual({ freeFailures: 5, maxDelay: 900 });
      expect(config.tokenThrottle).toEqual({ freeFailures: null, maxDelay: 900 });
    });

    it('computes 2 password hashes at once', () => {
      expect(config.maxConcurrentHashes).toBe(2);
    });
  });

  it('treats empty and whitespace-only values as unset', () => {
    const config = load({ INDIEWEB_PORT: '', INDIEWEB_HOST: '   ', INDIEWEB_BASE_URL: '\t', INDIEWEB_SECRET: ' ' });
    expect(config.port).toBe(8080);
    expect(config.host).toBe('127.0.0.1');
    expect(config.baseUrl).toBe('http://127.0.0.1:8080');
    expect(config.secret).toBeNull();
  });

  it('trims surrounding whitespace from values', () => {
    expect(load({ INDIEWEB_PORT: ' 9000\n' }).port).toBe(9000);
  });

  it('ignores environment variables it does not know', () => {
    expect(() => load({ INDIEWEB_PROT: 'nonsense', PATH: '/usr/bin' })).not.toThrow();
  });

  describe('problems', () => {
    it('reports every invalid variable at once, one line each, naming the variable', () => {
      const problems = problemsOf({
        INDIEWEB_PORT: 'eighty',
        INDIEWEB_LOG_LEVEL: 'loud',
        INDIEWEB_SECRET: 'short',
        INDIEWEB_TRUST_PROXY: 'maybe',
        INDIEWEB_MEDIA_MAX_UPLOAD_COUNT: 'lots',
        INDIEWEB_DATABASE_URL: 'mysql://db.example/app',
      });
      const names = [
        'INDIEWEB_PORT',
        'INDIEWEB_LOG_LEVEL',
        'INDIEWEB_SECRET',
        'INDIEWEB_TRUST_PROXY',
        'INDIEWEB_MEDIA_MAX_UPLOAD_COUNT',
        'INDIEWEB_DATABASE_URL',
      ];
      expect(problems).toHaveLength(names.length);
      for (const name of names) {
        expect(
          problems.filter((line) => line.startsWith(`${name}: `)),
          name,
        ).toHaveLength(1);
      }
    });

    it('throws a ConfigError whose message lists every problem', () => {
      let caught: unknown;
      try {
        load({ INDIEWEB_PORT: 'x', INDIEWEB_LOG_LEVEL: 'y' });
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(ConfigError);
      const error = caught as ConfigError;
      expect(error.code).toBe('config_error');
      expect(error.message.split('\n')).toEqual([...error.problems]);
    });

    it('quotes the bad value in the problem line', () => {
      expect(problemsOf({ INDIEWEB_PORT: 'eighty' })).toEqual([expect.stringContaining('"eighty"')]);
    });
  });

  describe('host and port', () => {
    it.each(['0.0.0.0', '::', '::1', 'localhost', 'my-host.internal', '192.168.1.10'])('accepts host %j', (host) => {
      expect(load({ INDIEWEB_HOST: host }).host).toBe(host);
    });

    it.each(['exa mple', 'host/path', 'http://host', 'host;rm'])('reports host %j', (host) => {
      expect(problemsOf({ INDIEWEB_HOST: host })).toEqual([expect.stringMatching(/^INDIEWEB_HOST: /)]);
    });

    it.each([
      ['0', 0],
      ['1', 1],
      ['65535', 65_535],
      ['3000', 3000],
    ])('accepts port %j', (raw, expected) => {
      expect(load({ INDIEWEB_PORT: raw }).port).toBe(expected);
    });

    it.each(['65536', '-1', '80.5', '1e3', 'eighty', '0x50'])('reports port %j', (raw) => {
      expect(problemsOf({ INDIEWEB_PORT: raw })).toEqual([expect.stringMatching(/^INDIEWEB_PORT: /)]);
    });
  });

  describe('base URL', () => {
    it('defaults to http://HOST:PORT', () => {
      expect(load({ INDIEWEB_HOST: 'localhost', INDIEWEB_PORT: '3000' }).baseUrl).toBe('http://localhost:3000');
    });

    it.each(['0.0.0.0', '::'])('shows 127.0.0.1 when listening on the wildcard address %j', (host) => {
      expect(load({ INDIEWEB_HOST: host }).baseUrl).toBe('http://127.0.0.1:8080');
    });

    it('brackets an IPv6 host', () => {
      expect(load({ INDIEWEB_HOST: '::1' }).baseUrl).toBe('http://[::1]:8080');
    });

    it.each([
      ['https://example.com', 'https://example.com'],
      ['https://example.com/', 'https://example.com'],
      ['https://example.com/indieweb/', 'https://example.com/indieweb'],
      ['https://example.com/indieweb//', 'https://example.com/indieweb'],
      ['https://Example.COM/Blog', 'https://example.com/Blog'],
      ['http://localhost:3000/', 'http://localhost:3000'],
    ])('turns %j into %j', (raw, expected) => {
      expect(load({ INDIEWEB_BASE_URL: raw }).baseUrl).toBe(expected);
    });

    it.each([
      ['a query', 'https://example.com/?a=b'],
      ['a fragment', 'https://example.com/#top'],
      ['userinfo', 'https://user:pw@example.com/'],
      ['an ftp scheme', 'ftp://example.com/'],
      ['a relative URL', '/indieweb'],
      ['a bare host', 'example.com'],
    ])('reports a base URL with %s', (_label, raw) => {
      expect(problemsOf({ INDIEWEB_BASE_URL: raw })).toEqual([expect.stringMatching(/^INDIEWEB_BASE_URL: /)]);
    });
  });

  describe('overrides', () => {
    it('win over the environment for host, port and base URL', () => {
      const config = load(
        { INDIEWEB_HOST: '10.0.0.1', INDIEWEB_PORT: '9000', INDIEWEB_BASE_URL: 'https://env.example' },
        { host: 'localhost', port: 4000, baseUrl: 'https://override.example/' },
      );
      expect(config.host).toBe('localhost');
      expect(config.port).toBe(4000);
      expect(config.baseUrl).toBe('https://override.example');
    });

    it('accept the port as a string', () => {
      expect(load({}, { port: '4001' }).port).toBe(4001);
    });

    it('feed the default base URL', () => {
      expect(load({ INDIEWEB_HOST: '10.0.0.1' }, { host: 'localhost', port: 4000 }).baseUrl).toBe('http://localhost:4000');
    });

    it('win over the environment for data dir, database, log level and secret', () => {
      const other = 'o'.repeat(40);
      const config = load(
        { INDIEWEB_DATA_DIR: 'env-data', INDIEWEB_DATABASE_URL: 'env.sqlite', INDIEWEB_LOG_LEVEL: 'debug', INDIEWEB_SECRET: SECRET },
        { dataDir: 'cli-data', databaseUrl: ':memory:', logLevel: 'warn', secret: other },
      );
      expect(config.dataDir).toBe(path.join(CWD, 'cli-data'));
      expect(config.database).toEqual({ kind: 'sqlite', filename: ':memory:' });
      expect(config.logLevel).toBe('warn');
      expect(config.secret).toBe(other);
    });

    it('are checked like environment values', () => {
      expect(problemsOf({}, { port: 70_000 })).toEqual([expect.stringMatching(/^INDIEWEB_PORT: /)]);
    });
  });

  describe('data directory', () => {
    it('resolves a relative directory against cwd', () => {
      expect(load({ INDIEWEB_DATA_DIR: 'var/indie' }).dataDir).toBe(path.join(CWD, 'var', 'indie'));
    });

    it('keeps an absolute directory', () => {
      expect(load({ INDIEWEB_DATA_DIR: '/var/lib/indiestack' }).dataDir).toBe(path.resolve('/var/lib/indiestack'));
    });

    it('puts the default SQLite file and media directory in it', () => {
      const config = load({ INDIEWEB_DATA_DIR: '/var/lib/indiestack' });
      expect(config.database).toEqual({ kind: 'sqlite', filename: path.resolve('/var/lib/indiestack/indiestack.sqlite') });
      expect(config.media.dir).toBe(path.resolve('/var/lib/indiestack/media'));
    });
  });

  describe('database URL', () => {
    it.each([
      'postgres://indie:pw@db.example:5432/indiestack',
      'postgresql://db.example/indiestack',
      'POSTGRES://db.example/indiestack',
      'postgres:///indiestack?host=/var/run/postgresql',
    ])('selects PostgreSQL for %j', (raw) => {
      expect(load({ INDIEWEB_DATABASE_URL: raw }).database).toEqual({ kind: 'postgres', url: raw });
    });

    it.each([
      ['sqlite:db/site.sqlite', path.join(CWD, 'db', 'site.sqlite')],
      ['sqlite:///var/db/site.sqlite', path.resolve('/var/db/site.sqlite')],
      ['file:site.sqlite', path.join(CWD, 'site.sqlite')],
      ['site.sqlite', path.join(CWD, 'site.sqlite')],
      ['./db/site.sqlite', path.join(CWD, 'db', 'site.sqlite')],
      ['/var/db/site.sqlite', path.resolve('/var/db/site.sqlite')],
      [':memory:', ':memory:'],
      ['sqlite::memory:', ':memory:'],
    ])('selects SQLite for %j', (raw, filename) => {
      expect(load({ INDIEWEB_DATABASE_URL: raw }).database).toEqual({ kind: 'sqlite', filename });
    });

    it.each(['mysql://db.example/app', 'mongodb://db.example/app', 'https://db.example/'])(
      'reports the unsupported scheme of %j',
      (raw) => {
        expect(problemsOf({ INDIEWEB_DATABASE_URL: raw })).toEqual([expect.stringMatching(/^INDIEWEB_DATABASE_URL: .*unsupported scheme/)]);
      },
    );

    it('reports a postgres URL without a host', () => {
      expect(problemsOf({ INDIEWEB_DATABASE_URL: 'postgres:///indiestack' })).toEqual([expect.stringMatching(/^INDIEWEB_DATABASE_URL: /)]);
    });

    it('hides the password when reporting a bad URL', () => {
      const problems = problemsOf({ INDIEWEB_DATABASE_URL: 'mysql://admin:hunter2@db.example/app' });
      expect(problems).toHaveLength(1);
      expect(problems[0]).not.toContain('hunter2');
      expect(problems[0]).toContain('mysql://admin:***@db.example/app');
    });

    it('hides the password when reporting a postgres URL without a host', () => {
      const problems = problemsOf({ INDIEWEB_DATABASE_URL: 'postgres://admin:hunter2@/indiestack' });
      expect(problems).toHaveLength(1);
      expect(problems[0]).not.toContain('hunter2');
    });
  });

  describe('log level', () => {
    it.each(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])('accepts %j', (level) => {
      expect(load({ INDIEWEB_LOG_LEVEL: level }).logLevel).toBe(level);
    });

    it.each(['verbose', 'INFO', 'warning'])('reports %j', (level) => {
      expect(problemsOf({ INDIEWEB_LOG_LEVEL: level })).toEqual([expect.stringMatching(/^INDIEWEB_LOG_LEVEL: /)]);
    });
  });

  describe('secret', () => {
    it('accepts 32 characters', () => {
      expect(load({ INDIEWEB_SECRET: SECRET }).secret).toBe(SECRET);
    });

    it('reports fewer than 32 characters without showing the secret', () => {
      const problems = problemsOf({ INDIEWEB_SECRET: 'x'.repeat(31) });
      expect(problems).toEqual([expect.stringMatching(/^INDIEWEB_SECRET: /)]);
      expect(problems[0]).not.toContain('x'.repeat(31));
    });
  });

  describe('booleans', () => {
    it.each(['true', 'TRUE', '1', 'yes', 'on'])('reads %j as true', (raw) => {
      const config = load({ INDIEWEB_TRUST_PROXY: raw, INDIEWEB_ALLOW_PRIVATE_NETWORKS: raw });
      expect(config.trustProxy).toBe(true);
      expect(config.allowPrivateNetworks).toBe(true);
    });

    it.each(['false', 'False', '0', 'no', 'off'])('reads %j as false', (raw) => {
      const config = load({ INDIEWEB_TRUST_PROXY: raw, INDIEWEB_ALLOW_PRIVATE_NETWORKS: raw });
      expect(config.trustProxy).toBe(false);
      expect(config.allowPrivateNetworks).toBe(false);
    });

    it('reports a value that is not a boolean for each variable', () => {
      expect(problemsOf({ INDIEWEB_TRUST_PROXY: 'maybe', INDIEWEB_ALLOW_PRIVATE_NETWORKS: '2' })).toEqual([
        expect.stringMatching(/^INDIEWEB_TRUST_PROXY: /),
        expect.stringMatching(/^INDIEWEB_ALLOW_PRIVATE_NETWORKS: /),
      ]);
    });
  });

  describe('lifetimes', () => {
    it('reads token and auth code lifetimes in seconds', () => {
      const config = load({ INDIEWEB_TOKEN_EXPIRES_IN: '3600', INDIEWEB_AUTH_CODE_EXPIRES_IN: '60' });
      expect(config.tokenExpiresIn).toBe(3600);
      expect(config.authCodeExpiresIn).toBe(60);
    });

    it.each(['0', '-5', '1.5', 'never', 'none'])('reports lifetime %j', (raw) => {
      expect(problemsOf({ INDIEWEB_TOKEN_EXPIRES_IN: raw, INDIEWEB_AUTH_CODE_EXPIRES_IN: raw })).toEqual([
        expect.stringMatching(/^INDIEWEB_AUTH_CODE_EXPIRES_IN: /),
        expect.stringMatching(/^INDIEWEB_TOKEN_EXPIRES_IN: /),
      ]);
    });
  });

  describe('module specifiers', () => {
    it.each(['./handler.js', './handler.js#createHandler', '@acme/indie-handler#handler', 'file:///srv/handler.js'])(
      'accepts %j',
      (raw) => {
        const config = load({ INDIEWEB_MICROPUB_HANDLER: raw, INDIEWEB_MICROPUB_URL_POLICY: raw, INDIEWEB_CLIENT_ID_VALIDATOR: raw });
        expect(config.micropubHandler).toBe(raw);
        expect(config.micropubUrlPolicy).toBe(raw);
        expect(config.clientIdValidator).toBe(raw);
      },
    );

    it.each(['#handler', './handler.js#', './handler.js#a#b'])('reports %j', (raw) => {
      expect(problemsOf({ INDIEWEB_MICROPUB_HANDLER: raw, INDIEWEB_MICROPUB_URL_POLICY: raw, INDIEWEB_CLIENT_ID_VALIDATOR: raw })).toEqual([
        expect.stringMatching(/^INDIEWEB_MICROPUB_HANDLER: /),
        expect.stringMatching(/^INDIEWEB_MICROPUB_URL_POLICY: /),
        expect.stringMatching(/^INDIEWEB_CLIENT_ID_VALIDATOR: /),
      ]);
    });
  });

  describe('lists', () => {
    it('splits server-managed properties on commas and whitespace', () => {
      expect(
        load({ INDIEWEB_MICROPUB_SERVER_MANAGED_PROPERTIES: 'published,updated  syndication,\n\tcategory' })
          .micropubServerManagedProperties,
      ).toEqual(['published', 'updated', 'syndication', 'category']);
    });

    it('splits allowed client ids on commas and whitespace', () => {
      expect(
        load({ INDIEWEB_ALLOWED_CLIENT_IDS: 'https://a.example/, https://b.example/app\nhttps://c.example/' }).allowedClientIds,
      ).toEqual(['https://a.example/', 'https://b.example/app', 'https://c.example/']);
    });

    it('reports each allowed client id that is not a strict http(s) URL', () => {
      const problems = problemsOf({ INDIEWEB_ALLOWED_CLIENT_IDS: 'https://ok.example/ https://a.example/#x ftp://b.example/ c.example' });
      expect(problems).toHaveLength(3);
      for (const line of problems) expect(line).toMatch(/^INDIEWEB_ALLOWED_CLIENT_IDS: /);
      expect(problems.join('\n')).not.toContain('ok.example');
    });

    it('splits allowed media types on commas and whitespace and lowercases them', () => {
      expect(load({ INDIEWEB_MEDIA_ALLOWED_TYPES: 'image/PNG, image/jpeg\napplication/pdf' }).media.allowedTypes).toEqual([
        'image/png',
        'image/jpeg',
        'application/pdf',
      ]);
    });

    it.each(['none', 'NONE', ' None '])('switches the media allow-list off with %j', (raw) => {
      expect(load({ INDIEWEB_MEDIA_ALLOWED_TYPES: raw }).media.allowedTypes).toBeNull();
    });

    it('reports each allowed media type that is not a MIME type', () => {
      expect(problemsOf({ INDIEWEB_MEDIA_ALLOWED_TYPES: 'image/png png image/ /jpeg' })).toEqual([
        expect.stringMatching(/^INDIEWEB_MEDIA_ALLOWED_TYPES: "png"/),
        expect.stringMatching(/^INDIEWEB_MEDIA_ALLOWED_TYPES: "image\/"/),
        expect.stringMatching(/^INDIEWEB_MEDIA_ALLOWED_TYPES: "\/jpeg"/),
      ]);
    });
  });

  describe('media limits', () => {
    const names = ['INDIEWEB_MEDIA_MAX_UPLOAD_BYTES', 'INDIEWEB_MEDIA_MAX_UPLOAD_COUNT', 'INDIEWEB_MEDIA_MAX_UPLOAD_TOTAL_BYTES'] as const;

    it.each(['none', 'NONE', 'None'])('reads %j as no limit (null)', (raw) => {
      const media = load(Object.fromEntries(names.map((name) => [name, raw]))).media;
      expect(media.maxUploadBytes).toBeNull();
      expect(media.maxUploadCount).toBeNull();
      expect(media.maxUploadTotalBytes).toBeNull();
    });

    it('reads whole numbers, including 0', () => {
      const media = load({
        INDIEWEB_MEDIA_MAX_UPLOAD_BYTES: '1024',
        INDIEWEB_MEDIA_MAX_UPLOAD_COUNT: '0',
        INDIEWEB_MEDIA_MAX_UPLOAD_TOTAL_BYTES: '4096',
      }).media;
      expect(media.maxUploadBytes).toBe(1024);
      expect(media.maxUploadCount).toBe(0);
      expect(media.maxUploadTotalBytes).toBe(4096);
    });

    it.each(['-1', '10MB', '1.5', 'unlimited'])('reports %j for each limit', (raw) => {
      expect(problemsOf(Object.fromEntries(names.map((name) => [name, raw])))).toEqual(
        names.map((name) => expect.stringMatching(new RegExp(`^${name}: `))),
      );
    });
  });

  describe('webmention limits', () => {
    it('caps pending mentions at 1000 per host and has no rate limits by default (SPEC.md: none is implemented)', () => {
      expect(load().webmentionLimits).toEqual({ maxPendingPerHost: 1000, perClientPerMinute: null, perSourceHostPerMinute: null });
    });

    it('reads whole numbers, and none as no limit', () => {
      expect(
        load({
          INDIEWEB_WEBMENTION_MAX_PENDING_PER_HOST: 'none',
          INDIEWEB_WEBMENTION_RATE_LIMIT: '30',
          INDIEWEB_WEBMENTION_SOURCE_RATE_LIMIT: '10',
        }).webmentionLimits,
      ).toEqual({ maxPendingPerHost: null, perClientPerMinute: 30, perSourceHostPerMinute: 10 });
      expect(load({ INDIEWEB_WEBMENTION_MAX_PENDING_PER_HOST: '5', INDIEWEB_WEBMENTION_RATE_LIMIT: 'NONE' }).webmentionLimits).toEqual({
        maxPendingPerHost: 5,
        perClientPerMinute: null,
        perSourceHostPerMinute: null,
      });
    });

    it.each(['0', '-1', '1.5', 'unlimited', '10/min'])('reports %j for each of them', (raw) => {
      const names = ['INDIEWEB_WEBMENTION_MAX_PENDING_PER_HOST', 'INDIEWEB_WEBMENTION_RATE_LIMIT', 'INDIEWEB_WEBMENTION_SOURCE_RATE_LIMIT'];
      expect(problemsOf(Object.fromEntries(names.map((name) => [name, raw])))).toEqual(
        names.map((name) => expect.stringMatching(new RegExp(`^${name}: "`))),
      );
    });
  });

  describe('timeouts of outside services', () => {
    const s3 = { INDIEWEB_MEDIA_STORAGE: 's3', INDIEWEB_S3_BUCKET: 'media' };
    const s3Timeout = (env: Env) => {
      const storage = load({ ...s3, ...env }).media.storage;
      return storage.kind === 's3' ? storage.timeout : null;
    };

    it('gives an S3 request 30 s per wait and a webmention source fetch 10 s in all by default', () => {
      expect(s3Timeout({})).toBe(30);
      expect(load().outboundTimeout).toBe(10);
    });

    it('reads INDIEWEB_S3_TIMEOUT and INDIEWEB_OUTBOUND_TIMEOUT in seconds', () => {
      expect(s3Timeout({ INDIEWEB_S3_TIMEOUT: '1' })).toBe(1);
      expect(load({ INDIEWEB_OUTBOUND_TIMEOUT: '3' }).outboundTimeout).toBe(3);
    });

    it.each(['0', '-1', '1.5', 'none', '30s'])('reports %j for each', (raw) => {
      expect(problemsOf({ ...s3, INDIEWEB_S3_TIMEOUT: raw, INDIEWEB_OUTBOUND_TIMEOUT: raw })).toEqual([
        expect.stringMatching(/^INDIEWEB_OUTBOUND_TIMEOUT: /),
        expect.stringMatching(/^INDIEWEB_S3_TIMEOUT: /),
      ]);
    });
  });

  describe('throttles and password hashing', () => {
    it('reads free failures, the longest wait and the hashes at once', () => {
      const config = load({
        INDIEWEB_SIGNIN_FREE_ATTEMPTS: '3',
        INDIEWEB_SIGNIN_MAX_DELAY: '60',
        INDIEWEB_TOKEN_FREE_FAILURES: '20',
        INDIEWEB_MAX_CONCURRENT_HASHES: '1',
      });
      expect(config.signInThrottle).toEqual({ freeFailures: 3, maxDelay: 60 });
      expect(config.tokenThrottle).toEqual({ freeFailures: 20, maxDelay: 60 });
      expect(config.maxConcurrentHashes).toBe(1);
    });

    it.each(['none', 'NONE'])('reads %j as the throttle off (null)', (raw) => {
      expect(load({ INDIEWEB_SIGNIN_FREE_ATTEMPTS: raw }).signInThrottle.freeFailures).toBeNull();
      expect(load({ INDIEWEB_TOKEN_FREE_FAILURES: raw }).tokenThrottle.freeFailures).toBeNull();
    });

    it.each(['0', '-1', '1001', '2.5', 'off'])('reports free failures of %j for each throttle', (raw) => {
      expect(problemsOf({ INDIEWEB_SIGNIN_FREE_ATTEMPTS: raw, INDIEWEB_TOKEN_FREE_FAILURES: raw })).toEqual([
        expect.stringMatching(/^INDIEWEB_SIGNIN_FREE_ATTEMPTS: .*between 1 and 1000 or "none"/),
        expect.stringMatching(/^INDIEWEB_TOKEN_FREE_FAILURES: .*between 1 and 1000 or "none"/),
      ]);
    });

    it.each([
      ['INDIEWEB_SIGNIN_MAX_DELAY', '0'],
      ['INDIEWEB_SIGNIN_MAX_DELAY', '86401'],
      ['INDIEWEB_SIGNIN_MAX_DELAY', 'none'],
      ['INDIEWEB_MAX_CONCURRENT_HASHES', '0'],
      ['INDIEWEB_MAX_CONCURRENT_HASHES', '1025'],
      ['INDIEWEB_MAX_CONCURRENT_HASHES', 'none'],
    ])('reports %s=%j', (name, raw) => {
      expect(problemsOf({ [name]: raw })).toEqual([expect.stringMatching(new RegExp(`^${name}: `))]);
    });
  });

  describe('media directory', () => {
    it('resolves INDIEWEB_MEDIA_DIR against cwd', () => {
      expect(load({ INDIEWEB_MEDIA_DIR: 'uploads' }).media.dir).toBe(path.join(CWD, 'uploads'));
    });
  });

  describe('the returned config', () => {
    const config = load({
      INDIEWEB_ALLOWED_CLIENT_IDS: 'https://a.example/',
      INDIEWEB_MICROPUB_SERVER_MANAGED_PROPERTIES: 'published',
      INDIEWEB_MEDIA_ALLOWED_TYPES: 'image/png',
    });

    it('is frozen, including nested objects and arrays', () => {
      expect(Object.isFrozen(config)).toBe(true);
      expect(Object.isFrozen(config.database)).toBe(true);
      expect(Object.isFrozen(config.media)).toBe(true);
      expect(Object.isFrozen(config.media.allowedTypes)).toBe(true);
      expect(Object.isFrozen(config.allowedClientIds)).toBe(true);
      expect(Object.isFrozen(config.micropubServerManagedProperties)).toBe(true);
    });

    it('throws on assignment', () => {
      expect(() => {
        (config as { port: number }).port = 1;
      }).toThrow(TypeError);
      expect(() => {
        (config.media as { maxUploadCount: number | null }).maxUploadCount = 1;
      }).toThrow(TypeError);
      expect(() => {
        (config.allowedClientIds as string[]).push('https://evil.example/');
      }).toThrow(TypeError);
    });

    it('keeps the default allow-list frozen for every config', () => {
      const media = load().media;
      expect(Object.isFrozen(media.allowedTypes)).toBe(true);
    });
  });
});

describe('redactUrl', () => {
  it.each([
    ['postgres://indie:hunter2@db.example:5432/app', 'postgres://indie:***@db.example:5432/app'],
    ['postgresql://indie:p%40ss%2Fword@db.example/app', 'postgresql://indie:***@db.example/app'],
    ['mysql://root:toor@localhost/db', 'mysql://root:***@localhost/db'],
  ])('hides the password in %j', (raw, expected) => {
    expect(redactUrl(raw)).toBe(expected);
  });

  it.each(['postgres://db.example/app', 'postgres://indie@db.example/app', 'sqlite:/var/db/site.sqlite', ':memory:', ''])(
    'leaves %j unchanged',
    (raw) => {
      expect(redactUrl(raw)).toBe(raw);
    },
  );
});

describe('unknownSettingNames', () => {
  it('lists unknown INDIEWEB_ names only', () => {
    expect(
      unknownSettingNames({
        INDIEWEB_PORT: '8080',
        INDIEWEB_PROT: '8080',
        INDIEWEB_BASEURL: 'https://example.com',
        PATH: '/usr/bin',
        HOME: '/home/indie',
        indieweb_port: '1',
        NODE_ENV: 'production',
      }),
    ).toEqual(['INDIEWEB_PROT', 'INDIEWEB_BASEURL']);
  });

  it('knows every documented setting', () => {
    expect(unknownSettingNames(Object.fromEntries(SETTINGS.map((setting) => [setting.name, 'x'])))).toEqual([]);
  });

  it('returns nothing for an empty environment', () => {
    expect(unknownSettingNames({})).toEqual([]);
  });
});

describe('redactUrl never shows a password', () => {
  it.each([
    ['postgres://user:p@ss@host/db', 'p@ss'],
    ['postgres://:secret@host/db', 'secret'],
    ['postgres://user:hunter2@host:5432/db?sslmode=require', 'hunter2'],
  ])('hides the password of %s', (raw, password) => {
    const shown = redactUrl(raw);
    expect(shown).not.toContain(password);
    expect(shown).toContain('***');
  });
});
