#!/usr/bin/env node
/**
 * `npm run bench`: builds, starts indiestack (and a bare Fastify baseline)
 * in their own processes on loopback, drives them with autocannon from this
 * process, and prints one table. See docs/performance.md.
 *
 * Environment:
 *   BENCH_DURATION     seconds measured per workload and round (default 10)
 *   BENCH_WARMUP       seconds of discarded warm-up before each (default 2)
 *   BENCH_ROUNDS       rounds; workloads are interleaved within each (default 2)
 *   BENCH_CONNECTIONS  autocannon connections (default 32)
 *   BENCH_GROWTH       stored entries/tokens of the large growth server (default 100000)
 *   BENCH_ONLY         comma-separated workload ids to run (default: all;
 *                      config-pg, json-create-pg and the db-*-pg rows start an embedded PostgreSQL;
 *                      db-* are the database handler's rows, issue 31)
 *   BENCH_WAIT_QUIET   seconds to wait, at most, before each workload for other
 *                      processes to go quiet (default 0: measure at once)
 *   BENCH_SKIP_BUILD=1 use dist/ as it is
 *   BENCH_SOAK_SECONDS how long --soak runs its load (default 600)
 * Flags:
 *   --update-docs      rewrite the generated block of docs/performance.md
 *   --soak             instead of the workloads: a database-handler server under a mixed
 *                      create/read load, its RSS sampled every 2 s, and whether it stays flat
 */
import { execFileSync, execSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cannon, measure } from './lib/load.mjs';
import { makePng, multipartBody } from './lib/png.mjs';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  get,
  memoryOf,
  otherLoad,
  ROOT,
  sampleRss,
  startBaseline,
  startIndiestack,
  startSourceServer,
  stop,
  waitIdle,
  waitQuiet,
} from './lib/proc.mjs';
import { formatReport, evaluateTargets, updateDocs } from './lib/report.mjs';
import {
  CLIENT_ID,
  createAccount,
  createEntries,
  entriesWaitingForSearch,
  entryUrls,
  insertAuthCodes,
  insertQueuedWebmentions,
  insertTokens,
  REDIRECT_URI,
  webmentionStatuses,
} from './lib/seed.mjs';
import { startPostgres } from './lib/postgres.mjs';
import { concurrentUploads } from './lib/uploads.mjs';
import { formatSoak, soak } from './lib/soak.mjs';

