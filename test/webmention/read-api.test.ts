import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { accepted, drain, linkingPage, PRIVATE_OK, SITE, startSourceServer, statusOf, type SourceServer } from '../helpers/webmention.js';

const TARGET = `${SITE}/notes/1`;
const POPULAR = `${SITE}/popular`;

interface Feed {
  type: string;
  children: Array<Record<string, unknown> & { url: string; 'wm-id': string }>;
  paging: { limit: number; offset: number; total: number };
}

describe('GET /indieweb/webmention/?target=', () => {
  let t: TestApp;
  let source: SourceServer;
  /** Verified mentions of TARGET, oldest first (source URLs). */
  const verified: string[] = [];
  const read = async (query: Record<string, string>) =>
    t.app.inject({ method: 'GET', url: `/indieweb/webmention/?${new URLSearchParams(query).toString()}` });
  const feed = async (query: Record<string, string>) => {
    const response = await read(query);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    return response.json<Feed>();
  };
  const mention = async (path: string, html: string, target = TARGET) => {
    source.set(path, html);
    t.clock.advance(60);
    const id = await accepted(t, source.url(path), target);
    await drain(t);
    return id;
  };

  beforeAll(async () => {
    t = await buildTestApp({ env: PRIVATE_OK });
    source = await startSourceServer();

    // verified: a reply with author and content, a like, and a plain mention sent to a target variant
    await mention(
      '/reply',
      `<article class="h-entry">
<div class="p-author h-card"><a class="p-name u-url" href="/ann">Ann</a><img class="u-photo" src="/ann.png" alt=""></div>
<a class="u-in-reply-to" href="${TARGET}">in reply</a>
<time class="dt-published" datetime="2026-02-03T04:05:06Z">3 Feb</time>
<div class="e-content"><p>Well <em>said</em>.</p></div>
</article>`,
    );
    verified.push(source.url('/reply'));
    await mention('/like', `<article class="h-entry"><a class="u-like-of" href="${TARGET}">liked</a></article>`);
    verified.push(source.url('/like'));
    await mention('/variant', linkingPage(TARGET), 'http://www.indiestack.test/notes/1/');
    verified.push(source.url('/variant'));

    // not verified: failed, spam and (below) pending mentions of the same target
    await mention('/failed', '<p>no link here</p>');
    const spam = await mention('/spam', linkingPage(TARGET));
    await t.app.indieweb.webmention.markSpam(spam);
    // another target, with more mentions than one default page
    for (let index = 0; index < 22; index++) {
      source.set(`/many/${index}`, linkingPage(POPULAR));
      t.clock.advance(1);
      await accepted(t, source.url(`/many/${index}`), POPULAR);
    }
    await drain(t);
    // still pending: accepted, and its verification job taken away so no later drain runs it
    source.set('/pending', linkingPage(TARGET));
    const pending = await accepted(t, source.url('/pending'), TARGET);
    await t.database.db.deleteFrom('indieweb_job').where('ref', '=', pending).execute();
    expect((await statusOf(t, pending)).status).toBe('pending');
  });
  afterAll(async () => {
    await t.close();
    await source.close();
  });

  it('200 feed of only the verified mentions of the target, newest first', async () => {
    const body = await feed({ target: TARGET });
    expect(body.type).toBe('feed');
    expect(body.children.map((child) => child.url)).toEqual([...verified].reverse());
    expect(body.paging).toEqual({ limit: 20, offset: 0, total: 3 });
  });

  it.each(['http://www.indiestack.test/notes/1', 'http://indiestack.test/notes/1/', 'HTTP://WWW.IndieStack.TEST/notes/1/#mentions'])(
    '200 the same mentions for the target variant %s',
    async (variant) => {
      const body = await feed({ target: variant });
      expect(body.children.map((child) => child.url)).toEqual([...verified].reverse());
      expect(body.paging.total).toBe(3);
    },
  );

  it('200 jf2 entries with type, url, published, author and content', async () => {
    const body = await feed({ target: TARGET });
    const reply = body.children.find((child) => child.url === source.url('/reply'));
    expect(reply).toMatchObject({
      type: 'entry',
      url: source.url('/reply'),
      published: '2026-02-03T04:05:06Z',
      'wm-property': 'in-reply-to',
      author: { type: 'card', name: 'Ann', url: source.url('/ann'), photo: source.url('/ann.png') },
      content: { text: 'Well said.' },
    });
    expect((reply?.content as { html: string }).html).toContain('<em>said</em>');
    expect(body.children.find((child) => child.url === source.url('/like'))).toMatchObject({ type: 'entry', 'wm-property': 'like-of' });
    expect(body.children.find((child) => child.url === source.url('/variant'))).toMatchObject({
      type: 'entry',
      'wm-property': 'mention-of',
    });
  });

  it('200 an empty feed for a target nobody mentioned', async () => {
    expect(await feed({ target: `${SITE}/quiet` })).toEqual({ type: 'feed', children: [], paging: { limit: 20, offset: 0, total: 0 } });
  });

  it('200 a default page of 20 with the total', async () => {
    const body = await feed({ target: POPULAR });
    expect(body.children).toHaveLength(20);
    expect(body.paging).toEqual({ limit: 20, offset: 0, total: 22 });
    expect(body.children[0]?.url).toBe(source.url('/many/21'));
  });

  it('200 pages with limit and offset', async () => {
    const all = (await feed({ target: POPULAR, limit: '100' })).children.map((child) => child.url);
    expect(all).toHaveLength(22);
    const page = await feed({ target: POPULAR, limit: '5', offset: '3' });
    expect(page.children.map((child) => child.url)).toEqual(all.slice(3, 8));
    expect(page.paging).toEqual({ limit: 5, offset: 3, total: 22 });
    const tail = await feed({ target: POPULAR, offset: '20' });
    expect(tail.children.map((child) => child.url)).toEqual(all.slice(20));
    expect(tail.paging).toEqual({ limit: 20, offset: 20, total: 22 });
    const beyond = await feed({ target: POPULAR, offset: '40' });
    expect(beyond.children).toEqual([]);
    expect(beyond.paging.total).toBe(22);
  });

  it('drops a mention from the feed once it is no longer verified', async () => {
    await mention('/later-gone', linkingPage(TARGET));
    const id = (await feed({ target: TARGET })).children.find((child) => child.url === source.url('/later-gone'))?.['wm-id'];
    expect(id).toBeDefined();
    source.set('/later-gone', { status: 410 });
    await t.app.indieweb.webmention.reprocess(id!);
    const body = await feed({ target: TARGET });
    expect(body.children.map((child) => child.url)).not.toContain(source.url('/later-gone'));
    expect(body.paging.total).toBe(3);
  });

  it.each([
    ['target is missing', {}],
    ['target is empty', { target: '' }],
    ['limit is negative', { target: TARGET, limit: '-1' }],
    ['limit is a float', { target: TARGET, limit: '1.5' }],
    ['offset is not a number', { target: TARGET, offset: 'abc' }],
  ])('400 invalid_request when %s', async (_label, query) => {
    const response = await read(query);
    expect(response.statusCode).toBe(400);
    expect(response.body).toMatch(/^invalid_request: \S/);
  });
});

