import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type StandaloneServer } from '../../src/app/server.js';
import { createJobsRepository, type JobRecord } from '../../src/storage/repositories/jobs.js';
import { VERIFY_JOB } from '../../src/webmention/service.js';
import { backoffSeconds, MAX_ATTEMPTS } from '../../src/jobs/worker.js';
import { buildTestApp, form, TEST_SECRET, type TestApp } from '../helpers/app.js';
import { startCli } from '../helpers/cli.js';
import { DIALECTS, freshLocation } from '../helpers/databases.js';
import { freePort } from '../helpers/global-setup.js';
import {
  accepted,
  drain,
  linkingPage,
  PRIVATE_OK,
  SITE,
  startSourceServer,
  statusOf,
  submit,
  type SourceServer,
  type StatusJson,
} from '../helpers/webmention.js';

const TARGET = `${SITE}/post`;

function jobOf(t: TestApp, id: string): Promise<JobRecord | null> {
  return createJobsRepository(t.database.db, t.database.dialect).findByRef(VERIFY_JOB, id);
}

describe('webmention jobs: transient failures', () => {
  let t: TestApp;
  let source: SourceServer;
  let counter = 0;
  const fresh = () => `/j/${++counter}`;

  beforeAll(async () => {
    t = await buildTestApp({ env: PRIVATE_OK });
    source = await startSourceServer();
  });
  afterAll(async () => {
    await t.close();
    await source.close();
  });

  it('a 503 source is retried with backoff: failed at once (spec), job kept, nothing runs before the backoff, verified once the source is back', async () => {
    const path = fresh();
    source.set(path, { status: 503, body: 'busy' });
    const id = await accepted(t, source.url(path), TARGET);

    expect(await drain(t)).toBe(1);
    expect(await statusOf(t, id)).toMatchObject({ status: 'failed', verified_at: null });
    const first = await jobOf(t, id);
    expect(first).toMatchObject({
      attempts: 1,
      lockedUntil: null,
      runAt: new Date(t.clock.now().getTime() + backoffSeconds(1) * 1000).toISOString(),
    });
    expect(first?.lastError).toMatch(/503/);

    expect(await drain(t)).toBe(0);
    t.clock.advance(backoffSeconds(1) - 1);
    expect(await drain(t)).toBe(0);
    expect(source.hits(path)).toBe(1);

    t.clock.advance(1);
    expect(await drain(t)).toBe(1);
    expect(source.hits(path)).toBe(2);
    expect((await statusOf(t, id)).status).toBe('failed');
    expect(await jobOf(t, id)).toMatchObject({ attempts: 2 });
    expect(backoffSeconds(2)).toBeGreaterThan(backoffSeconds(1));

    source.set(path, linkingPage(TARGET));
    t.clock.advance(backoffSeconds(2) - 1);
    expect(await drain(t)).toBe(0);
    t.clock.advance(1);
    expect(await drain(t)).toBe(1);
    expect(await statusOf(t, id)).toMatchObject({ status: 'verified', verified_at: t.clock.now().toISOString() });
    expect(await jobOf(t, id)).toBeNull();
    expect(source.hits(path)).toBe(3);
  });

  it.each([500, 502, 504, 429, 408])('a %i answer is transient too: the mention is failed and the job is rescheduled', async (status) => {
    const path = fresh();
    source.set(path, { status });
    const id = await accepted(t, source.url(path), TARGET);
    await drain(t);
    expect((await statusOf(t, id)).status).toBe('failed');
    expect(await jobOf(t, id)).toMatchObject({ attempts: 1, lockedUntil: null });
    t.clock.advance(3600);
    source.set(path, linkingPage(TARGET));
    await drain(t);
    expect((await statusOf(t, id)).status).toBe('verified');
  });

  it('a refused connection is retried: failed while the source server is down, verified after it is back', async () => {
    const path = fresh();
    source.set(path, linkingPage(TARGET));
    const id = await accepted(t, source.url(path), TARGET);
    await source.stop();
    try {
      expect(await drain(t)).toBe(1);
      expect((await statusOf(t, id)).status).toBe('failed');
      expect(await jobOf(t, id)).toMatchObject({ attempts: 1 });
      t.clock.advance(backoffSeconds(1) - 1);
      expect(await drain(t)).toBe(0);
    } finally {
      await source.resume();
    }
    t.clock.advance(1);
    expect(await drain(t)).toBe(1);
    expect((await statusOf(t, id)).status).toBe('verified');
    expect(source.hits(path)).toBe(1);
  });

  it(`after ${MAX_ATTEMPTS} transient failures the mention becomes failed and the job is gone`, async () => {
    const path = fresh();
    source.set(path, { status: 503 });
    const id = await accepted(t, source.url(path), TARGET);
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      expect((await statusOf(t, id)).status).toBe(attempt === 1 ? 'pending' : 'failed');
      expect(await drain(t)).toBe(1);
      t.clock.advance(backoffSeconds(attempt));
    }
    expect(source.hits(path)).toBe(MAX_ATTEMPTS);
    expect(await statusOf(t, id)).toMatchObject({ status: 'failed', verified_at: null });
    expect(await jobOf(t, id)).toBeNull();
    t.clock.advance(86_400);
    expect(await drain(t)).toBe(0);
    expect(source.hits(path)).toBe(MAX_ATTEMPTS);
  });

  it('a re-send while the job runs is not lost: the source is fetched again afterwards', async () => {
    const path = fresh();
    source.set(path, linkingPage(TARGET, { content: `old text <a href="${TARGET}">link</a>` }));
    const hold = source.hold(path);
    const id = await accepted(t, source.url(path), TARGET);
    const running = drain(t);
    await hold.waiting();
    t.clock.advance(1);
    expect((await submit(t, source.url(path), TARGET)).id).toBe(id);
    hold.release();
    source.set(path, linkingPage(TARGET, { content: `new text <a href="${TARGET}">link</a>` }));
    expect(await running).toBe(2);
    expect(source.hits(path)).toBe(2);
    expect((await statusOf(t, id)).content).toBe('new text link');
    expect(await jobOf(t, id)).toBeNull();
  });
});

