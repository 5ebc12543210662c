/**
 * `npm run bench -- --soak` (issue 31): a database-handler server under a
 * mixed create/read load for a long time, its RSS sampled every few seconds,
 * and whether that RSS is flat: the mean of the last third of the samples
 * against the mean of the second third (the first third is the warm-up:
 * V8's heap sizing itself, the JIT, SQLite's page cache filling).
 */
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { cannon } from './load.mjs';
import { get, memoryOf, otherLoad, startIndiestack, stop } from './proc.mjs';
import { createAccount } from './seed.mjs';

const MiB = 1024 * 1024;

/** The last third's mean RSS may be at most this much above the second third's for the RSS to count as flat. */
export const SOAK_FLAT_GROWTH = 0.05;

const mean = (values) => values.reduce((sum, value) => sum + value, 0) / values.length;

/** Least-squares slope of `points` ({ t: seconds, rss: bytes }) in MiB per minute. */
function slope(points) {
  if (points.length < 2) return NaN;
  const mt = mean(points.map((p) => p.t));
  const mr = mean(points.map((p) => p.rss));
  let num = 0;
  let den = 0;
  for (const p of points) {
    num += (p.t - mt) * (p.rss - mr);
    den += (p.t - mt) ** 2;
  }
  return den === 0 ? NaN : ((num / den) * 60) / MiB;
}

/** The verdict on a series of RSS samples ({ t, rss }). */
export function flatness(samples) {
  const third = Math.floor(samples.length / 3);
  if (third < 2) return { flat: null, reason: 'too few samples (run longer)' };
  const second = samples.slice(third, 2 * third);
  const last = samples.slice(2 * third);
  const secondMean = mean(second.map((s) => s.rss));
  const lastMean = mean(last.map((s) => s.rss));
  const growth = lastMean / secondMean - 1;
  return {
    flat: growth <= SOAK_FLAT_GROWTH,
    secondMean,
    lastMean,
    growth,
    slopeLastTwoThirds: slope(samples.slice(third)),
    peak: Math.max(...samples.map((s) => s.rss)),
  };
}

/**
 * Runs the soak; resolves to { settings, samples, verdict, load }.
 * `seconds`: how long the load runs; `everyMs`: how often RSS is sampled.
 */
export async function soak({ tmp, seconds, everyMs, connections, log }) {
  const dir = path.join(tmp, 'soak');
  const env = { INDIEWEB_MICROPUB_HANDLER: 'database' };
  const token = createAccount(dir, env);
  const server = await startIndiestack(dir, { env });
  try {
    const auth = { authorization: `Bearer ${token}` };
    const json = { ...auth, 'content-type': 'application/json' };
    // a few entries first, so the reads read something
    await cannon({
      url: server.url,
      connections: 8,
      amount: 200,
      requests: [
        {
          method: 'POST',
          path: '/indieweb/micropub/',
          headers: json,
          body: JSON.stringify({ type: ['h-entry'], properties: { content: ['a soak entry'] } }),
        },
      ],
    });
    const listed = JSON.parse((await get(`${server.url}/indieweb/micropub/?q=source&limit=1`, auth)).body);
    const entry = new URL(listed.items[0].properties.url[0]);
    const feed = new URL('../../../feed.atom', entry);
    // every connection goes through these in turn: one create in five requests
    const requests = [
      {
        method: 'POST',
        path: '/indieweb/micropub/',
        headers: json,
        body: JSON.stringify({ type: ['h-entry'], properties: { content: ['soak'], category: ['soak'] } }),
      },
      { method: 'GET', path: '/indieweb/micropub/?q=source&limit=20', headers: auth },
      { method: 'GET', path: entry.pathname },
      { method: 'GET', path: feed.pathname },
      { method: 'GET', path: '/indieweb/micropub/?q=config', headers: auth },
    ];
    const samples = [];
    const started = performance.now();
    const sample = () => samples.push({ t: (performance.now() - started) / 1000, rss: memoryOf(server.pid).rss });
    sample();
    const timer = setInterval(sample, everyMs);
    const progress = setInterval(() => {
      const last = samples.at(-1);
      log(`soak: ${Math.round(last.t)} / ${seconds} s, RSS ${(last.rss / MiB).toFixed(0)} MiB`);
    }, 60_000);
    const other = otherLoad([server.pid]);
    let result;
    try {
      result = await cannon({ url: server.url, connections, duration: seconds, requests });
    } finally {
      clearInterval(timer);
      clearInterval(progress);
    }
    sample();
    const load = {
      requests: result.requests.total,
      rps: result.requests.average,
      non2xx: result.non2xx,
      errors: result.errors + result.timeouts,
      otherLoad: other.stop(),
      hwm: memoryOf(server.pid).hwm,
    };
    await sleep(100);
    return { seconds, everyMs, connections, samples, verdict: flatness(samples), load };
  } finally {
    await stop(server);
  }
}

/** The soak's result as Markdown. */
export function formatSoak(run) {
  const { verdict, load, samples } = run.soak;
  const mib = (bytes) => (bytes / MiB).toFixed(1);
  const lines = [
    `Soak at commit \`${run.commit}\`${run.dirty ? ' (with uncommitted changes)' : ''} on ${run.machine.nproc} × ${run.machine.cpu}, Node ${run.machine.node}: ` +
      `a database-handler server (SQLite) under ${run.soak.connections} connections of a create / q=source / entry page / feed.atom / q=config mix for ${run.soak.seconds} s, RSS sampled every ${run.soak.everyMs / 1000} s.`,
    '',
    `| | |`,
    `|---|--:|`,
    `| requests (req/s) | ${load.requests.toLocaleString('en-US')} (${Math.round(load.rps).toLocaleString('en-US')}) |`,
    `| errors / non-2xx | ${load.errors} / ${load.non2xx} |`,
    `| RSS samples | ${samples.length} |`,
    `| peak RSS (VmHWM) | ${mib(verdict.peak ?? NaN)} MiB (${mib(load.hwm)} MiB) |`,
    `| mean RSS, second third → last third | ${mib(verdict.secondMean ?? NaN)} → ${mib(verdict.lastMean ?? NaN)} MiB (${verdict.growth === undefined ? '—' : `${(verdict.growth * 100).toFixed(1)} %`}) |`,
    `| slope over the last two thirds | ${Number.isFinite(verdict.slopeLastTwoThirds) ? verdict.slopeLastTwoThirds.toFixed(2) : '—'} MiB/min |`,
    `| other processes | ${load.otherLoad} cores |`,
    '',
    verdict.flat === null
      ? `RSS flat: not decided (${verdict.reason}).`
      : `RSS flat (last third ≤ ${SOAK_FLAT_GROWTH * 100} % above the second): **${verdict.flat ? 'yes' : 'NO'}**.`,
  ];
  return lines.join('\n');
}
