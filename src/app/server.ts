/**
 * The standalone server: Fastify with pino, the database (migrated at
 * start), `/healthz`, and the plugin under `/indieweb`.
 * @module
 */
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Config } from '../config/config.js';
import type { Clock } from '../core/clock.js';
import type { DatabaseHandle } from '../storage/connect.js';
import { openDatabase } from '../storage/open.js';
import { clientErrorHandler, closeUnreadBodies } from '../web/client-errors.js';
import { defaultErrorHandler } from '../web/error-handler.js';
import { notFoundHandler } from '../web/not-found.js';
import { indieweb } from './plugin.js';
import { addMetricsRoute, addRequestMetrics } from '../operations/metrics/http.js';
import { sendText } from '../web/reply.js';
import { logFormatOf, prettyLogStream } from '../web/pretty-log.js';

const SECRET_QUERY_NAMES = /^(access_token|code|code_verifier|token|refresh_token|client_secret)$/i;

/** Request URLs as logged: secret-bearing query parameters are replaced. */
export function redactRequestUrl(url: string): string {
  const question = url.indexOf('?');
  if (question === -1) return url;
  const params = new URLSearchParams(url.slice(question + 1));
  let redacted = false;
  for (const name of [...params.keys()]) {
    // every spelling of a secret's name: `token`, `TOKEN`, `token[]`, `token[0]`, `tok%65n` (decoded by URLSearchParams)
    const bracket = name.indexOf('[');
    if (SECRET_QUERY_NAMES.test((bracket === -1 ? name : name.slice(0, bracket)).trim())) {
      params.set(name, '[redacted]');
      redacted = true;
    }
  }
  return redacted ? `${url.slice(0, question)}?${params.toString()}` : url;
}

export interface CreateServerOptions {
  config: Config;
  clock?: Clock;
  /** An already open database; by default the one the config names is opened and migrated. */
  database?: DatabaseHandle;
  /** Pass false to silence logs (tests). */
  logger?: boolean;
  /** Run the background job worker in this process. @defaultValue true */
  worker?: boolean;
}

export interface StandaloneServer {
  readonly app: FastifyInstance;
  readonly database: DatabaseHandle;
}

export async function createServer(options: CreateServerOptions): Promise<StandaloneServer> {
  const { config } = options;
  const database = options.database ?? (await openDatabase(config));
  // the same JSON lines either way (the serializers remove secrets); a person at a terminal reads them as text
  const pretty = logFormatOf(config, process.stdout) === 'pretty';
  const app = Fastify({
    logger:
      options.logger === false
        ? false
        : {
            level: config.logLevel,
            serializers: {
              req: (request: FastifyRequest) => ({ method: request.method, url: redactRequestUrl(request.url), remoteAddress: request.ip }),
            },
            ...(pretty
              ? { stream: prettyLogStream(process.stdout, { color: process.stdout.isTTY === true && (process.env.NO_COLOR ?? '') === '' }) }
              : {}),
          },
    trustProxy: config.trustProxy,
    routerOptions: { ignoreTrailingSlash: true },
    // slow clients: a head must arrive within headersTimeout, a whole request within requestTimeout (408, then closed)
    http: {
      headersTimeout: config.server.headersTimeout * 1000,
      requestTimeout: config.server.requestTimeout * 1000,
      connectionsCheckingInterval: 1000,
    },
    requestTimeout: config.server.requestTimeout * 1000,
    keepAliveTimeout: config.server.keepAliveTimeout * 1000,
    // a connection idle this long (no bytes either way) is closed
    connectionTimeout: (config.server.requestTimeout + 10) * 1000,
    forceCloseConnections: 'idle',
    clientErrorHandler,
    // a path the router cannot decode (`%c0%ae`) or a parameter over its length: a short plain-text 400, not Fastify's JSON with its error code
    frameworkErrors: (error, request, reply) => {
      request.log.info({ code: error.code }, 'request rejected by the router');
      // answered before the body is read, outside the route hooks: say the connection ends, as client-errors.ts does
      void sendText((reply as unknown as FastifyReply).header('connection', 'close'), 400, 'bad request: the path could not be read\n');
    },
  });
  app.server.maxConnections = config.server.maxConnections;
  const tightened = database.tightenedFiles ?? [];
  if (tightened.length > 0) app.log.warn({ files: tightened }, 'database files were readable by other users: made 0600 (owner only)');
  const loose = database.looseFiles ?? [];
  if (loose.length > 0)
    app.log.warn(
      { files: loose },
      'database files are readable by other users and their mode cannot be changed by this user: chmod 600 them',
    );
  // an Expect other than 100-continue: Node's own 417 keeps the connection open with the body unread, which is then parsed
  // as a next request; ours says Connection: close, like every answer sent before the body was read
  app.server.on('checkExpectation', (_request, response) => {
    response.writeHead(417, { connection: 'close', 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
    response.end('expectation failed: only "Expect: 100-continue" is understood\n');
  });
  // the server's own routes and its 404s; the plugin does the same for everything under /indieweb
  closeUnreadBodies(app);
  // errors outside the plugin's routes (a body the parser refuses on a path that matches no route, say) get our short
  // answers too, never Fastify's JSON with its error code
  app.setErrorHandler(defaultErrorHandler);
  // a URL no route matches: a page for a browser, our JSON error for an API client (web/not-found.ts)
  app.setNotFoundHandler(notFoundHandler);
  if (options.database === undefined) app.addHook('onClose', async () => database.close());

  app.get('/healthz', async (_request, reply) => {
    try {
      await database.ping();
      return reply.code(200).send({ status: 'ok' });
    } catch (error) {
      app.log.warn({ err: error }, 'health check: database unavailable');
      return reply.code(503).send({ status: 'unavailable' });
    }
  });
  app.get('/', async (_request, reply) => reply.redirect('/indieweb/', 302));

  await app.register(indieweb, {
    database,
    config,
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    ...(options.worker === undefined ? {} : { worker: options.worker }),
    // standalone: the entries of the database and the in-memory handler are served as pages (docs/entry-pages.md)
    entryPages: config.micropubHandler === 'database' || config.micropubHandler === 'memory' || config.micropubHandler === null,
  });
  // at the root of the host, where Prometheus looks; absent (404) while metrics are off
  if (config.metricsToken !== null && app.indieweb.metrics !== null) {
    addMetricsRoute(app, { metrics: app.indieweb.metrics, token: config.metricsToken });
    // the server's own routes and paths no route matches; the plugin counts those under /indieweb/ itself
    addRequestMetrics(app, app.indieweb.metrics, { skip: (route) => route?.startsWith('/indieweb/') === true });
  }
  return { app, database };
}

export { DatabaseUnavailableError, describeDatabase, openDatabase } from '../storage/open.js';
