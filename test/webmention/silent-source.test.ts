/**
 * A webmention source that never answers, or drips its page a byte a second
 * forever, costs one worker slot for INDIEWEB_OUTBOUND_TIMEOUT and nothing
 * more: its job ends (failed, to be retried) within about that time and its
 * connection is closed, mentions from other sources are verified meanwhile
 * (the worker's other slots, and its polling, go on), and /healthz stays fast.
 * @see issue 15 deliver 5, SPEC.md "Webmention status"
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJobsRepository, type JobRecord } from '../../src/storage/repositories/jobs.js';
import { VERIFY_JOB } from '../../src/webmention/service.js';
import { backoffSeconds } from '../../src/jobs/worker.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { type FaultyPeer, startFaultyPeer } from '../helpers/faults.js';
import { eventually } from '../helpers/media.js';
import { accepted, linkingPage, PRIVATE_OK, SITE, startSourceServer, statusOf, type SourceServer } from '../helpers/webmention.js';

const TARGET = `${SITE}/post`;
const TIMEOUT_S = 3;

describe(`webmention jobs with a source that never answers (INDIEWEB_OUTBOUND_TIMEOUT=${TIMEOUT_S}, worker running)`, () => {
  let t: TestApp;
  let silent: FaultyPeer;
  let drip: FaultyPeer;
  let source: SourceServer;

  const jobOf = (id: string): Promise<JobRecord | null> =>
    createJobsRepository(t.database.db, t.database.dialect).findByRef(VERIFY_JOB, id);
  /** The job was claimed and has ended: rescheduled (transient failure) or done. */
  const ended = async (id: string) => {
    const job = await jobOf(id);
    return job === null || (job.attempts >= 1 && job.lockedUntil === null);
  };

  beforeAll(async () => {
    t = await buildTestApp({ env: { ...PRIVATE_OK, INDIEWEB_OUTBOUND_TIMEOUT: String(TIMEOUT_S) }, worker: true });
    silent = await startFaultyPeer('silent');
    drip = await startFaultyPeer('drip');
    source = await startSourceServer();
    for (let n = 1; n <= 4; n++) source.set(`/ok/${n}`, linkingPage(TARGET));
    // the parsers load on the first mention: do it now, so the timing below is the fetch's own
    source.set('/ok/0-warm', linkingPage(TARGET));
    const warm = await accepted(t, source.url('/ok/0-warm'), TARGET);
    expect(await eventually(async () => (await jobOf(warm)) === null, 10_000)).toBe(true);
  });
  afterAll(async () => {
    await t.close();
    await silent.close();
    await drip.close();
    await source.close();
  });

  it('each hanging job ends within about the timeout (failed, retried later), its connection is closed, other sources are verified meanwhile, and /healthz stays fast', async () => {
    const started = performance.now();
    const hanging = [await accepted(t, `${silent.origin}/post`, TARGET), await accepted(t, `${drip.origin}/post`, TARGET)];
    expect(await eventually(() => silent.open === 1 && drip.open === 1, 2000)).toBe(true);

    // two slots are held; the other two verify mentions from a working source
    const others: string[] = [];
    for (let n = 1; n <= 4; n++) others.push(await accepted(t, source.url(`/ok/${n}`), TARGET));
    expect(
      await eventually(
        async () => (await Promise.all(others.map((id) => statusOf(t, id)))).every((status) => status.status === 'verified'),
        2000,
      ),
    ).toBe(true);
    const health = performance.now();
    const healthz = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(healthz.statusCode).toBe(200);
    expect(performance.now() - health).toBeLessThan(500);
    for (const id of hanging) expect(await ended(id)).toBe(false);

    expect(await eventually(async () => (await ended(hanging[0]!)) && (await ended(hanging[1]!)), (TIMEOUT_S + 5) * 1000, 50)).toBe(true);
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_S * 1000);
    expect(elapsed).toBeLessThan((TIMEOUT_S + 4) * 1000);
    for (const id of hanging) {
      expect(await statusOf(t, id)).toMatchObject({ status: 'failed', verified_at: null });
      const job = await jobOf(id);
      expect(job).toMatchObject({
        attempts: 1,
        lockedUntil: null,
        runAt: new Date(t.clock.now().getTime() + backoffSeconds(1) * 1000).toISOString(),
      });
      expect(job?.lastError).toMatch(new RegExp(`did not (answer|send its answer) within ${TIMEOUT_S * 1000} ms`));
    }
    // nothing of the fetch is left: both connections are closed by us
    expect(await eventually(() => silent.open === 0 && drip.open === 0, 2000)).toBe(true);
    // their retries would only hang again in the next test
    for (const id of hanging) await t.app.indieweb.webmention.remove(id);
  });

  it('a retry that comes due while a source hangs runs at the next poll, not after the hang', async () => {
    source.set('/retry', { status: 503 });
    const retried = await accepted(t, source.url('/retry'), TARGET);
    expect(await eventually(() => ended(retried), 2000)).toBe(true);
    source.set('/retry', linkingPage(TARGET));

    const hanging = await accepted(t, `${silent.origin}/again`, TARGET);
    expect(await eventually(() => silent.open === 1, 2000)).toBe(true);
    // due now, but nothing wakes the worker: only its polling (every second) finds it
    t.clock.advance(backoffSeconds(1));
    expect(await eventually(async () => (await statusOf(t, retried)).status === 'verified', 2000)).toBe(true);
    expect(await ended(hanging)).toBe(false);
    expect(await eventually(() => ended(hanging), (TIMEOUT_S + 5) * 1000, 50)).toBe(true);
  });
});
