/**
 * A short fixed-seed slice of the fuzz suite (fuzz/, docs/fuzzing.md): a
 * real `indiestack serve` gets generated hostile requests over raw HTTP/1.1
 * on every route; any crash, unexpected 5xx, leaked internals, unanswered
 * request, broken keep-alive or failing /healthz fails this test, and its
 * message says how to replay each failing request.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SEED = 20261124;
const SECONDS = 15;

interface Violation {
  readonly kind: string;
  readonly detail: string;
}
type CheckExchange = (result: unknown, testCase: unknown, context: unknown) => Violation[];

function runFuzz(args: readonly string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'fuzz', 'run.mjs'), '--no-build', ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

describe('fuzz suite', () => {
  const outDir = mkdtempSync(path.join(os.tmpdir(), 'indiestack-fuzz-test-'));
  afterAll(() => rmSync(outDir, { recursive: true, force: true }));

  it('its invariants catch a 500, a stack trace, a silent server and a broken keep-alive', async () => {
    const { checkExchange } = (await import(path.join(ROOT, 'fuzz', 'invariants.mjs'))) as { checkExchange: CheckExchange };
    const testCase = { raw: Buffer.from('GET / HTTP/1.1\r\n\r\n'), allow501: false, holds: false };
    const context = { serverPaths: ['/srv/data'], deadlineMs: 10_000, checkKeepAlive: true };
    const answer = (status: number, body: string) => ({ status, headers: {}, body: Buffer.from(body) });
    const exchange = (responses: ReturnType<typeof answer>[], extra = {}) => ({
      data: Buffer.from(responses.map((r) => r.body.toString()).join('')),
      responses,
      timedOut: false,
      probe: null,
      ...extra,
    });
    expect(checkExchange(exchange([answer(200, 'ok')]), testCase, context)).toEqual([]);
    expect(checkExchange(exchange([answer(500, '')]), testCase, context).map((v) => v.kind)).toEqual(['status 500']);
    expect(checkExchange(exchange([answer(501, 'not_implemented')]), { ...testCase, allow501: true }, context)).toEqual([]);
    expect(
      checkExchange(exchange([answer(400, 'TypeError: x\n    at f (/app/dist/a.js:1:2)')]), testCase, context).map((v) => v.kind),
    ).toContain('leak');
    expect(checkExchange(exchange([answer(404, 'no /srv/data/x here')]), testCase, context).map((v) => v.kind)).toEqual(['leak']);
    expect(checkExchange(exchange([], { timedOut: true }), testCase, context).map((v) => v.kind)).toEqual(['no answer']);
    const broken = exchange([answer(400, 'bad')], { probe: { data: Buffer.alloc(0), error: 'ECONNRESET' } });
    expect(checkExchange(broken, testCase, context).map((v) => v.kind)).toEqual(['keep-alive broken']);
  });

  it(`a ${SECONDS} s run with seed ${SEED} over every route finds no crash, 5xx, leak, hang or broken connection`, async () => {
    const { code, output } = await runFuzz(['--seconds', String(SECONDS), '--seed', String(SEED), '--workers', '4', '--out', outDir]);
    const summary = output.slice(output.indexOf('fuzz summary'));
    expect(summary, output).toContain('fuzz summary');
    expect(
      code,
      `the fuzz run failed; replay commands below (files are removed after the test: rerun "npm run fuzz -- --seconds ${SECONDS} --seed ${SEED}" to keep them)\n${summary}`,
    ).toBe(0);
    const { ROUTES } = (await import(path.join(ROOT, 'fuzz', 'routes.mjs'))) as { ROUTES: { id: string }[] };
    const reached = new Set([...summary.matchAll(/^ {4}([a-z0-9-]+) +\d+ /gm)].map((match) => match[1]));
    expect(ROUTES.filter((route) => !reached.has(route.id)).map((route) => route.id)).toEqual([]);
  }, 120_000);
});