describe('GET /indieweb/webmention/<id> (status view)', () => {
  let t: TestApp;
  let source: SourceServer;
  let id: string;
  const hostile = '"><script>alert("src")</script>';

  beforeAll(async () => {
    t = await buildTestApp({ env: PRIVATE_OK });
    source = await startSourceServer();
    source.set(
      '/esc',
      `<article class="h-entry">
<span class="p-author">&lt;img src=x onerror=alert(1)&gt; Mallory</span>
<p class="e-content">Look: &lt;script&gt;alert(1)&lt;/script&gt; <a href="${SITE}/post">here</a><script>alert(2)</script></p>
</article>`,
    );
    id = await accepted(t, `${source.url('/esc')}?q=${hostile}`, `${SITE}/post`);
    await drain(t);
  });
  afterAll(async () => {
    await t.close();
    await source.close();
  });

  it('200 JSON with exactly the documented fields for Accept: application/json', async () => {
    const response = await t.app.inject({ method: 'GET', url: `/indieweb/webmention/${id}`, headers: { accept: 'application/json' } });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    const body = response.json<Record<string, unknown>>();
    expect(Object.keys(body).sort()).toEqual(['author', 'content', 'source', 'status', 'target', 'type', 'verified_at']);
    expect(body).toMatchObject({
      status: 'verified',
      source: `${source.url('/esc')}?q=${hostile}`,
      target: `${SITE}/post`,
      type: 'mention',
      author: { name: '<img src=x onerror=alert(1)> Mallory', url: null, photo: null },
      content: 'Look: <script>alert(1)</script> here',
    });
  });

  it('200 an HTML page otherwise, with every stored value escaped', async () => {
    for (const accept of [undefined, 'text/html', '*/*']) {
      const response = await t.app.inject({
        method: 'GET',
        url: `/indieweb/webmention/${id}`,
        headers: accept === undefined ? {} : { accept },
      });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(response.headers['content-security-policy']).toContain("default-src 'none'");
      const body = response.body;
      expect(body).toContain('verified');
      expect(body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
      expect(body).toContain('&lt;img src=x onerror=alert(1)&gt; Mallory');
      expect(body).toContain('&quot;&gt;&lt;script&gt;alert(&quot;src&quot;)&lt;/script&gt;');
      expect(body).not.toContain('<script');
      expect(body).not.toContain('<img');
      expect(body).not.toContain('alert(2)');
    }
  });

  it.each(['no-such-id', 'A'.repeat(80), '..%2F..%2Fetc%2Fpasswd', '%3Cscript%3E'])(
    '404 for the unknown id %s, as JSON request and as page',
    async (unknown) => {
      for (const accept of ['application/json', 'text/html']) {
        const response = await t.app.inject({ method: 'GET', url: `/indieweb/webmention/${unknown}`, headers: { accept } });
        expect(response.statusCode).toBe(404);
        expect(response.body).not.toContain('<script');
      }
    },
  );

  it('shows the current status after moderation', async () => {
    await t.app.indieweb.webmention.markSpam(id);
    expect(await statusOf(t, id)).toMatchObject({
      status: 'spam',
      verified_at: null,
      author: { name: '<img src=x onerror=alert(1)> Mallory' },
    });
  });
});
