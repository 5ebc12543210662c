/**
 * A fuzz run: generated cases sent by a few concurrent workers to one server
 * process, invariants checked after every request, /healthz and RSS checked
 * every `healthEvery` requests, crashes blamed on one request (by replaying
 * the suspects alone) and survived (the server is restarted on its data).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { generateCase } from './generators.mjs';
import { exchange, health } from './http.mjs';
import { checkExchange } from './invariants.mjs';
import { ROOT, rssOf, ServerUnderTest } from './server.mjs';

const FILES_PER_SIGNATURE = 3;

export async function runCampaign(options) {
  const server = new ServerUnderTest({ handler: options.handler ?? 'database' });
  try {
    return await campaign(server, options);
  } finally {
    await server.destroy();
  }
}

async function campaign(server, options) {
  const {
    seconds,
    seed,
    workers = 6,
    deadlineMs = 10_000,
    healthEvery = 50,
    skipKnown = false,
    handler = 'database',
    outDir,
    log = () => {},
    maxRequests = Infinity,
  } = options;
  mkdirSync(outDir, { recursive: true });
  const stats = {
    seed,
    seconds,
    skipKnown,
    handler,
    sent: 0,
    perRoute: {},
    crashes: 0,
    unexpected5xx: 0,
    failures: [],
    signatures: new Map(),
    worst: { ms: 0, index: null, route: null },
    rss: { start: null, peak: 0, end: null, samples: [] },
    healthChecks: 0,
    /** Milliseconds of each answered /healthz check, to report the worst and the median. */
    healthMs: [],
    credentialsLost: null,
    resets: 0,
  };
  const creds = await startServer(server);
  const context = { serverPaths: [server.dataDir, ROOT.replace(/\/$/, '')], deadlineMs, checkKeepAlive: !skipKnown };
  stats.rss.start = rssOf(server.pid);
  const inflight = new Map();
  const recent = [];
  let next = 0;
  let crashHandling = null;
  let suspectsAtExit = [];
  const watchExit = () => server.child.once('exit', () => (suspectsAtExit = [...inflight.keys()]));
  watchExit();
  const endAt = Date.now() + seconds * 1000;
  const startedAt = Date.now();
  let lastProgress = Date.now();

  const record = (failure) => {
    const signature = failure.group ?? `${failure.kind} @ ${failure.route}${failure.kind === 'crash' ? ` (${failure.error})` : ''}`;
    const seen = stats.signatures.get(signature) ?? 0;
    stats.signatures.set(signature, seen + 1);
    if (seen < FILES_PER_SIGNATURE && failure.index !== null) failure.file = writeReplay(outDir, seed, skipKnown, handler, failure);
    if (seen < FILES_PER_SIGNATURE) stats.failures.push({ ...failure, signature });
    log(`FAIL #${failure.index ?? '?'} ${signature}: ${failure.detail}`);
  };

  async function onCrash() {
    stats.crashes++;
    const tail = server.logs;
    const error = crashError(tail);
    const suspects = [...new Set([...suspectsAtExit, ...recent.slice().reverse()])];
    log(`server died (${error}); suspects: ${suspects.join(', ')}`);
    while (inflight.size > 0) await sleep(20);
    await server.start();
    watchExit();
    let culprit = null;
    for (const index of suspects) {
      const testCase = generateCase(seed, index, creds, { skipKnown });
      await exchange(server.port, testCase.wire, { deadlineMs: 3_000, probe: false });
      await sleep(250);
      if (!server.alive) {
        culprit = testCase;
        await server.start();
        watchExit();
        break;
      }
    }
    record({
      kind: 'crash',
      route: culprit?.route ?? 'unknown',
      index: culprit?.index ?? null,
      notes: culprit?.notes ?? [],
      error,
      detail:
        culprit === null ? `process exited; no single suspect (${suspects.join(', ')}) reproduced it alone` : `process exited: ${error}`,
      logTail: tail.slice(-2_000),
      raw: culprit?.raw,
    });
  }

  async function checkHealth(label) {
    stats.healthChecks++;
    const answer = await health(server.port, 5_000);
    if (answer.status === 200) stats.healthMs.push(answer.ms);
    const rss = rssOf(server.pid);
    if (rss !== null) {
      stats.rss.peak = Math.max(stats.rss.peak, rss);
      stats.rss.samples.push([Math.round((Date.now() - startedAt) / 1000), rss]);
    }
    if (answer.status !== 200 && server.alive) {
      record({
        kind: 'healthz',
        route: 'healthz',
        index: null,
        detail: `/healthz ${label}: ${answer.status ?? answer.error ?? 'no answer'} after ${Math.round(answer.ms)} ms`,
      });
    }
  }

  async function worker() {
    while (Date.now() < endAt && next < maxRequests) {
      if (crashHandling !== null) {
        await crashHandling;
        continue;
      }
      const index = next++;
      const testCase = generateCase(seed, index, creds, { skipKnown });
      inflight.set(index, testCase.route);
      const result = await exchange(server.port, testCase.wire, { deadlineMs, probe: true });
      inflight.delete(index);
      recent.push(index);
      if (recent.length > 20) recent.shift();
      stats.sent++;
      const route = (stats.perRoute[testCase.route] ??= { sent: 0, statuses: {} });
      route.sent++;
      const status = result.responses[0]?.status ?? (result.timedOut ? 'timeout' : (result.error ?? 'closed'));
      route.statuses[status] = (route.statuses[status] ?? 0) + 1;
      if (result.error === 'ECONNRESET') stats.resets++;
      if (result.responses.length > 0 && result.latencyMs > stats.worst.ms)
        stats.worst = { ms: Math.round(result.latencyMs), index, route: testCase.route };
      if (!server.alive || crashHandling !== null) {
        crashHandling ??= onCrash().finally(() => (crashHandling = null));
        await crashHandling;
        continue;
      }
      const violations = checkExchange(result, testCase, context);
      // a reset or close may be the server dying of another request: that is a crash, blamed below, not this case
      if (violations.length > 0 && result.responses.length === 0) await sleep(200);
      if (violations.some((v) => v.kind === 'keep-alive broken')) await sleep(200);
      if (!server.alive) {
        crashHandling ??= onCrash().finally(() => (crashHandling = null));
        await crashHandling;
        continue;
      }
      for (const violation of violations) {
        if (violation.kind.startsWith('status 5')) {
          stats.unexpected5xx++;
          violation.detail += ` (server log: ${lastLoggedError(server.logs)})`;
        }
        record({ ...violation, route: testCase.route, index, notes: testCase.notes, raw: testCase.raw });
      }
      if (stats.sent % healthEvery === 0) await checkHealth(`after request ${index}`);
      if (Date.now() - lastProgress > 10_000) {
        lastProgress = Date.now();
        log(
          `${Math.round((Date.now() - startedAt) / 1000)} s: ${stats.sent} requests, ${stats.crashes} crashes, ${stats.failures.length} failures recorded, RSS ${mb(rssOf(server.pid))}`,
        );
      }
    }
  }

  await Promise.all(Array.from({ length: workers }, worker));
  if (!server.alive) await (crashHandling ??= onCrash());
  await checkHealth('at the end');
  stats.rss.end = rssOf(server.pid);
  stats.durationMs = Date.now() - startedAt;
  const lost = await server.credentialsWork();
  if (!lost.token || !lost.session) stats.credentialsLost = lost;
  return stats;
}

