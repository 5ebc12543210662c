import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';

describe('the job worker: one per core, features register their job kinds', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ worker: false });
  });
  afterAll(async () => {
    await t.close();
  });

  it('the one worker runs the kinds the features registered: webmention verification, webhook delivery, sending; syndication and its backfeed polls', () => {
    expect(t.app.indieweb.jobs.kinds()).toEqual([
      'webmention.verify',
      'webmention.webhook',
      'webmention.send',
      'syndication.sync',
      'syndication.poll',
    ]);
  });

  it('a kind registered twice is refused, naming it (two features cannot both own a job kind)', () => {
    const handler = { run: async () => {}, giveUp: async () => {} };
    expect(() => t.app.indieweb.jobs.register('webmention.verify', handler)).toThrow('job kind "webmention.verify" is registered twice');
  });
});
