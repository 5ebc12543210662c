/**
 * `GET /metrics`: the Prometheus text, to a scraper that presents the
 * configured bearer token (compared in constant time); 401 otherwise.
 * Registered only when INDIEWEB_METRICS_TOKEN is set, so the path is 404
 * when metrics are off.
 * @module
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { constantTimeEqual } from '../../core/crypto.js';
import { sendText } from '../../web/reply.js';
import type { Metrics } from './metrics.js';

function presentedToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  const match = typeof header === 'string' ? /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header) : null;
  return match?.[1] ?? null;
}

export interface MetricsRouteOptions {
  readonly metrics: Metrics;
  /** The value of INDIEWEB_METRICS_TOKEN. */
  readonly token: string;
  /** @defaultValue `/metrics` */
  readonly url?: string;
}

/** Adds the metrics route to `app` (the standalone root, or a host's app in plugin mode). */
export function addMetricsRoute(app: FastifyInstance, options: MetricsRouteOptions): void {
  const { metrics, token } = options;
  app.get(options.url ?? '/metrics', async (request, reply) => {
    const presented = presentedToken(request);
    if (presented === null || !constantTimeEqual(presented, token)) {
      request.log.info('metrics: scrape refused');
      return sendText(
        reply.header('www-authenticate', 'Bearer realm="metrics"'),
        401,
        'authentication required: send Authorization: Bearer with INDIEWEB_METRICS_TOKEN\n',
      );
    }
    const text = await metrics.render();
    return reply.code(200).header('content-type', metrics.contentType).header('cache-control', 'no-store').send(text);
  });
}

/** The requests each registry has counted: a request seen by several counting scopes is counted once. */
const countedBy = new WeakMap<Metrics, WeakSet<FastifyRequest>>();

/**
 * Counts every answered request of `app` (and its children) by its route
 * pattern (bounded labels: never the raw URL). Scopes may nest or overlap (the
 * standalone root and the plugin's scopes): each request is counted once,
 * whichever of them sees it first. `skip` leaves out requests by route pattern.
 */
export function addRequestMetrics(
  app: FastifyInstance,
  metrics: Metrics,
  options: { skip?: (route: string | undefined) => boolean } = {},
): void {
  const skip = options.skip ?? (() => false);
  let counted = countedBy.get(metrics);
  if (counted === undefined) {
    counted = new WeakSet();
    countedBy.set(metrics, counted);
  }
  const seen = counted;
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url;
    if (seen.has(request) || skip(route)) return;
    seen.add(request);
    metrics.observeRequest(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
  });
}
