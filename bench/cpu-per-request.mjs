/**
 * CPU per request of one server (issue 31): a JSON create (or, with
 * `update`, a replace of one of 200 entries in turn) under 32 connections, measured as the server process's own CPU time (its
 * /proc/<pid>/stat user + system) over each round, divided by the requests
 * answered. Less noisy on a shared or small machine than requests per second,
 * which also move with the load generator and every other process.
 * `postgres` runs the database handler on an embedded PostgreSQL of its own
 * and also prints the CPU of PostgreSQL's processes (the backends, the WAL
 * writer) per request.
 *
 *   node bench/cpu-per-request.mjs [database|memory|postgres] [rounds] [seconds] [create|update]
 *
 * Needs a build (`npm run build`); prints one line per round, the first a warm-up.
 * @module
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cannon } from './lib/load.mjs';
import { startPostgres } from './lib/postgres.mjs';
import { cpuTicks, startIndiestack, stop } from './lib/proc.mjs';
import { createAccount, createEntries, entryUrls } from './lib/seed.mjs';

const [handler = 'database', rounds = '5', seconds = '5', operation = 'create'] = process.argv.slice(2);
if (
  !['database', 'memory', 'postgres'].includes(handler) ||
  !(Number(rounds) > 0) ||
  !(Number(seconds) > 0) ||
  !['create', 'update'].includes(operation)
) {
  process.stderr.write('usage: node bench/cpu-per-request.mjs [database|memory|postgres] [rounds] [seconds] [create|update]\n');
  process.exit(2);
}

/** The CPU ticks of the postmaster and its children (the backends, the WAL writer, autovacuum), found by parent pid. */
function postgresTicks(postmaster) {
  let ticks = 0;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (Number(name) === postmaster || parent === postmaster) ticks += cpuTicks(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return ticks;
}

/** The postmaster of the server on `port`: a `postgres` process whose command line names the port. */
function postmasterOf(port) {
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const command = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      if (command[0]?.endsWith('postgres') && command.includes(String(port))) return Number(name);
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'indiestack-cpu-'));
const postgres = handler === 'postgres' ? await startPostgres() : undefined;
const postmaster = postgres === undefined ? undefined : postmasterOf(new URL(postgres.url).port);
const env = {
  INDIEWEB_MICROPUB_HANDLER: handler === 'memory' ? 'memory' : 'database',
  ...(postgres === undefined ? {} : { INDIEWEB_DATABASE_URL: postgres.url }),
};
const token = createAccount(dir, env);
const server = await startIndiestack(dir, { env });
const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
const create = {
  method: 'POST',
  path: '/indieweb/micropub/',
  headers,
  body: JSON.stringify({ type: ['h-entry'], properties: { content: ['hi'] } }),
};
// updates replace the content of 200 entries in turn (32 connections rarely update one entry at once)
if (operation === 'update') await createEntries(server, token, 200);
const targets = operation === 'update' ? await entryUrls(server, token, 200) : [];
let next = 0;
const request =
  operation === 'create'
    ? create
    : {
        ...create,
        setupRequest: (request) => ({
          ...request,
          body: JSON.stringify({ action: 'update', url: targets[next++ % targets.length], replace: { content: ['updated'] } }),
        }),
      };
try {
  for (let round = 0; round < Number(rounds); round++) {
    const before = cpuTicks(server.pid);
    const databaseBefore = postmaster === undefined ? 0 : postgresTicks(postmaster);
    const result = await cannon({ url: server.url, connections: 32, requests: [request], duration: Number(seconds) });
    const ticks = cpuTicks(server.pid) - before;
    const databaseTicks = postmaster === undefined ? 0 : postgresTicks(postmaster) - databaseBefore;
    const answered = result.requests.total;
    const label = round === 0 ? 'warm-up' : `round ${round}`;
    process.stdout.write(
      `${handler} ${operation} ${label}: ${Math.round(answered / Number(seconds))} req/s, ${((ticks * 10_000) / answered).toFixed(1)} µs CPU a request` +
        (postmaster === undefined ? '' : ` (+ PostgreSQL ${((databaseTicks * 10_000) / answered).toFixed(1)} µs)`) +
        `, non-2xx ${result.non2xx}\n`,
    );
  }
} finally {
  await stop(server);
  await postgres?.stop();
  rmSync(dir, { recursive: true, force: true });
}
