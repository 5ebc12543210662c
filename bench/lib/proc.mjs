/**
 * Processes of the benchmark: the indiestack servers and the baseline, each
 * in its own process on loopback; their memory (from /proc) and CPU use.
 */
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export const ROOT = path.resolve(import.meta.dirname, '..', '..');
const BIN = path.join(ROOT, 'bin', 'indiestack.js');

/** The environment without any INDIEWEB_* of the caller: every run starts from the defaults. */
function cleanEnv(extra) {
  const env = {};
  for (const [name, value] of Object.entries(process.env)) if (!name.startsWith('INDIEWEB_')) env[name] = value;
  return { ...env, ...extra };
}

export function serverEnv(dataDir, extra = {}) {
  return cleanEnv({ INDIEWEB_DATA_DIR: dataDir, INDIEWEB_LOG_LEVEL: 'warn', ...extra });
}

/** Runs the built CLI (`env`: more settings, such as INDIEWEB_DATABASE_URL); returns its stdout. */
export function cli(dataDir, args, input, env = {}) {
  return execFileSync(process.execPath, [BIN, ...args], {
    env: serverEnv(dataDir, env),
    input,
    encoding: 'utf8',
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

export async function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** GET on loopback; resolves to { status, body } or null when nothing answers. */
export function get(url, headers = {}) {
  return new Promise((resolve) => {
    const request = http.get(url, { headers, agent: false }, (response) => {
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode, body: Buffer.concat(chunks).toString('utf8'), headers: response.headers }),
      );
      response.on('error', () => resolve(null));
    });
    request.on('error', () => resolve(null));
    request.setTimeout(5_000, () => request.destroy());
  });
}

function collectOutput(child) {
  const output = [];
  const keep = (chunk) => {
    output.push(chunk.toString('utf8'));
    if (output.length > 200) output.shift();
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return output;
}

/**
 * Spawns a process and polls `healthUrl` every few milliseconds until it
 * answers 200. Resolves to { child, pid, output, startMs }.
 */
export async function spawnUntilHealthy(args, { env, healthUrl, timeoutMs = 30_000, pollMs = 5 }) {
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, args, { env, cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const output = collectOutput(child);
  let exited = null;
  child.once('exit', (code, signal) => (exited = { code, signal }));
  for (;;) {
    if (exited !== null) throw new Error(`${args.join(' ')} exited (${JSON.stringify(exited)}) before it was healthy:\n${output.join('')}`);
    const answer = await get(healthUrl);
    if (answer?.status === 200) break;
    if (Number(process.hrtime.bigint() - started) / 1e6 > timeoutMs) {
      child.kill('SIGKILL');
      throw new Error(`${args.join(' ')} not healthy after ${timeoutMs} ms:\n${output.join('')}`);
    }
    await sleep(pollMs);
  }
  const startMs = Number(process.hrtime.bigint() - started) / 1e6;
  return { child, pid: child.pid, output, startMs };
}

/** `indiestack serve` on loopback with its own data dir; the in-memory handler and SQLite are the defaults. */
export async function startIndiestack(dataDir, { pollMs, env = {} } = {}) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const started = await spawnUntilHealthy([BIN, 'serve', '--host', '127.0.0.1', '--port', String(port)], {
    env: serverEnv(dataDir, env),
    healthUrl: `${url}/healthz`,
    ...(pollMs === undefined ? {} : { pollMs }),
  });
  return { ...started, port, url, dataDir };
}

export async function startBaseline(payloadFile) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const started = await spawnUntilHealthy([path.join(ROOT, 'bench', 'baseline-server.mjs'), String(port), payloadFile], {
    env: cleanEnv({}),
    healthUrl: `${url}/healthz`,
  });
  return { ...started, port, url };
}

/** The local page server that webmention sources point at. */
export async function startSourceServer() {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const started = await spawnUntilHealthy([path.join(ROOT, 'bench', 'source-server.mjs'), String(port)], {
    env: cleanEnv({}),
    healthUrl: `${url}/healthz`,
  });
  return { ...started, port, url };
}

export async function stop(server) {
  if (server === undefined || server.child.exitCode !== null || server.child.signalCode !== null) return;
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGTERM');
  const timer = setTimeout(() => server.child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

/** VmRSS and VmHWM of a process in bytes. */
export function memoryOf(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
    return { rss: field('VmRSS'), hwm: field('VmHWM') };
  } catch {
    return { rss: NaN, hwm: NaN };
  }
}

/** Samples VmRSS every `everyMs` until stopped; stop() resolves to the peak in bytes. */
export function sampleRss(pid, everyMs = 50) {
  let peak = memoryOf(pid).rss;
  const timer = setInterval(() => {
    const { rss } = memoryOf(pid);
    if (rss > peak) peak = rss;
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      const { rss } = memoryOf(pid);
      return Math.max(peak, Number.isNaN(rss) ? 0 : rss);
    },
  };
}

/** CPU time (user + system) the process has used, in 10 ms ticks; NaN once it is gone. */
export function cpuTicks(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of the whole line
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return NaN;
  }
}

/**
 * Waits until the process stops burning CPU (at most 2 ticks in 200 ms), so
 * requests still queued from one workload do not spill into the next.
 */
export async function waitIdle(pid, maxMs = 120_000) {
  const deadline = Date.now() + maxMs;
  let last = cpuTicks(pid);
  while (Date.now() < deadline) {
    await sleep(200);
    const now = cpuTicks(pid);
    if (Number.isNaN(now) || now - last <= 2) return true;
    last = now;
  }
  return false;
}

function systemTicks() {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal
  const busy = fields[0] + fields[1] + fields[2] + fields[5] + fields[6];
  return { busy, all: fields.slice(0, 8).reduce((sum, value) => sum + value, 0) };
}

const ownTicks = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 10_000; // microseconds → 10 ms ticks
};

/**
 * Measures how many cores processes other than `pids` and this one kept
 * busy (other people's test runs on a shared machine skew every number).
 */
export function otherLoad(pids) {
  const start = { system: systemTicks(), own: ownTicks(), pids: pids.map(cpuTicks) };
  return {
    stop() {
      const system = systemTicks();
      const own = ownTicks() - start.own;
      const ours = pids.map(cpuTicks).reduce((sum, ticks, i) => sum + (ticks - start.pids[i]), 0);
      const elapsed = system.all - start.system.all;
      if (elapsed <= 0) return 0;
      const cores = readFileSync('/proc/stat', 'utf8')
        .split('\n')
        .filter((line) => /^cpu\d/.test(line)).length;
      const other = (system.busy - start.system.busy - own - ours) / elapsed;
      return Math.max(0, Math.round(other * cores * 100) / 100);
    },
  };
}

/** Waits (at most `maxMs`) until other processes keep less than `cores` busy over a second. */
export async function waitQuiet(pids, { cores = 0.25, maxMs = 0 } = {}) {
  if (maxMs <= 0) return 0;
  const started = Date.now();
  for (;;) {
    const probe = otherLoad(pids);
    await sleep(1_000);
    const load = probe.stop();
    if (load < cores || Date.now() - started >= maxMs) return Date.now() - started;
  }
}