for (const dialect of DIALECTS) {
  describe(`webmention jobs on ${dialect}: two workers`, () => {
    let t: TestApp;
    let other: StandaloneServer;
    let source: SourceServer;

    beforeAll(async () => {
      t = await buildTestApp({ dialect, env: PRIVATE_OK });
      // a second instance on the same database, with its own connection
      other = await createServer({ config: t.config, clock: t.clock, logger: false, worker: false });
      await other.app.ready();
      source = await startSourceServer();
    });
    afterAll(async () => {
      await other.app.close();
      await t.close();
      await source.close();
    });

    it('never process one job twice when both drain concurrently', async () => {
      const ids: string[] = [];
      const paths = Array.from({ length: 16 }, (_, index) => `/two/${index}`);
      for (const p of paths) {
        source.set(p, { body: linkingPage(TARGET), delayMs: 15 });
        ids.push(await accepted(t, source.url(p), TARGET));
      }
      const counts = await Promise.all([
        t.app.indieweb.jobs.drain(),
        t.app.indieweb.jobs.drain(),
        other.app.indieweb.jobs.drain(),
        other.app.indieweb.jobs.drain(),
      ]);
      expect(counts.reduce((a, b) => a + b, 0)).toBe(paths.length);
      // both instances took part
      expect(counts[0]! + counts[1]!).toBeGreaterThan(0);
      expect(counts[2]! + counts[3]!).toBeGreaterThan(0);
      for (const p of paths) expect(source.hits(p), p).toBe(1);
      for (const id of ids) expect((await statusOf(t, id)).status).toBe('verified');
      expect(await createJobsRepository(t.database.db, t.database.dialect).count()).toBe(0);
    });
  });
}

async function waitForHealth(base: string, child: ChildProcess, output: () => string): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}: ${output()}`);
    try {
      if ((await fetch(`${base}/healthz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`server did not start: ${output()}`);
}

async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out: ${what}`)), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

for (const dialect of DIALECTS) {
  describe(`webmention jobs on ${dialect}: crash safety`, () => {
    let cwd: string;
    let location: Awaited<ReturnType<typeof freshLocation>>;
    let source: SourceServer;
    const children: ChildProcess[] = [];
    let output = '';

    const serve = async (): Promise<string> => {
      const port = await freePort();
      const child = startCli(['serve', '--port', String(port)], {
        cwd,
        env: {
          INDIEWEB_DATABASE_URL: location.url,
          INDIEWEB_ALLOW_PRIVATE_NETWORKS: 'true',
          INDIEWEB_JOB_LEASE_SECONDS: '1',
          INDIEWEB_BASE_URL: 'https://blog.example',
          INDIEWEB_SECRET: TEST_SECRET,
          INDIEWEB_LOG_LEVEL: 'warn',
        },
      });
      children.push(child);
      child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
      child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
      const base = `http://127.0.0.1:${port}`;
      await waitForHealth(base, child, () => output);
      return base;
    };

    beforeAll(async () => {
      cwd = mkdtempSync(path.join(os.tmpdir(), 'indiestack-crash-'));
      location = await freshLocation(dialect);
      source = await startSourceServer();
    });
    afterEach(() => {
      output = '';
    });
    afterAll(async () => {
      for (const child of children) {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGKILL');
          await once(child, 'close');
        }
      }
      await source.close();
      await location.drop();
      rmSync(cwd, { recursive: true, force: true });
    });

    it('no job is lost when the worker process is killed mid-job: a second server finishes it', async () => {
      const target = 'https://blog.example/2026/01/post';
      source.set('/slow', linkingPage(target));
      const hold = source.hold('/slow');

      const first = await serve();
      const response = await fetch(`${first}/indieweb/webmention/`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form({ source: source.url('/slow'), target }),
      });
      expect(response.status).toBe(201);
      const location = response.headers.get('location')!;
      expect(location).toMatch(/^https:\/\/blog\.example\/indieweb\/webmention\/[A-Za-z0-9_-]+$/);
      const statusPath = new URL(location).pathname;

      // the first server's worker is inside the fetch: kill it there
      await withTimeout(hold.waiting(1), 10_000, 'the first server fetching the source');
      const victim = children[0]!;
      victim.kill('SIGKILL');
      await once(victim, 'close');

      const second = await serve();
      const pending = (await (await fetch(`${second}${statusPath}`, { headers: { accept: 'application/json' } })).json()) as StatusJson;
      expect(pending.status).toBe('pending');
      hold.release();

      let status: StatusJson | undefined;
      for (let attempt = 0; attempt < 80; attempt++) {
        status = (await (await fetch(`${second}${statusPath}`, { headers: { accept: 'application/json' } })).json()) as StatusJson;
        if (status.status !== 'pending') break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(status).toMatchObject({ status: 'verified', source: source.url('/slow'), target });
      expect(status?.verified_at).not.toBeNull();
      expect(source.hits('/slow')).toBeGreaterThanOrEqual(2);
    });
  });
}
