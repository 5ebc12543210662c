/**
 * The server's metrics in Prometheus form, through prom-client: one registry
 * per app instance (never the global one: several apps share a test process,
 * and a host may run its own), the {@link Meter} the features count with,
 * requests by route and status, and gauges read from the database when
 * Prometheus scrapes (webmentions by status, the job queue).
 * @module
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Clock } from '../../core/clock.js';
import type { Meter } from '../../core/meter.js';
import type { JobsRepository } from '../../storage/repositories/jobs.js';
import type { WebmentionsRepository } from '../../storage/repositories/webmentions.js';

export interface Metrics {
  /** What the features call. */
  readonly meter: Meter;
  /** Records one answered request; `route` is the route's pattern (never the raw URL), undefined when none matched. */
  observeRequest(method: string, route: string | undefined, status: number, seconds: number): void;
  /** The text exposition format. */
  render(): Promise<string>;
  readonly contentType: string;
}

export interface MetricsDeps {
  readonly webmentions: Pick<WebmentionsRepository, 'countByStatus'>;
  readonly jobs: Pick<JobsRepository, 'queueStats'>;
  readonly clock: Clock;
  /** A gauge could not be read (the database is down): its series is left out of this scrape. */
  readonly onCollectError: (error: unknown) => void;
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const WEBMENTION_STATUSES = ['pending', 'verified', 'failed', 'spam'] as const;
/** Seconds; from a cached token check (well under a millisecond) to a slow upload. */
const LATENCY_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export function createMetrics(deps: MetricsDeps): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];

  const requests = new Counter({
    name: 'indiestack_http_requests_total',
    help: 'Requests answered, by route pattern and status.',
    labelNames: ['method', 'route', 'status'],
    registers,
  });
  const latency = new Histogram({
    name: 'indiestack_http_request_duration_seconds',
    help: 'Time from a request arriving to its answer being sent, by route pattern.',
    labelNames: ['method', 'route'],
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const tokensIssued = new Counter({
    name: 'indiestack_tokens_issued_total',
    help: 'Access tokens issued by the token endpoint, by grant type.',
    labelNames: ['grant_type'],
    registers,
  });
  const tokensRefused = new Counter({
    name: 'indiestack_tokens_refused_total',
    help: 'Tokens and codes turned away: at the token endpoint (by error code) or by the bearer guard of Micropub and media (by reason).',
    labelNames: ['where', 'reason'],
    registers,
  });
  const micropub = new Counter({
    name: 'indiestack_micropub_operations_total',
    help: 'Micropub creates and actions that succeeded.',
    labelNames: ['operation'],
    registers,
  });
  const uploads = new Counter({
    name: 'indiestack_media_uploads_total',
    help: 'Files stored (media endpoint and Micropub multipart creates).',
    registers,
  });
  const uploadBytes = new Counter({ name: 'indiestack_media_upload_bytes_total', help: 'Bytes of the files stored.', registers });
  const received = new Counter({ name: 'indiestack_webmentions_received_total', help: 'Webmentions accepted for processing.', registers });
  const processed = new Counter({
    name: 'indiestack_webmentions_processed_total',
    help: 'Webmention processing attempts by outcome: verified, failed, or retry (a transient failure, tried again later).',
    labelNames: ['outcome'],
    registers,
  });
  const outbound = new Counter({
    name: 'indiestack_outbound_fetches_total',
    help: 'Fetches the server made (webmention sources, client pages), by outcome.',
    labelNames: ['outcome'],
    registers,
  });

  new Gauge({
    name: 'indiestack_webmentions',
    help: 'Webmentions stored, by status (read from the database at scrape time).',
    labelNames: ['status'],
    registers,
    async collect() {
      try {
        const counts = await deps.webmentions.countByStatus();
        for (const status of WEBMENTION_STATUSES) this.set({ status }, counts[status] ?? 0);
      } catch (error) {
        this.reset();
        deps.onCollectError(error);
      }
    },
  });
  // prom-client collects every metric at once: both queue gauges share one query per scrape (reset in render)
  let stats: Promise<{ depth: number; oldestCreatedAt: string | null }> | null = null;
  const queueStats = () => (stats ??= deps.jobs.queueStats());
  new Gauge({
    name: 'indiestack_jobs_queued',
    help: 'Background jobs waiting or running (webmention verification).',
    registers,
    async collect() {
      try {
        this.set((await queueStats()).depth);
      } catch (error) {
        this.reset();
        deps.onCollectError(error);
      }
    },
  });
  new Gauge({
    name: 'indiestack_jobs_oldest_age_seconds',
    help: 'Age of the oldest queued job; 0 when the queue is empty.',
    registers,
    async collect() {
      try {
        const { oldestCreatedAt } = await queueStats();
        this.set(oldestCreatedAt === null ? 0 : Math.max(0, (deps.clock.now().getTime() - Date.parse(oldestCreatedAt)) / 1000));
      } catch {
        // reported once, by the depth gauge
        this.reset();
      }
    },
  });

  return {
    meter: {
      tokenIssued: (grantType) => tokensIssued.inc({ grant_type: grantType }),
      tokenRefused: (where, reason) => tokensRefused.inc({ where, reason }),
      micropubOperation: (operation) => micropub.inc({ operation }),
      mediaStored: (bytes) => {
        uploads.inc();
        uploadBytes.inc(bytes);
      },
      webmentionReceived: () => received.inc(),
      webmentionProcessed: (outcome) => processed.inc({ outcome }),
      outboundFetch: (outcome) => outbound.inc({ outcome }),
    },
    observeRequest(method, route, status, seconds) {
      const labels = { method: METHODS.has(method) ? method : 'OTHER', route: route ?? 'unmatched' };
      requests.inc({ ...labels, status: String(status) });
      latency.observe(labels, seconds);
    },
    render() {
      stats = null;
      return registry.metrics();
    },
    contentType: registry.contentType,
  };
}
