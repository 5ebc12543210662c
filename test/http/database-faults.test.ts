/**
 * Issue 15, faults: a real `indiestack serve` whose database goes away
 * answers fast 503s (with Retry-After) instead of hanging or 500s, says so
 * on /healthz, and recovers by itself when the database is back — no
 * restart, nothing lost, nothing half-written.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lastLine, runCli } from '../helpers/cli.js';
import { startPostgres, type RunningPostgres } from '../helpers/postgres.js';
import { killServe, startServe, waitFor, type ServeProcess } from '../helpers/serve.js';

interface Timed {
  readonly status: number;
  readonly headers: Headers;
  readonly body: string;
  readonly ms: number;
}

async function timed(url: string, init: RequestInit = {}): Promise<Timed> {
  const started = performance.now();
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(30_000) });
  const body = await response.text();
  return { status: response.status, headers: response.headers, body, ms: performance.now() - started };
}

const micropubCreate = (base: string, token: string, content: string) =>
  timed(`${base}/indieweb/micropub/`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ h: 'entry', content }).toString(),
  });

const sendMention = (base: string, source: string) =>
  timed(`${base}/indieweb/webmention/`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ source, target: `${base}/indieweb/` }).toString(),
  });

describe('PostgreSQL stopped under a running server', () => {
  let postgres: RunningPostgres;
  let cwd: string;
  let env: Record<string, string>;
  let serve: ServeProcess | undefined;
  let base: string;
  let token: string;

  beforeAll(async () => {
    postgres = await startPostgres();
    const admin = new pg.Client({ connectionString: postgres.adminUrl });
    await admin.connect();
    await admin.query('create database faults');
    await admin.end();
    cwd = mkdtempSync(path.join(os.tmpdir(), 'indiestack-db-faults-'));
    env = {
      INDIEWEB_DATABASE_URL: postgres.adminUrl.replace(/\/postgres$/, '/faults'),
      INDIEWEB_DATABASE_TIMEOUT: '2',
      INDIEWEB_SECRET: 'x'.repeat(40),
    };
    const added = await runCli(['user', 'add', 'alice', '--me', 'https://alice.example/', '--password-stdin'], {
      cwd,
      env,
      input: 'a long password\n',
    });
    expect(added.code).toBe(0);
    const issued = await runCli(['token', 'issue', '--user', 'alice', '--client-id', 'https://app.example/', '--scope', 'create'], {
      cwd,
      env,
    });
    expect(issued.code).toBe(0);
    token = lastLine(issued.stdout);
    serve = await startServe(cwd, env);
    base = serve.base;
  }, 120_000);

  afterAll(async () => {
    await killServe(serve);
    await postgres.dispose();
    rmSync(cwd, { recursive: true, force: true });
  });

  it('works, then answers 503 fast on every surface while the database is down, then recovers without a restart', async () => {
    expect((await micropubCreate(base, token, 'before')).status).toBe(201);
    expect((await sendMention(base, 'https://source.example/before')).status).toBe(201);

    await postgres.stop();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(serve?.child.exitCode, serve?.log.join('')).toBeNull();

    const health = await timed(`${base}/healthz`);
    expect(health.status).toBe(503);
    expect(JSON.parse(health.body)).toEqual({ status: 'unavailable' });

    const micropub = await micropubCreate(base, token, 'while down');
    expect(micropub.status).toBe(503);
    expect(micropub.headers.get('retry-after')).toBe('5');
    expect(JSON.parse(micropub.body)).toEqual({ error: 'temporarily_unavailable' });

    const mention = await sendMention(base, 'https://source.example/while-down');
    expect(mention.status).toBe(503);
    expect(mention.body).toBe('temporarily_unavailable');

    const exchange = await timed(`${base}/indieweb/token/`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: 'x'.repeat(43),
        client_id: 'https://app.example/',
        redirect_uri: 'https://app.example/cb',
      }).toString(),
    });
    expect(exchange.status).toBe(503);
    expect(JSON.parse(exchange.body)).toEqual({ error: 'temporarily_unavailable' });

    const signIn = await timed(`${base}/indieweb/login/`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'username=alice&password=a+long+password',
      redirect: 'manual',
    });
    expect(signIn.status).toBeGreaterThanOrEqual(400);
    expect(signIn.status).not.toBe(500);

    // no answer hung, none carried internals
    for (const answer of [health, micropub, mention, exchange, signIn]) {
      expect(answer.ms).toBeLessThan(10_000);
      expect(answer.body).not.toMatch(/ECONNREFUSED|at .*\.js|postgres:\/\//);
    }
    expect(serve?.child.exitCode).toBeNull();

    await postgres.start();
    expect(await waitFor(async () => (await fetch(`${base}/healthz`)).status === 200, 30_000)).toBe(true);
    // the same token (stored before the outage) works: nothing was lost, the pool reconnected by itself
    expect((await micropubCreate(base, token, 'after')).status).toBe(201);
    expect((await sendMention(base, 'https://source.example/after')).status).toBe(201);

    const list = await runCli(['webmention', 'list'], { cwd, env });
    expect(list.code).toBe(0);
    expect(list.stdout).toContain('https://source.example/before');
    expect(list.stdout).toContain('https://source.example/after');
    expect(list.stdout).not.toContain('while-down');
  }, 120_000);
});

describe('SQLite locked by another process', () => {
  let cwd: string;
  let serve: ServeProcess | undefined;
  let base: string;
  const env = { INDIEWEB_DATABASE_TIMEOUT: '1' };

  beforeAll(async () => {
    cwd = mkdtempSync(path.join(os.tmpdir(), 'indiestack-sqlite-lock-'));
    serve = await startServe(cwd, env);
    base = serve.base;
  }, 60_000);

  afterAll(async () => {
    await killServe(serve);
    rmSync(cwd, { recursive: true, force: true });
  });

  /** Another process takes the write lock of the server's SQLite file and keeps it until its stdin closes. */
  async function holdWriteLock(): Promise<ChildProcess> {
    const betterSqlite = createRequire(import.meta.url).resolve('better-sqlite3');
    const script = `
      const Database = require(${JSON.stringify(betterSqlite)});
      const db = new Database(${JSON.stringify(path.join(cwd, 'data', 'indiestack.sqlite'))});
      db.exec('BEGIN IMMEDIATE');
      process.stdout.write('locked\\n');
      process.stdin.on('end', () => { db.exec('ROLLBACK'); db.close(); });
      process.stdin.resume();`;
    const locker = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
    const [chunk] = (await once(locker.stdout, 'data')) as [Buffer];
    expect(chunk.toString()).toBe('locked\n');
    return locker;
  }

  it('a write answers 503 after the lock wait, reads and /healthz keep working, and writes work again once the lock is gone', async () => {
    // no mention before the lock: its verification job would queue its own lock waits ahead of the request
    const locker = await holdWriteLock();
    try {
      const refused = await sendMention(base, 'https://source.example/locked');
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('5');
      expect(refused.body).toBe('temporarily_unavailable');
      // the wait is INDIEWEB_DATABASE_TIMEOUT (1 s), not a hang
      expect(refused.ms).toBeLessThan(5_000);
      // WAL: readers are not blocked by a writer elsewhere
      expect((await timed(`${base}/healthz`)).status).toBe(200);
    } finally {
      locker.stdin?.end();
      await once(locker, 'exit');
    }
    expect((await sendMention(base, 'https://source.example/after')).status).toBe(201);
    const list = await runCli(['webmention', 'list'], { cwd, env });
    expect(list.code).toBe(0);
    expect(list.stdout).toContain('https://source.example/after');
    expect(list.stdout).not.toContain('https://source.example/locked');
    expect(serve?.child.exitCode).toBeNull();
  }, 60_000);
});
