/**
 * Issue 28 class 1: a webmention source is parsed in the parse pool, off the
 * event loop, within a time budget. A source whose markup the microformats
 * parser reads in quadratic time (one link with 100,000 distinct rel values,
 * under the 1 MiB a fetch reads; minutes to parse) fails its own mention
 * with a clear reason, never retried, while the server keeps answering; a
 * good source verified after it is not held up.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJobsRepository } from '../../src/storage/repositories/jobs.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { accepted, drain, linkingPage, PRIVATE_OK, recordOf, SITE, startSourceServer, type SourceServer } from '../helpers/webmention.js';

const TARGET = `${SITE}/posts/slow`;
const slowPage = (target: string) =>
  `<div class="h-entry"><a class="u-in-reply-to" href="${target}">re</a><a href="/x" rel="${Array.from({ length: 100_000 }, (_, i) => `r${i}`).join(' ')}">x</a></div>`;

describe('a source page over the parse budget', () => {
  let t: TestApp;
  let source: SourceServer;

  beforeAll(async () => {
    t = await buildTestApp({ env: PRIVATE_OK });
    source = await startSourceServer();
  });
  afterAll(async () => {
    await t.close();
    await source.close();
  });

  it('fails its mention with a clear reason, not retried, while other requests are answered; a good source then verifies', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      source.set(`/slow/${i}`, slowPage(TARGET));
      ids.push(await accepted(t, source.url(`/slow/${i}`), TARGET));
    }
    let drained = false;
    const draining = drain(t).then(() => (drained = true));
    // wait until every slow page has been fetched, so their parses are under way
    while (ids.some((_, i) => source.hits(`/slow/${i}`) === 0)) await new Promise((resolve) => setImmediate(resolve));
    let before = 0;
    for (let i = 0; i < 5; i++) {
      const other = await t.app.inject({ method: 'GET', url: '/indieweb/login/' });
      expect(other.statusCode).toBe(200);
      if (!drained) before += 1;
    }
    expect(before).toBe(5);
    await draining;
    for (const id of ids) {
      const record = await recordOf(t, id);
      expect(record.status).toBe('failed');
      expect(record.error).toBe('source page took too long to read');
      expect(await createJobsRepository(t.database.db, t.database.dialect).findByRef('webmention.verify', id)).toBeNull();
    }

    source.set('/good', linkingPage(TARGET));
    const good = await accepted(t, source.url('/good'), TARGET);
    await drain(t);
    expect((await recordOf(t, good)).status).toBe('verified');
  });
});