async function startServer(server) {
  await server.start();
  return server.fixtures();
}

/** The message of the last error the server logged (a 500 is logged with its cause). */
function lastLoggedError(logs) {
  const lines = logs.split('\n').filter((line) => line.includes('"level":50'));
  try {
    const entry = JSON.parse(lines.at(-1) ?? '{}');
    const cause = /caused by: ([^\n]*)/.exec(entry.err?.stack ?? '');
    return `${entry.err?.message ?? entry.msg ?? 'nothing logged'}${cause === null ? '' : `; caused by ${cause[1]}`}`.slice(0, 300);
  } catch {
    return 'unreadable';
  }
}

/** The error line of an uncaught exception: Node prints it as plain text (the server's own log lines are JSON). */
function crashError(logs) {
  const plain = logs.split('\n').filter((line) => !line.startsWith('{'));
  const line = plain.find((text) => /^[A-Za-z]*Error\b/.test(text)) ?? plain.find((text) => /Error/.test(text));
  return line === undefined ? 'no error line in the log' : line.slice(0, 200);
}

function writeReplay(outDir, seed, skipKnown, handler, failure) {
  const base = path.join(outDir, `seed${seed}-case${failure.index}-${failure.kind.replace(/[^a-z0-9]+/gi, '-')}`);
  writeFileSync(`${base}.http`, failure.raw ?? Buffer.alloc(0));
  writeFileSync(
    `${base}.json`,
    JSON.stringify(
      {
        seed,
        index: failure.index,
        skipKnown,
        handler,
        route: failure.route,
        kind: failure.kind,
        detail: failure.detail,
        notes: failure.notes,
        rawFile: `${base}.http`,
      },
      null,
      2,
    ),
  );
  return `${base}.json`;
}

export const mb = (bytes) => (bytes === null || bytes === undefined ? 'n/a' : `${(bytes / 1024 / 1024).toFixed(1)} MB`);
