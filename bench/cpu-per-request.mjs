/**
 * CPU per request of one server (issue 31): a JSON create under 32
 * connections, measured as the server process's own CPU time (its
 * /proc/<pid>/stat user + system) over each round, divided by the requests
 * answered. Less noisy on a shared or small machine than requests per second,
 * which also move with the load generator and every other process.
 *
 *   node bench/cpu-per-request.mjs [database|memory] [rounds] [seconds]
 *
 * Needs a build (`npm run build`); prints one line per round, the first a warm-up.
 * @module
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cannon } from './lib/load.mjs';
import { cpuTicks, startIndiestack, stop } from './lib/proc.mjs';
import { createAccount } from './lib/seed.mjs';

const [handler = 'database', rounds = '5', seconds = '5'] = process.argv.slice(2);
if (!['database', 'memory'].includes(handler) || !(Number(rounds) > 0) || !(Number(seconds) > 0)) {
  process.stderr.write('usage: node bench/cpu-per-request.mjs [database|memory] [rounds] [seconds]\n');
  process.exit(2);
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'indiestack-cpu-'));
const env = { INDIEWEB_MICROPUB_HANDLER: handler };
const token = createAccount(dir, env);
const server = await startIndiestack(dir, { env });
const request = {
  method: 'POST',
  path: '/indieweb/micropub/',
  headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
  body: JSON.stringify({ type: ['h-entry'], properties: { content: ['hi'] } }),
};
try {
  for (let round = 0; round < Number(rounds); round++) {
    const before = cpuTicks(server.pid);
    const result = await cannon({ url: server.url, connections: 32, requests: [request], duration: Number(seconds) });
    const ticks = cpuTicks(server.pid) - before;
    const answered = result.requests.total;
    const label = round === 0 ? 'warm-up' : `round ${round}`;
    process.stdout.write(
      `${handler} ${label}: ${Math.round(answered / Number(seconds))} req/s, ${((ticks * 10_000) / answered).toFixed(1)} µs CPU a request, non-2xx ${result.non2xx}\n`,
    );
  }
} finally {
  await stop(server);
  rmSync(dir, { recursive: true, force: true });
}
