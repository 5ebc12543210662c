/**
 * Drives a server with autocannon from this (separate) process and
 * summarises the run. Latency percentiles are autocannon's (whole
 * milliseconds, 2xx responses only).
 */
import autocannon from 'autocannon';

export function cannon(options) {
  return new Promise((resolve, reject) => {
    const instance = autocannon({ timeout: 30, ...options }, (error, result) => (error ? reject(error) : resolve(result)));
    instance.on('error', () => {});
  });
}

export function summarise(result) {
  const seconds = result.duration;
  const completed = result.requests.total;
  return {
    rps: result.requests.average,
    completed,
    seconds,
    p50: result.latency.p50,
    p90: result.latency.p90,
    p99: result.latency.p99,
    mean: result.latency.mean,
    max: result.latency.max,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    statusCodes: result.statusCodeStats,
  };
}

/**
 * A warm-up run (discarded), then the measured one. `request` is an
 * autocannon request description; `setupRequest` may vary every request.
 */
export async function measure({ url, connections, duration, warmup, request }) {
  const base = { url, connections, requests: [request] };
  if (warmup > 0) await cannon({ ...base, duration: warmup });
  return summarise(await cannon({ ...base, duration }));
}
