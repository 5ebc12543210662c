import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../src/core/clock.js';
import { createJobWorker, RetryLaterError } from '../../src/jobs/worker.js';
import { createJobsRepository } from '../../src/storage/repositories/jobs.js';
import { openTestDatabase } from '../helpers/databases.js';

describe('a job retried when the other side said (RetryLaterError.retryAfterMs)', () => {
  it('runs again after that wait instead of the backoff; without it, after the backoff', async () => {
    const database = await openTestDatabase('sqlite');
    try {
      const jobs = createJobsRepository(database.db, database.dialect);
      const clock = createManualClock('2026-01-01T00:00:00.000Z');
      const worker = createJobWorker({ jobs, clock, leaseSeconds: 60, log: { info() {}, warn() {}, error() {} } });
      let calls = 0;
      worker.register('test.kind', {
        async run() {
          calls += 1;
          if (calls === 1) throw new RetryLaterError('busy', { retryAfterMs: 1500 });
          if (calls === 2) throw new RetryLaterError('busy again');
        },
        async giveUp() {},
      });
      await jobs.enqueue({ id: 'j1', kind: 'test.kind', ref: 'r', now: clock.now().toISOString() });
      expect(await worker.drain()).toBe(1);
      expect((await jobs.findByRef('test.kind', 'r'))?.runAt).toBe('2026-01-01T00:00:01.500Z');
      clock.advance(1.5);
      expect(await worker.drain()).toBe(1);
      expect((await jobs.findByRef('test.kind', 'r'))?.runAt).toBe('2026-01-01T00:01:01.500Z');
    } finally {
      await database.dispose();
    }
  });
});
