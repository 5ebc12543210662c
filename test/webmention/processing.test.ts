import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJobsRepository } from '../../src/storage/repositories/jobs.js';
import type { WebmentionRecord } from '../../src/storage/repositories/webmentions.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import {
  accepted,
  drain,
  linkingPage,
  PRIVATE_OK,
  recordOf,
  SITE,
  startSourceServer,
  statusOf,
  submit,
  unrelatedPage,
  type SourceServer,
} from '../helpers/webmention.js';

const TARGET = `${SITE}/post`;

/** What reprocessing must keep: the submitted URLs and the parsed author/content. */
function kept(record: WebmentionRecord) {
  return {
    id: record.id,
    source: record.source,
    target: record.target,
    type: record.type,
    author: record.author,
    contentText: record.contentText,
    contentHtml: record.contentHtml,
    published: record.published,
  };
}

const AUTHORED = (target: string) =>
  linkingPage(target, {
    author: '<div class="p-author h-card"><a class="p-name u-url" href="/kim">Kim</a><img class="u-photo" src="/kim.png" alt=""></div>',
    content: `<p>Nice <em>post</em>: <a href="${target}">here</a></p>`,
  });

describe('webmention status table', () => {
  let t: TestApp;
  let source: SourceServer;
  let counter = 0;
  /** A fresh source path serving `page`. */
  const page = (html: string | Parameters<SourceServer['set']>[1]) => {
    const path = `/p/${++counter}`;
    source.set(path, html);
    return { path, url: source.url(path) };
  };
  /** A mention that has been verified, with parsed author and content. */
  const verifiedMention = async () => {
    const { path, url } = page(AUTHORED(TARGET));
    const id = await accepted(t, url, TARGET);
    await drain(t);
    const record = await recordOf(t, id);
    expect(record.status).toBe('verified');
    expect(record.author.name).toBe('Kim');
    expect(record.contentHtml).toContain('<em>post</em>');
    return { id, path, url, record };
  };

  beforeAll(async () => {
    t = await buildTestApp({ env: PRIVATE_OK });
    source = await startSourceServer();
  });
  afterAll(async () => {
    await t.close();
    await source.close();
  });

  it('new submission → pending, with a job queued and nothing fetched yet', async () => {
    const { path, url } = page(AUTHORED(TARGET));
    const id = await accepted(t, url, TARGET);
    expect((await statusOf(t, id)).status).toBe('pending');
    expect(await createJobsRepository(t.database.db, t.database.dialect).findByRef('webmention.verify', id)).not.toBeNull();
    expect(source.hits(path)).toBe(0);
  });

  it('pending → verified with verified_at, type, author and content once the job runs', async () => {
    const { url } = page(AUTHORED(TARGET));
    const id = await accepted(t, url, TARGET);
    t.clock.advance(10);
    expect(await drain(t)).toBeGreaterThanOrEqual(1);
    expect(await statusOf(t, id)).toEqual({
      status: 'verified',
      source: url,
      target: TARGET,
      verified_at: t.clock.now().toISOString(),
      type: 'mention',
      author: { name: 'Kim', url: source.url('/kim'), photo: source.url('/kim.png') },
      content: 'Nice post: here',
    });
    expect(await createJobsRepository(t.database.db, t.database.dialect).findByRef('webmention.verify', id)).toBeNull();
  });

  it('pending → failed (still 201 on receipt) when the source does not link to the target', async () => {
    const { url } = page(unrelatedPage());
    const result = await submit(t, url, TARGET);
    expect(result.statusCode).toBe(201);
    await drain(t);
    expect(await statusOf(t, result.id)).toMatchObject({ status: 'failed', verified_at: null });
  });

  it.each([404, 403, 400])('pending → failed when the source answers %i', async (status) => {
    const { url } = page({ status, body: AUTHORED(TARGET) });
    const id = await accepted(t, url, TARGET);
    await drain(t);
    expect(await statusOf(t, id)).toMatchObject({ status: 'failed', verified_at: null });
  });

  it('verified → failed on reprocessing when the source answers 410: verified_at cleared, URLs and parsed author/content kept', async () => {
    const { id, path, record } = await verifiedMention();
    source.set(path, { status: 410, body: 'gone' });
    t.clock.advance(60);
    expect(await t.app.indieweb.webmention.reprocess(id)).toMatchObject({ status: 'failed' });
    const after = await recordOf(t, id);
    expect(after.status).toBe('failed');
    expect(after.verifiedAt).toBeNull();
    expect(kept(after)).toEqual(kept(record));
    expect(await statusOf(t, id)).toMatchObject({
      status: 'failed',
      verified_at: null,
      author: { name: 'Kim' },
      content: 'Nice post: here',
    });
  });

  it('verified → failed on reprocessing when the link was removed, keeping URLs and parsed author/content', async () => {
    const { id, path, record } = await verifiedMention();
    source.set(path, AUTHORED('https://someone-else.example/'));
    expect(await t.app.indieweb.webmention.reprocess(id)).toMatchObject({ status: 'failed' });
    const after = await recordOf(t, id);
    expect(after).toMatchObject({ status: 'failed', verifiedAt: null });
    expect(kept(after)).toEqual(kept(record));
  });

  it('verified → failed when the same pair is re-sent and the source is gone (re-send reprocesses)', async () => {
    const { id, path, url, record } = await verifiedMention();
    source.set(path, { status: 410 });
    expect((await submit(t, url, TARGET)).id).toBe(id);
    await drain(t);
    const after = await recordOf(t, id);
    expect(after).toMatchObject({ status: 'failed', verifiedAt: null });
    expect(kept(after)).toEqual(kept(record));
  });

  it('verified → failed with verified_at cleared on any other failure (source now answers 404)', async () => {
    const { id, path } = await verifiedMention();
    source.remove(path);
    await t.app.indieweb.webmention.reprocess(id);
    expect(await statusOf(t, id)).toMatchObject({ status: 'failed', verified_at: null });
  });

  it('verified → spam on reclassification: verified_at cleared, author/content kept', async () => {
    const { id, record } = await verifiedMention();
    await t.app.indieweb.webmention.markSpam(id);
    const after = await recordOf(t, id);
    expect(after).toMatchObject({ status: 'spam', verifiedAt: null });
    expect(kept(after)).toEqual(kept(record));
  });

  it.each(['pending', 'failed'] as const)('%s → spam on reclassification', async (from) => {
    const { path, url } = page(AUTHORED(TARGET));
    const id = await accepted(t, url, TARGET);
    if (from === 'failed') {
      source.set(path, { status: 410 });
      await drain(t);
    }
    expect((await statusOf(t, id)).status).toBe(from);
    await t.app.indieweb.webmention.markSpam(id);
    expect(await statusOf(t, id)).toMatchObject({ status: 'spam', verified_at: null });
  });

  it('a pending job of a mention marked spam does not verify it', async () => {
    const { path, url } = page(AUTHORED(TARGET));
    const id = await accepted(t, url, TARGET);
    await t.app.indieweb.webmention.markSpam(id);
    await drain(t);
    expect((await statusOf(t, id)).status).toBe('spam');
    expect(source.hits(path)).toBe(0);
  });

  it('failed → verified with a fresh verified_at when the source is good again', async () => {
    const { id, path, record } = await verifiedMention();
    const firstVerifiedAt = record.verifiedAt;
    source.set(path, { status: 410 });
    await t.app.indieweb.webmention.reprocess(id);
    expect((await statusOf(t, id)).status).toBe('failed');
    source.set(path, AUTHORED(TARGET));
    t.clock.advance(3600);
    expect(await t.app.indieweb.webmention.reprocess(id)).toEqual({ status: 'verified' });
    const status = await statusOf(t, id);
    expect(status.status).toBe('verified');
    expect(status.verified_at).toBe(t.clock.now().toISOString());
    expect(status.verified_at).not.toBe(firstVerifiedAt);
  });

  it('failed → verified when the same pair is re-sent after the link was added', async () => {
    const { path, url } = page(unrelatedPage());
    const id = await accepted(t, url, TARGET);
    await drain(t);
    expect((await statusOf(t, id)).status).toBe('failed');
    source.set(path, AUTHORED(TARGET));
    t.clock.advance(30);
    const again = await submit(t, url, TARGET);
    expect(again.id).toBe(id);
    await drain(t);
    expect(await statusOf(t, id)).toMatchObject({ status: 'verified', verified_at: t.clock.now().toISOString() });
  });

  it('re-sending the same pair updates the one record with what the source says now', async () => {
    const { id, path, url } = await verifiedMention();
    source.set(path, linkingPage(TARGET, { content: `Edited: <a href="${TARGET}">still here</a>` }));
    const again = await submit(t, url, TARGET);
    expect(again.statusCode).toBe(201);
    expect(again.id).toBe(id);
    await drain(t);
    expect((await statusOf(t, id)).content).toBe('Edited: still here');
    expect((await t.app.indieweb.webmention.list({ target: TARGET })).items.filter((item) => item.source === url)).toHaveLength(1);
  });

  it('reprocess of an unknown id is a not-found error', async () => {
    await expect(t.app.indieweb.webmention.reprocess('no-such-id')).rejects.toMatchObject({ status: 404 });
  });

  describe('redirects', () => {
    it('verified after exactly 5 redirects, with the final URL as the base', async () => {
      source.set('/r5/final', AUTHORED(TARGET));
      const start = source.redirectChain('/r5/hop', 5, '/r5/final');
      const id = await accepted(t, start, TARGET);
      await drain(t);
      expect(await statusOf(t, id)).toMatchObject({ status: 'verified', author: { url: source.url('/kim') } });
      expect(source.hits('/r5/final')).toBe(1);
    });

    it.each([301, 302, 303, 307, 308])('verified through a %i redirect', async (code) => {
      source.set(`/code-${code}/final`, AUTHORED(TARGET));
      source.redirect(`/code-${code}/start`, `/code-${code}/final`, code);
      const id = await accepted(t, source.url(`/code-${code}/start`), TARGET);
      await drain(t);
      expect((await statusOf(t, id)).status).toBe('verified');
    });

    it('failed after a 6th redirect, which is not followed', async () => {
      source.set('/r6/final', AUTHORED(TARGET));
      const start = source.redirectChain('/r6/hop', 6, '/r6/final');
      const id = await accepted(t, start, TARGET);
      await drain(t);
      expect(await statusOf(t, id)).toMatchObject({ status: 'failed', verified_at: null });
      expect(source.hits('/r6/hop/6')).toBe(1);
      expect(source.hits('/r6/final')).toBe(0);
    });

    it('failed on a redirect loop', async () => {
      source.redirect('/loop/a', '/loop/b');
      source.redirect('/loop/b', '/loop/a');
      const id = await accepted(t, source.url('/loop/a'), TARGET);
      await drain(t);
      expect((await statusOf(t, id)).status).toBe('failed');
    });

    it.each([
      'ftp://127.0.0.1/page',
      'file:///etc/passwd',
      'javascript:alert(1)',
      'data:text/html,<a href="http://indiestack.test/post">x</a>',
      'gopher://127.0.0.1/',
    ])('failed on a redirect to the non-http URL %s', async (location) => {
      const path = `/scheme/${++counter}`;
      source.redirect(path, location);
      const id = await accepted(t, source.url(path), TARGET);
      await drain(t);
      expect(await statusOf(t, id)).toMatchObject({ status: 'failed', verified_at: null });
      // not a transient failure: nothing left to retry
      expect(await createJobsRepository(t.database.db, t.database.dialect).findByRef('webmention.verify', id)).toBeNull();
    });
  });

  describe('content types', () => {
    it.each(['application/json', 'text/plain; charset=utf-8', 'image/png', 'application/octet-stream'])(
      'failed when the source is %s even if it contains the link',
      async (type) => {
        const { url } = page({ headers: { 'content-type': type }, body: AUTHORED(TARGET) });
        const id = await accepted(t, url, TARGET);
        await drain(t);
        expect(await statusOf(t, id)).toMatchObject({ status: 'failed', verified_at: null });
      },
    );

    it('failed when the source is larger than 1 MiB, even if it links to the target', async () => {
      const { url } = page(`${'<p>filler</p>'.repeat(90_000)}${AUTHORED(TARGET)}`);
      const id = await accepted(t, url, TARGET);
      await drain(t);
      expect(await statusOf(t, id)).toMatchObject({ status: 'failed', verified_at: null });
    });

    it.each(['text/html', 'TEXT/HTML; charset=ISO-8859-1', 'application/xhtml+xml'])('verified when the source is %s', async (type) => {
      const { url } = page({ headers: { 'content-type': type }, body: AUTHORED(TARGET) });
      const id = await accepted(t, url, TARGET);
      await drain(t);
      expect((await statusOf(t, id)).status).toBe('verified');
    });
  });
});

describe('webmention processing without INDIEWEB_ALLOW_PRIVATE_NETWORKS', () => {
  let t: TestApp;
  let source: SourceServer;
  beforeAll(async () => {
    t = await buildTestApp();
    source = await startSourceServer();
    source.set('/page', linkingPage(TARGET));
  });
  afterAll(async () => {
    await t.close();
    await source.close();
  });

  it.each([
    ['127.0.0.1', () => source.url('/page')],
    ['localhost', () => source.url('/page').replace('127.0.0.1', 'localhost')],
  ])('failed, never fetched, for a loopback source at %s', async (_label, url) => {
    const id = await accepted(t, url(), TARGET);
    await drain(t);
    expect(await statusOf(t, id)).toMatchObject({ status: 'failed', verified_at: null });
    expect(source.requests).toEqual([]);
    expect(await createJobsRepository(t.database.db, t.database.dialect).count()).toBe(0);
  });
});
