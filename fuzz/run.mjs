#!/usr/bin/env node
/**
 * `npm run fuzz -- --seconds N --seed S`: fuzzes a real `indiestack serve`
 * over raw HTTP/1.1 and prints a summary and how to replay every failure.
 * `npm run fuzz -- --replay FILE` (or `--seed S --index I`) replays one case
 * against a fresh server. See docs/fuzzing.md.
 *
 * Flags: --seconds N (60), --seed S (random), --workers N (6),
 * --deadline-ms N (10000), --health-every N (50), --out DIR (a new temp dir),
 * --skip-known (leave out the cases of known, open bugs), --no-build,
 * --handler database|memory (the content handler of the server, database).
 */
import { execSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { mb, runCampaign } from './campaign.mjs';
import { generateCase } from './generators.mjs';
import { exchange, health } from './http.mjs';
import { checkExchange, preview } from './invariants.mjs';
import { ROOT, ServerUnderTest } from './server.mjs';
import { formatSummary } from './summary.mjs';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '60' },
    seed: { type: 'string' },
    index: { type: 'string' },
    workers: { type: 'string', default: '6' },
    'deadline-ms': { type: 'string', default: '10000' },
    'health-every': { type: 'string', default: '50' },
    out: { type: 'string' },
    replay: { type: 'string' },
    'skip-known': { type: 'boolean', default: false },
    'no-build': { type: 'boolean', default: false },
    handler: { type: 'string', default: 'database' },
  },
});
const log = (message) => process.stderr.write(`[fuzz ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
const integer = (name) => {
  const value = Number(values[name]);
  if (!Number.isInteger(value) || value < 0) throw new Error(`--${name}: "${values[name]}" is not a non-negative integer`);
  return value;
};

if (values.handler !== 'database' && values.handler !== 'memory')
  throw new Error(`--handler: "${values.handler}" is not database or memory`);
if (!values['no-build']) execSync('npm run build', { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });

if (values.replay !== undefined || values.index !== undefined) {
  const spec =
    values.replay !== undefined
      ? JSON.parse(readFileSync(values.replay, 'utf8'))
      : { seed: integer('seed'), index: integer('index'), skipKnown: values['skip-known'], handler: values.handler };
  process.exitCode = await replay(spec);
} else {
  const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : integer('seed');
  const outDir = values.out ?? mkdtempSync(path.join(os.tmpdir(), 'indiestack-fuzz-'));
  log(`seed ${seed}, ${values.seconds} s, ${values.handler} handler, replay files in ${outDir}`);
  const stats = await runCampaign({
    seconds: integer('seconds'),
    seed,
    workers: Math.max(1, integer('workers')),
    deadlineMs: integer('deadline-ms'),
    healthEvery: Math.max(1, integer('health-every')),
    skipKnown: values['skip-known'],
    handler: values.handler,
    outDir,
    log,
  });
  process.stdout.write(formatSummary(stats));
  process.exitCode = stats.failures.length > 0 ? 1 : 0;
}

/** Replays one case against a fresh server: the violations, whether the process survived, /healthz. */
async function replay({ seed, index, skipKnown, handler = 'database' }) {
  const server = new ServerUnderTest({ handler });
  try {
    await server.start();
    const creds = await server.fixtures();
    const testCase = generateCase(seed, index, creds, { skipKnown });
    log(`case ${index} of seed ${seed}: ${testCase.route}; ${testCase.notes.join('; ') || 'valid request'}; ${testCase.raw.length} bytes`);
    log(`request head: ${preview(testCase.raw.subarray(0, Math.max(0, testCase.raw.indexOf('\r\n\r\n'))), 600)}`);
    const result = await exchange(server.port, testCase.wire, { deadlineMs: Number(values['deadline-ms']), probe: true });
    for (const response of result.responses) log(`answer: ${response.status} ${preview(response.body)}`);
    if (result.responses.length === 0) log(`no answer (${result.timedOut ? 'timed out' : (result.error ?? 'closed')})`);
    const violations = checkExchange(result, testCase, {
      serverPaths: [server.dataDir, ROOT.replace(/\/$/, '')],
      deadlineMs: Number(values['deadline-ms']),
      checkKeepAlive: !skipKnown,
    });
    await sleep(500);
    if (!server.alive) violations.push({ kind: 'crash', detail: `process exited:\n${server.logs.slice(-1500)}` });
    else {
      const answer = await health(server.port);
      if (answer.status !== 200) violations.push({ kind: 'healthz', detail: `/healthz ${answer.status ?? answer.error}` });
    }
    for (const violation of violations) log(`VIOLATION ${violation.kind}: ${violation.detail}`);
    if (violations.length > 0 && server.logs.trim() !== '') log(`server log (warn and above):\n${server.logs.slice(-3000)}`);
    log(violations.length === 0 ? 'no violation: the case passes now' : `${violations.length} violation(s) reproduced`);
    log(`server RSS ${mb((await import('./server.mjs')).rssOf(server.pid))}`);
    return violations.length === 0 ? 0 : 1;
  } finally {
    await server.destroy();
  }
}
