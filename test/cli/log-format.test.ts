/**
 * Issue 30 item 12: the log of `serve` is readable lines for a person and
 * JSON lines for a collector (INDIEWEB_LOG_FORMAT: auto, json, pretty); a
 * spawned server's output is read as each would read it. Neither carries a
 * secret: the session secret, a password, an access token in the header or
 * the query, an authorization code.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lastLine, runCli, startCli } from '../helpers/cli.js';
import { freePort } from '../helpers/net.js';
import { waitFor } from '../helpers/serve.js';

const SECRET = 'log-format-secret-that-is-long-enough-0123456789';
const PASSWORD = 'log format password 7f3a9c';
const CODE = 'authorization-code-5b2e8d1c';

let cwd: string;
let token: string;

beforeAll(async () => {
  cwd = mkdtempSync(path.join(os.tmpdir(), 'indiestack-log-format-'));
  const env = { INDIEWEB_SECRET: SECRET };
  const added = await runCli(['user', 'add', 'alice', '--me', 'https://alice.example/', '--password-stdin'], {
    cwd,
    env,
    input: `${PASSWORD}\n`,
  });
  expect(added.code, added.stderr).toBe(0);
  const issued = await runCli(['token', 'issue', '--user', 'alice', '--client-id', 'https://app.example/', '--scope', 'create'], {
    cwd,
    env,
  });
  expect(issued.code, issued.stderr).toBe(0);
  token = lastLine(issued.stdout);
});
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

/** Runs `serve` with this log format, makes requests that carry every kind of secret, stops it; its standard output. */
async function logOf(format: string | undefined): Promise<string> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const child: ChildProcess = startCli(['serve', '--port', String(port)], {
    cwd,
    env: { INDIEWEB_SECRET: SECRET, INDIEWEB_LOG_LEVEL: 'info', ...(format === undefined ? {} : { INDIEWEB_LOG_FORMAT: format }) },
  });
  let stdout = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr?.resume();
  try {
    expect(await waitFor(async () => (await fetch(`${base}/healthz`)).ok, 20_000)).toBe(true);
    expect((await fetch(`${base}/indieweb/micropub/?q=config`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    await fetch(`${base}/indieweb/micropub/?q=config&access_token=${token}`);
    await fetch(`${base}/indieweb/auth/?code=${CODE}&code_verifier=${CODE}`);
    await fetch(`${base}/indieweb/token/`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: CODE, client_id: 'https://app.example/' }).toString(),
    });
    await fetch(`${base}/indieweb/login/`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ username: 'alice', password: PASSWORD }).toString(),
    });
    // a path with a newline and an escape sequence, spelled with escapes: nothing may forge a line
    await fetch(`${base}/alice/%0AFAKE%1B[31m`);
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
  return stdout;
}

function expectNoSecret(log: string): void {
  for (const secret of [SECRET, PASSWORD, token, CODE]) expect(log).not.toContain(secret);
}

describe('the log of serve (INDIEWEB_LOG_FORMAT)', () => {
  it('pretty: one readable line per event — time, level, message, key=value — and no secret', async () => {
    const log = await logOf('pretty');
    const lines = log.split('\n').filter((line) => line !== '');
    expect(lines.length).toBeGreaterThan(5);
    for (const line of lines) {
      expect(line, line).toMatch(/^\d\d:\d\d:\d\d\.\d{3} (TRACE|DEBUG|INFO |WARN |ERROR|FATAL) \S/);
      expect(line).not.toContain('\u001b');
    }
    expect(log).toMatch(/INFO  indiestack is serving baseUrl=http:\/\/127\.0\.0\.1:\d+\n/);
    expect(log).toMatch(/INFO  request completed reqId=\S+ res\.statusCode=200 responseTime=/);
    expect(log).toContain('access_token=%5Bredacted%5D');
    expectNoSecret(log);
  }, 60_000);

  for (const format of ['json', undefined])
    it(`${format ?? 'auto'} (standard output is a pipe here): every line a JSON object, and no secret`, async () => {
      const log = await logOf(format);
      const lines = log.split('\n').filter((line) => line !== '');
      expect(lines.length).toBeGreaterThan(5);
      const records = lines.map((line) => JSON.parse(line) as { level: number; time: number; msg: string });
      for (const record of records) {
        expect(typeof record.level).toBe('number');
        expect(typeof record.time).toBe('number');
      }
      expect(records.map((record) => record.msg)).toContain('indiestack is serving');
      expectNoSecret(log);
    }, 60_000);
});