const MiB = 1024 * 1024;
const number = (name, fallback) => {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name}: "${raw}" is not a number`);
  return value;
};

const settings = {
  duration: number('BENCH_DURATION', 10),
  warmup: number('BENCH_WARMUP', 2),
  rounds: Math.max(1, Math.round(number('BENCH_ROUNDS', 2))),
  connections: Math.max(1, Math.round(number('BENCH_CONNECTIONS', 32))),
  growth: Math.max(200, Math.round(number('BENCH_GROWTH', 100_000))),
  small: 100,
  coldRuns: 5,
  bigUploads: 20,
  bigUploadBytes: 10 * MiB,
  mediaBytes: 1 * MiB,
  mentions: 1_000,
  only: (process.env.BENCH_ONLY ?? '')
    .split(',')
    .map((id) => id.trim())
    .filter((id) => id !== ''),
  build: process.env.BENCH_SKIP_BUILD !== '1',
  waitQuiet: number('BENCH_WAIT_QUIET', 0),
  updateDocs: process.argv.includes('--update-docs'),
  soak: process.argv.includes('--soak'),
  soakSeconds: Math.max(10, Math.round(number('BENCH_SOAK_SECONDS', 600))),
};
const wanted = (id) =>
  settings.only.length === 0 ||
  settings.only.includes(id) ||
  settings.only.some((group) => id.startsWith(`${group}-`) && group.startsWith('db-'));
/** Every workload id of the database handler's rows (issue 31). */
const DB_IDS = [
  'config',
  'create',
  'update',
  'token-bad-code',
  'source-small',
  'source-large',
  'source-filter-large',
  'page-large',
  'feed-large',
].flatMap((id) => [`db-${id}`, `db-${id}-pg`]);
const selectedIds = () => DB_IDS.filter((id) => wanted(id) || wanted(id.replace(/-(small|large)(-pg)?$/, '$2')));
const log = (message) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);

function machine() {
  const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8');
  const model = /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1]?.trim() ?? os.cpus()[0]?.model ?? 'unknown';
  return {
    nproc: Number(execFileSync('nproc', { encoding: 'utf8' }).trim()),
    cpu: model,
    memoryGiB: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    os: `${os.type()} ${os.release()}`,
  };
}

function gitCommit() {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short=10', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const dirty =
      execFileSync('git', ['status', '--porcelain', '--', 'src', 'bin', 'package.json'], { cwd: ROOT, encoding: 'utf8' }).trim() !== '';
    return { commit, dirty };
  } catch {
    return { commit: 'unknown', dirty: true };
  }
}

/** Removes the files the media workloads stored (the disk would fill up otherwise); rows stay. */
function emptyDir(dir) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) emptyDir(full);
    else {
      try {
        unlinkSync(full);
      } catch (error) {
        if (error.code !== 'ENOENT') throw error;
      }
    }
  }
}

/**
 * Queues `count` mentions in the database of a running server, then watches
 * the worker verify them against the local source server. The clock starts
 * at the first finished mention, so the worker's poll interval is not counted.
 */
async function processQueuedMentions(server, source, count) {
  const sampler = sampleRss(server.pid, 20);
  await insertQueuedWebmentions(server.dataDir, count, { sourceBase: source.url, target: server.target });
  const queued = Date.now();
  let first = null;
  let atFirst = 0;
  let statuses;
  for (;;) {
    statuses = webmentionStatuses(server.dataDir);
    const done = statuses.verified + statuses.failed;
    if (done > 0 && first === null) {
      first = performance.now();
      atFirst = done;
    }
    if (done >= count || Date.now() - queued > 180_000) break;
    await sleep(10);
  }
  const seconds = first === null ? Infinity : (performance.now() - first) / 1000;
  const done = statuses.verified + statuses.failed;
  const rate = seconds > 0 && Number.isFinite(seconds) ? (done - atFirst) / seconds : 0;
  return {
    count,
    done,
    verified: statuses.verified,
    failed: statuses.failed,
    rate,
    seconds: rate > 0 ? count / rate : Infinity,
    peakRss: sampler.stop(),
  };
}

/** Sequential `GET /healthz` latencies (ms) until `until()` says stop or `count` are taken. */
async function healthzLatencies(server, { count = Infinity, until = () => false } = {}) {
  const latencies = [];
  while (latencies.length < count && !until()) {
    const started = performance.now();
    await get(`${server.url}/healthz`);
    latencies.push(performance.now() - started);
  }
  return latencies;
}

/**
 * `/healthz` while 20 pathological source pages are parsed (issue 28 class 1): its median idle,
 * then while the worker verifies 20 queued mentions whose sources take minutes to parse (each
 * stopped at the parse budget), as a ratio.
 */
async function healthzUnderParse(server, source, count) {
  const idle = await healthzLatencies(server, { count: 200 });
  await insertQueuedWebmentions(server.dataDir, count, { sourceBase: source.url, target: server.target, kind: 'slow' });
  const queued = Date.now();
  let finished = false;
  const watch = (async () => {
    for (;;) {
      const statuses = webmentionStatuses(server.dataDir);
      if (statuses.verified + statuses.failed >= count || Date.now() - queued > 180_000) break;
      await sleep(50);
    }
    finished = true;
  })();
  const busy = await healthzLatencies(server, { until: () => finished });
  await watch;
  const statuses = webmentionStatuses(server.dataDir);
  return {
    count,
    failed: statuses.failed,
    verified: statuses.verified,
    seconds: (Date.now() - queued) / 1000,
    idleMedian: median(idle),
    busyMedian: median(busy),
    busyMax: Math.max(...busy),
    samples: busy.length,
  };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? NaN : sorted[Math.floor(sorted.length / 2)];
};

/** A path on `server` for an absolute entry URL made under another base (the server's own in the bench). */
const pathOf = (url) => new URL(url).pathname;

async function coldStarts(tmp) {
  const fresh = [];
  const migrated = [];
  for (let i = 0; i < settings.coldRuns; i++) {
    const dir = path.join(tmp, `cold-${i}`);
    const first = await startIndiestack(dir, { pollMs: 2 });
    await stop(first);
    fresh.push(first.startMs);
    const second = await startIndiestack(dir, { pollMs: 2 });
    await stop(second);
    migrated.push(second.startMs);
  }
  return { fresh, migrated };
}

/** `--soak`: the memory of a database-handler server under a long mixed load (issue 31). */
async function mainSoak() {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'indiestack-bench-'));
  const run = { settings, machine: machine(), ...gitCommit(), date: new Date().toISOString() };
  try {
    log(`soak: ${settings.soakSeconds} s of mixed load on a database-handler server`);
    run.soak = await soak({ tmp, seconds: settings.soakSeconds, everyMs: 2_000, connections: settings.connections, log });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  process.stdout.write(`${formatSoak(run)}\n`);
  const resultsDir = path.join(ROOT, 'bench', 'results');
  mkdirSync(resultsDir, { recursive: true });
  const file = path.join(resultsDir, `${run.date.slice(0, 10)}-${run.commit}-soak.json`);
  writeFileSync(file, `${JSON.stringify(run, null, 2)}\n`);
  log(`wrote ${path.relative(ROOT, file)}`);
  if (run.soak.verdict.flat === false) process.exitCode = 1;
}

async function main() {
  const started = Date.now();
  if (settings.build) {
    log('npm run build');
    execSync('npm run build', { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  }
  if (settings.soak) return mainSoak();
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'indiestack-bench-'));
  const servers = [];
  let postgres;
  const run = { settings, machine: machine(), ...gitCommit(), date: new Date().toISOString(), rounds: {}, extra: {} };
  try {
    // cold start first, on a quiet machine
    if (wanted('cold-start')) {
      await waitQuiet([], { maxMs: settings.waitQuiet * 1000 });
      // the servers started here are ours, so other processes are measured just before
      const other = otherLoad([]);
      await sleep(1_000);
      const otherBefore = other.stop();
      log(`cold start ×${settings.coldRuns}`);
      run.extra.coldStart = { ...(await coldStarts(tmp)), otherLoad: otherBefore };
    }

    // the main server: account, token, codes for the token endpoint
    const mainDir = path.join(tmp, 'main');
    const token = createAccount(mainDir);
    const codePool = Math.ceil(6_000 * (settings.duration + settings.warmup) * settings.rounds);
    let codes = [];
    if (wanted('token-exchange')) {
      log(`inserting ${codePool} authorization codes`);
      codes = insertAuthCodes(mainDir, codePool);
    }
    const main = await startIndiestack(mainDir);
    servers.push(main);
    const auth = { authorization: `Bearer ${token}` };
    const configAnswer = await get(`${main.url}/indieweb/micropub/?q=config`, auth);
    if (configAnswer?.status !== 200) throw new Error(`q=config answered ${configAnswer?.status}: ${configAnswer?.body}`);
    const payloadFile = path.join(tmp, 'config.json');
    writeFileSync(payloadFile, configAnswer.body);
    run.extra.configBytes = Buffer.byteLength(configAnswer.body);

    const baseline = await startBaseline(payloadFile);
    servers.push(baseline);
    const baselineAnswer = await get(`${baseline.url}/config`);
    run.extra.baselineBytes = Buffer.byteLength(baselineAnswer.body);

    // the same server on PostgreSQL (embedded, on this machine): an account and token of its own
    let mainPg;
    let authPg;
    if (wanted('config-pg') || wanted('json-create-pg')) {
      log('starting an embedded PostgreSQL');
      postgres = await startPostgres();
      const pgEnv = { INDIEWEB_DATABASE_URL: postgres.url };
      const pgDir = path.join(tmp, 'main-pg');
      authPg = { authorization: `Bearer ${createAccount(pgDir, pgEnv)}` };
      mainPg = await startIndiestack(pgDir, { env: pgEnv });
      servers.push(mainPg);
      const answer = await get(`${mainPg.url}/indieweb/micropub/?q=config`, authPg);
      if (answer?.status !== 200) throw new Error(`q=config on PostgreSQL answered ${answer?.status}: ${answer?.body}`);
    }

    // a server of its own for the 10 MiB uploads, so its peak memory is theirs alone
    let upload;
    let uploadToken;
    if (wanted('media-20x10mib')) {
      const uploadDir = path.join(tmp, 'upload');
      uploadToken = createAccount(uploadDir);
      upload = await startIndiestack(uploadDir);
      servers.push(upload);
    }

    // growth: the same account with 100 and with BENCH_GROWTH stored entries and tokens
    const growth = {};
    if (wanted('growth-source') || wanted('growth-token')) {
      for (const [size, count] of [
        ['small', settings.small],
        ['large', settings.growth],
      ]) {
        const dir = path.join(tmp, `growth-${size}`);
        const cliToken = createAccount(dir);
        log(`growth ${size}: inserting ${count - 1} more tokens`);
        const tokens = [cliToken, ...insertTokens(dir, count - 1, Math.min(count - 1, 999))];
        const server = await startIndiestack(dir);
        servers.push(server);
        log(`growth ${size}: creating ${count} entries over HTTP`);
        const seconds = await createEntries(server, cliToken, count, settings.connections);
        log(`growth ${size}: ${count} entries in ${seconds.toFixed(1)} s`);
        run.extra[`growthSeed_${size}`] = { entries: count, tokens: count, entrySeconds: seconds, rssAfterSeed: memoryOf(server.pid).rss };
        growth[size] = { server, token: cliToken, tokens };
      }
    }

    // the database handler (issue 31): the configuration people should run, on SQLite and on PostgreSQL
    const db = {};
    const dbWanted = (suffix) => selectedIds().some((id) => id.startsWith('db-') && (suffix === 'pg') === id.endsWith('-pg'));
    for (const dialect of ['sqlite', 'pg']) {
      if (!dbWanted(dialect)) continue;
      if (dialect === 'pg' && postgres === undefined) {
        log('starting an embedded PostgreSQL');
        postgres = await startPostgres();
      }
      const env = { INDIEWEB_MICROPUB_HANDLER: 'database', ...(dialect === 'pg' ? { INDIEWEB_DATABASE_URL: postgres.url } : {}) };
      const servers_ = {};
      for (const [size, count] of [
        ['main', 200],
        ['small', settings.small],
        ['large', settings.growth],
      ]) {
        if (
          size !== 'main' &&
          !selectedIds().some((id) => id.startsWith('db-') && (id.includes('source') || id.includes('page') || id.includes('feed')))
        )
          continue;
        if (size === 'small' && !selectedIds().some((id) => /^db-source-(small|large)/.test(id))) continue;
        // PostgreSQL: one database for all three servers would mix their accounts; each gets its own
        const dir = path.join(tmp, `db-${dialect}-${size}`);
        const serverEnv_ = dialect === 'pg' ? { ...env, INDIEWEB_DATABASE_URL: await postgres.createDatabase(`bench_${size}`) } : env;
        const serverToken = createAccount(dir, serverEnv_);
        const server = await startIndiestack(dir, { env: serverEnv_ });
        servers.push(server);
        log(`database handler (${dialect}) ${size}: creating ${count} entries over HTTP`);
        const seconds = await createEntries(server, serverToken, count, settings.connections);
        log(`database handler (${dialect}) ${size}: ${count} entries in ${seconds.toFixed(1)} s`);
        run.extra[`dbSeed_${dialect}_${size}`] = { entries: count, entrySeconds: seconds, rssAfterSeed: memoryOf(server.pid).rss };
        // the entry search index (migrations 0021, 0022) is written in the server's idle time: resolves to the seconds it
        // took to take every entry (the filter rows measure it caught up; the rows after a create run wait for it)
        const searchCaughtUp = async () => {
          const started = Date.now();
          while ((await entriesWaitingForSearch(dir, serverEnv_.INDIEWEB_DATABASE_URL)) > 0 && Date.now() - started < 300_000)
            await sleep(250);
          return (Date.now() - started) / 1000;
        };
        {
          const indexSeconds = await searchCaughtUp();
          log(`database handler (${dialect}) ${size}: entry search index caught up ${indexSeconds.toFixed(1)} s after the creates`);
          run.extra[`dbSeed_${dialect}_${size}`].searchIndexSeconds = indexSeconds;
        }
        const newest = await entryUrls(server, serverToken, 200);
        servers_[size] = { server, token: serverToken, urls: newest, searchCaughtUp };
      }
      db[dialect] = servers_;
    }

    const png = makePng(settings.mediaBytes);
    const media = multipartBody(png);
    const bigPng = makePng(settings.bigUploadBytes);
    const big = multipartBody(bigPng);

    let nextCode = 0;
    const rotating = (values) => {
      let index = 0;
      return () => values[index++ % values.length];
    };

    /** Every autocannon workload: id, server, request. */
    const workloads = [
      { id: 'baseline', server: baseline, request: { method: 'GET', path: '/config' } },
      { id: 'config', server: main, request: { method: 'GET', path: '/indieweb/micropub/?q=config', headers: auth } },
      {
        id: 'json-create',
        server: main,
        request: {
          method: 'POST',
          path: '/indieweb/micropub/',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({ type: ['h-entry'], properties: { content: ['hi'] } }),
        },
      },
      ...(mainPg === undefined
        ? []
        : [
            { id: 'config-pg', server: mainPg, request: { method: 'GET', path: '/indieweb/micropub/?q=config', headers: authPg } },
            {
              id: 'json-create-pg',
              server: mainPg,
              request: {
                method: 'POST',
                path: '/indieweb/micropub/',
                headers: { ...authPg, 'content-type': 'application/json' },
                body: JSON.stringify({ type: ['h-entry'], properties: { content: ['hi'] } }),
              },
            },
          ]),
      {
        id: 'form-create',
        server: main,
        request: {
          method: 'POST',
          path: '/indieweb/micropub/',
          headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded' },
          body: 'h=entry&content=hi',
        },
      },
      {
        id: 'token-exchange',
        server: main,
        request: {
          method: 'POST',
          path: '/indieweb/token/',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          setupRequest: (request) => {
            const code = codes[Math.min(nextCode++, codes.length - 1)];
            const body = new URLSearchParams({
              grant_type: 'authorization_code',
              code,
              client_id: CLIENT_ID,
              redirect_uri: REDIRECT_URI,
            }).toString();
            return { ...request, body };
          },
        },
      },
      {
        id: 'media-1mib',
        server: main,
        request: { method: 'POST', path: '/indieweb/media/', headers: { ...auth, 'content-type': media.contentType }, body: media.body },
        after: () => emptyDir(path.join(mainDir, 'media')),
      },
    ];
    for (const size of ['small', 'large']) {
      const g = growth[size];
      if (g === undefined) continue;
      const next = rotating(g.tokens);
      workloads.push({
        id: `growth-token-${size}`,
        group: 'growth-token',
        server: g.server,
        request: {
          method: 'GET',
          path: '/indieweb/token/',
          headers: { accept: 'application/json' },
          setupRequest: (request) => ({ ...request, headers: { accept: 'application/json', authorization: `Bearer ${next()}` } }),
        },
      });
    }
    for (const size of ['small', 'large']) {
      const g = growth[size];
      if (g === undefined) continue;
      workloads.push({
        id: `growth-source-${size}`,
        group: 'growth-source',
        server: g.server,
        request: { method: 'GET', path: '/indieweb/micropub/?q=source', headers: { authorization: `Bearer ${g.token}` } },
      });
    }
    const badCode = new URLSearchParams({
      grant_type: 'authorization_code',
      code: 'no-such-code-0123456789abcdefghijklmnop',
      client_id: CLIENT_ID,
      redirect_uri: REDIRECT_URI,
    }).toString();
    workloads.push({
      id: 'token-bad-code',
      server: main,
      request: {
        method: 'POST',
        path: '/indieweb/token/',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: badCode,
      },
    });
    for (const [dialect, suffix] of [
      ['sqlite', ''],
      ['pg', '-pg'],
    ]) {
      const d = db[dialect];
      if (d === undefined) continue;
      if (d.main !== undefined) {
        const auth_ = { authorization: `Bearer ${d.main.token}` };
        const nextUrl = rotating(d.main.urls);
        workloads.push(
          {
            id: `db-config${suffix}`,
            server: d.main.server,
            request: { method: 'GET', path: '/indieweb/micropub/?q=config', headers: auth_ },
          },
          {
            id: `db-create${suffix}`,
            server: d.main.server,
            // the search index takes what a create run wrote afterwards: the next rows are measured once it has
            afterwards: d.main.searchCaughtUp,
            request: {
              method: 'POST',
              path: '/indieweb/micropub/',
              headers: { ...auth_, 'content-type': 'application/json' },
              body: JSON.stringify({ type: ['h-entry'], properties: { content: ['hi'] } }),
            },
          },
          {
            id: `db-update${suffix}`,
            server: d.main.server,
            request: {
              method: 'POST',
              path: '/indieweb/micropub/',
              headers: { ...auth_, 'content-type': 'application/json' },
              // 200 entries in turn: 32 connections rarely update one entry at once
              setupRequest: (request) => ({
                ...request,
                body: JSON.stringify({ action: 'update', url: nextUrl(), replace: { content: ['updated'] } }),
              }),
            },
          },
          {
            id: `db-token-bad-code${suffix}`,
            server: d.main.server,
            request: {
              method: 'POST',
              path: '/indieweb/token/',
              headers: { 'content-type': 'application/x-www-form-urlencoded' },
              body: badCode,
            },
          },
        );
      }
      for (const size of ['small', 'large']) {
        const g = d[size];
        if (g === undefined) continue;
        workloads.push({
          id: `db-source-${size}${suffix}`,
          group: `db-source${suffix}`,
          server: g.server,
          request: { method: 'GET', path: '/indieweb/micropub/?q=source&limit=20', headers: { authorization: `Bearer ${g.token}` } },
        });
        if (size === 'large') {
          // a filter no entry matches: every one of the user's entries is looked at (issue 31: ~10 req/s at 10,000 before)
          workloads.push({
            id: `db-source-filter-large${suffix}`,
            group: `db-source-filter${suffix}`,
            server: g.server,
            request: {
              method: 'GET',
              path: '/indieweb/micropub/?q=source&limit=20&filter=matches-nothing',
              headers: { authorization: `Bearer ${g.token}` },
            },
          });
        }
      }
      if (d.large !== undefined) {
        const entry = d.large.urls[d.large.urls.length - 1];
        workloads.push(
          {
            id: `db-page-large${suffix}`,
            group: `db-page${suffix}`,
            server: d.large.server,
            request: { method: 'GET', path: pathOf(entry) },
          },
          {
            id: `db-feed-large${suffix}`,
            group: `db-feed${suffix}`,
            server: d.large.server,
            request: { method: 'GET', path: pathOf(new URL('../../../feed.atom', entry).href) },
          },
          {
            // the author's home page: the newest 20 and the count of every listed entry
            id: `db-home-large${suffix}`,
            group: `db-home${suffix}`,
            server: d.large.server,
            request: { method: 'GET', path: pathOf(new URL('../../../', entry).href) },
          },
        );
      }
    }
    const selected = workloads.filter((workload) => wanted(workload.id) || (workload.group !== undefined && wanted(workload.group)));

    // webmention: servers of their own, one per round (the queue a receive run leaves behind is thrown away with them)
    let source;
    if (wanted('webmention-receive') || wanted('webmention-process') || wanted('healthz-under-parse')) {
      source = await startSourceServer();
      servers.push(source);
    }
    const webmentionServer = async (name) => {
      const server = await startIndiestack(path.join(tmp, name), { env: { INDIEWEB_ALLOW_PRIVATE_NETWORKS: 'true' } });
      return { ...server, target: `${server.url}/indieweb/entries/bench-target` };
    };
    let mentionNumber = 0;
    if (wanted('webmention-receive')) {
      selected.push({
        id: 'webmention-receive',
        start: (round) => webmentionServer(`webmention-receive-${round}`),
        request: (server) => ({
          method: 'POST',
          path: '/indieweb/webmention/',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          setupRequest: (request) => {
            const body = new URLSearchParams({
              source: `${source.url}/post/${mentionNumber++}?target=${encodeURIComponent(server.target)}`,
              target: server.target,
            }).toString();
            return { ...request, body };
          },
        }),
      });
    }

    for (let round = 1; round <= settings.rounds; round++) {
      for (const workload of selected) {
        const server = workload.server ?? (await workload.start(round));
        if (workload.server === undefined) servers.push(server);
        const pids = servers.map((s) => s.pid);
        if (!(await waitIdle(server.pid))) log(`warning: ${workload.id}: its server is still busy with earlier requests`);
        const waited = await waitQuiet(pids, { maxMs: settings.waitQuiet * 1000 });
        log(
          `round ${round}/${settings.rounds}: ${workload.id}${waited > 1500 ? ` (waited ${(waited / 1000).toFixed(0)} s for quiet)` : ''}`,
        );
        const sampler = sampleRss(server.pid);
        const other = otherLoad(pids);
        const result = await measure({
          url: server.url,
          connections: settings.connections,
          duration: settings.duration,
          warmup: settings.warmup,
          request: typeof workload.request === 'function' ? workload.request(server) : workload.request,
        });
        result.peakRss = sampler.stop();
        result.otherLoad = other.stop();
        if (workload.afterwards !== undefined) {
          result.searchIndexSeconds = await workload.afterwards();
          log(`${workload.id}: the entry search index took the entries of the run ${result.searchIndexSeconds.toFixed(1)} s after it`);
        }
        (run.rounds[workload.id] ??= []).push(result);
        if (workload.server === undefined) {
          await stop(server);
          servers.splice(servers.indexOf(server), 1);
          continue;
        }
        // requests still queued in the server must not spill into the next workload
        if (!(await waitIdle(server.pid))) log(`warning: ${workload.id}: its server is still busy after two minutes`);
        workload.after?.();
      }
      if (upload !== undefined) {
        await waitIdle(upload.pid);
        log(`round ${round}/${settings.rounds}: media-20x10mib`);
        const other = otherLoad(servers.map((server) => server.pid));
        const result = await concurrentUploads({
          server: upload,
          token: uploadToken,
          body: big.body,
          contentType: big.contentType,
          count: settings.bigUploads,
        });
        result.otherLoad = other.stop();
        (run.rounds['media-20x10mib'] ??= []).push(result);
        emptyDir(path.join(upload.dataDir, 'media'));
      }
      if (wanted('healthz-under-parse')) {
        const server = await webmentionServer(`healthz-under-parse-${round}`);
        servers.push(server);
        log(`round ${round}/${settings.rounds}: healthz-under-parse`);
        const other = otherLoad(servers.map((s) => s.pid));
        const result = await healthzUnderParse(server, source, 20);
        result.otherLoad = other.stop();
        (run.rounds['healthz-under-parse'] ??= []).push(result);
        await stop(server);
        servers.splice(servers.indexOf(server), 1);
      }
      if (wanted('webmention-process')) {
        const server = await webmentionServer(`webmention-process-${round}`);
        servers.push(server);
        log(`round ${round}/${settings.rounds}: webmention-process`);
        const other = otherLoad(servers.map((s) => s.pid));
        const result = await processQueuedMentions(server, source, settings.mentions);
        result.otherLoad = other.stop();
        (run.rounds['webmention-process'] ??= []).push(result);
        await stop(server);
        servers.splice(servers.indexOf(server), 1);
      }
    }
    if (codes.length > 0 && nextCode >= codes.length)
      log(`warning: the ${codes.length} prepared codes ran out; later exchanges were refused`);
    run.extra.codesUsed = nextCode;
    run.totalSeconds = (Date.now() - started) / 1000;
  } finally {
    for (const server of servers.reverse()) await stop(server).catch(() => {});
    await postgres?.stop().catch(() => {});
    rmSync(tmp, { recursive: true, force: true });
  }

  const targets = evaluateTargets(run);
  run.targets = targets;
  const report = formatReport(run, targets);
  process.stdout.write(`${report}\n`);

  const resultsDir = path.join(ROOT, 'bench', 'results');
  mkdirSync(resultsDir, { recursive: true });
  const file = path.join(resultsDir, `${run.date.slice(0, 10)}-${run.commit}.json`);
  writeFileSync(file, `${JSON.stringify(run, null, 2)}\n`);
  log(`wrote ${path.relative(ROOT, file)} (${run.totalSeconds.toFixed(0)} s in all)`);
  if (settings.updateDocs) {
    updateDocs(path.join(ROOT, 'docs', 'performance.md'), run, report);
    log('updated docs/performance.md');
  }
}

await main();
