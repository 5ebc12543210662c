/**
 * The webmention.io-compatible read API, driven by requests built from
 * webmention.io's documentation: every parameter, the JF2 and `links`
 * shapes field by field, count.json, JSONP, CORS, and bad input.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser } from '../../helpers/admin.js';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { DIALECTS } from '../../helpers/databases.js';
import { accepted, drain, linkingPage, PRIVATE_OK, startSourceServer, type SourceServer } from '../../helpers/webmention.js';

const POST = 'https://alice.example/2026/hello/';
const OTHER_POST = 'https://alice.example/2026/other/';
const BOB_POST = 'https://bob.example/notes/1';

type Json = Record<string, any>;

describe.each(DIALECTS)('webmention.io-compatible API (%s)', (dialect) => {
  let t: TestApp;
  let source: SourceServer;
  let aliceToken: string;
  let bobToken: string;
  const ids: Record<string, string> = {};

  const get = (path: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url: `/indieweb/webmention/api/${path}`, headers });
  const jf2 = async (query: string): Promise<Json> => {
    const response = await get(`mentions.jf2?${query}`);
    expect(response.statusCode, response.body).toBe(200);
    return response.json();
  };
  const sources = (feed: Json) => (feed.children as Json[]).map((child) => new URL(child['wm-source']).pathname);
  const mention = async (name: string, html: string, target = POST) => {
    source.set(`/${name}`, html);
    t.clock.advance(2);
    ids[name] = await accepted(t, source.url(`/${name}`), target);
    await drain(t);
  };

  beforeAll(async () => {
    t = await buildTestApp({ env: PRIVATE_OK, dialect });
    source = await startSourceServer();
    const alice = await addUser(t, 'alice');
    const bob = await addUser(t, 'bob');
    aliceToken = await t.app.indieweb.webmentionTokens.rotate(alice.user.id);
    bobToken = await t.app.indieweb.webmentionTokens.rotate(bob.user.id);

    await mention(
      'reply',
      `<article class="h-entry">
<div class="p-author h-card"><a class="p-name u-url" href="/ann">Ann</a><img class="u-photo" src="/ann.png" alt=""></div>
<a class="u-in-reply-to" href="${POST}">in reply</a>
<time class="dt-published" datetime="2026-02-03T04:05:06Z">3 Feb</time>
<div class="e-content"><p>Well <em>said</em>.<script>alert(1)</script><img src=x onerror="alert(2)"></p></div>
</article>`,
    );
    await mention(
      'like',
      `<article class="h-entry"><a class="p-author h-card" href="javascript:alert(1)">Lee</a><a class="u-like-of" href="${POST}">liked</a></article>`,
    );
    await mention(
      'rsvp-yes',
      `<article class="h-entry"><a class="u-in-reply-to" href="${POST}">event</a><data class="p-rsvp" value="yes">yes</data></article>`,
    );
    await mention(
      'rsvp-no',
      `<article class="h-entry"><a class="u-in-reply-to" href="${POST}">event</a><data class="p-rsvp" value="no">no</data></article>`,
    );
    await mention(
      'repost',
      `<article class="h-entry"><a class="u-repost-of" href="${POST}">repost</a><time class="dt-published" datetime="2020-01-01T00:00:00Z">old</time></article>`,
    );
    await mention('bookmark', `<article class="h-entry"><a class="u-bookmark-of" href="${POST}">bm</a></article>`);
    await mention('plain', linkingPage(POST));
    await mention('other', linkingPage(OTHER_POST), OTHER_POST);
    await mention('bob', linkingPage(BOB_POST), BOB_POST);
    // never public: failed, spam, held by moderation
    await mention('failed', '<p>no link</p>');
    await mention('spam', linkingPage(POST));
    await t.app.indieweb.webmention.markSpam(ids.spam!);
    await mention('held', linkingPage(POST));
    await t.database.db.updateTable('indieweb_webmention').set({ approval: 'held' }).where('id', '=', ids.held!).execute();
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await source?.close();
  });

  it('mentions.jf2: a feed of the verified, approved mentions of the target, newest first', async () => {
    const feed = await jf2(`target=${encodeURIComponent(POST)}`);
    expect(feed.type).toBe('feed');
    expect(feed.name).toBe('Webmentions');
    expect(sources(feed)).toEqual(['/plain', '/bookmark', '/repost', '/rsvp-no', '/rsvp-yes', '/like', '/reply']);
  });

  it('mentions.jf2: every documented field of an entry, with its type', async () => {
    const feed = await jf2(`target=${encodeURIComponent(POST)}`);
    const reply = (feed.children as Json[]).find((child) => child['wm-source'].endsWith('/reply'))!;
    expect(reply).toMatchObject({
      type: 'entry',
      author: { type: 'card', name: 'Ann', url: source.url('/ann'), photo: source.url('/ann.png') },
      url: source.url('/reply'),
      published: '2026-02-03T04:05:06Z',
      'wm-source': source.url('/reply'),
      'wm-target': POST,
      'wm-property': 'in-reply-to',
      'in-reply-to': POST,
      'wm-private': false,
    });
    expect(Number.isInteger(reply['wm-id'])).toBe(true);
    expect(reply['wm-received']).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    expect(reply.content.text).toContain('Well said.');
    // sanitized: formatting kept, scripts and event handlers gone
    expect(reply.content.html).toContain('<em>said</em>');
    expect(reply.content.html).not.toMatch(/script|onerror|alert/);
  });

  it('mentions.jf2: an RSVP is wm-property rsvp with its value and replies to the target; a like names like-of', async () => {
    const feed = await jf2(`target=${encodeURIComponent(POST)}`);
    const bySource = (name: string) => (feed.children as Json[]).find((child) => child['wm-source'].endsWith(`/${name}`))!;
    expect(bySource('rsvp-yes')).toMatchObject({ 'wm-property': 'rsvp', rsvp: 'yes', 'in-reply-to': POST });
    expect(bySource('rsvp-no')).toMatchObject({ 'wm-property': 'rsvp', rsvp: 'no' });
    expect(bySource('like')).toMatchObject({ 'wm-property': 'like-of', 'like-of': POST });
    // an author URL that is not http(s) is left out
    expect(bySource('like').author).toEqual({ type: 'card', name: 'Lee', url: '', photo: '' });
    expect(bySource('plain')).toMatchObject({ 'wm-property': 'mention-of', 'mention-of': POST });
  });

  it('wm-property and repeated wm-property[] filter by kind', async () => {
    expect(sources(await jf2(`target=${encodeURIComponent(POST)}&wm-property=in-reply-to`))).toEqual(['/reply']);
    expect(sources(await jf2(`target=${encodeURIComponent(POST)}&wm-property[]=like-of&wm-property[]=rsvp`))).toEqual([
      '/rsvp-no',
      '/rsvp-yes',
      '/like',
    ]);
  });

  it('repeated target[] reads several pages at once; a target variant (www., no slash) matches too', async () => {
    expect(
      sources(await jf2(`target[]=${encodeURIComponent(POST)}&target[]=${encodeURIComponent(OTHER_POST)}&wm-property=mention-of`)),
    ).toEqual(['/other', '/plain']);
    expect(sources(await jf2(`target=${encodeURIComponent('https://www.alice.example/2026/other')}`))).toEqual(['/other']);
  });

  it('per-page and page (counting from 0)', async () => {
    const target = `target=${encodeURIComponent(POST)}`;
    expect(sources(await jf2(`${target}&per-page=3&page=0`))).toEqual(['/plain', '/bookmark', '/repost']);
    expect(sources(await jf2(`${target}&per-page=3&page=1`))).toEqual(['/rsvp-no', '/rsvp-yes', '/like']);
    expect(sources(await jf2(`${target}&per-page=3&page=2`))).toEqual(['/reply']);
    expect(sources(await jf2(`${target}&per-page=3&page=3`))).toEqual([]);
  });

  it('sort-dir=up is oldest first; sort-by=published falls back to the date received; sort-by=rsvp puts yes first', async () => {
    const target = `target=${encodeURIComponent(POST)}`;
    expect(sources(await jf2(`${target}&sort-dir=up`))).toEqual([
      '/reply',
      '/like',
      '/rsvp-yes',
      '/rsvp-no',
      '/repost',
      '/bookmark',
      '/plain',
    ]);
    expect(sources(await jf2(`${target}&sort-by=published&sort-dir=up`)).slice(0, 2)).toEqual(['/repost', '/reply']);
    expect(sources(await jf2(`${target}&sort-by=rsvp&wm-property=rsvp`))).toEqual(['/rsvp-yes', '/rsvp-no']);
    expect(sources(await jf2(`${target}&sort-by=rsvp&sort-dir=up&wm-property=rsvp`))).toEqual(['/rsvp-no', '/rsvp-yes']);
    expect((await jf2(`${target}&sort-by=updated`)).children).toHaveLength(7);
  });

  it('since is strictly after (to the second of wm-received); since_id is a greater wm-id', async () => {
    const all = (await jf2(`target=${encodeURIComponent(POST)}&sort-dir=up`)).children as Json[];
    const like = all[1]!;
    expect(sources(await jf2(`target=${encodeURIComponent(POST)}&since=${like['wm-received']}&sort-dir=up`))).toEqual([
      '/rsvp-yes',
      '/rsvp-no',
      '/repost',
      '/bookmark',
      '/plain',
    ]);
    // an offset written unencoded (the + arrives as a space) still reads
    const offset = new Date(Date.parse(like['wm-received'])).toISOString().replace('.000Z', '+00:00').replace('+', ' ');
    expect(sources(await jf2(`target=${encodeURIComponent(POST)}&since=${offset}&sort-dir=up`))).toHaveLength(5);
    expect(sources(await jf2(`target=${encodeURIComponent(POST)}&since_id=${like['wm-id']}&sort-dir=up`))).toEqual([
      '/rsvp-yes',
      '/rsvp-no',
      '/repost',
      '/bookmark',
      '/plain',
    ]);
  });

  it("token without target: the account's own mentions of every page; domain narrows; another account's token sees only its own", async () => {
    const mine = await jf2(`token=${aliceToken}`);
    expect(sources(mine)).toEqual(['/other', '/plain', '/bookmark', '/repost', '/rsvp-no', '/rsvp-yes', '/like', '/reply']);
    expect(sources(await jf2(`token=${aliceToken}&domain=alice.example`))).toHaveLength(8);
    expect(sources(await jf2(`token=${aliceToken}&domain=bob.example`))).toEqual([]);
    expect(sources(await jf2(`token=${bobToken}`))).toEqual(['/bob']);
    expect(sources(await jf2(`token=${bobToken}&domain=alice.example`))).toEqual([]);
  });

  it('401 forbidden for a token that is not valid (rotated, or made up), 400 without target or token', async () => {
    const response = await get('mentions.jf2?token=not-a-real-token-but-long-enough');
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ error: 'forbidden' });
    const none = await get('mentions.jf2');
    expect(none.statusCode).toBe(400);
    expect(none.json()).toMatchObject({ error: 'invalid_input' });
  });

  it('mentions.json: the older links shape', async () => {
    const response = await get(`mentions.json?target=${encodeURIComponent(POST)}&wm-property=in-reply-to`);
    expect(response.statusCode).toBe(200);
    const { links } = response.json<{ links: Json[] }>();
    expect(links).toHaveLength(1);
    expect(links[0]).toMatchObject({
      source: source.url('/reply'),
      verified: true,
      private: false,
      target: POST,
      activity: { type: 'reply' },
      data: {
        author: { name: 'Ann', url: source.url('/ann'), photo: source.url('/ann.png') },
        url: source.url('/reply'),
        published: '2026-02-03T04:05:06Z',
        published_ts: Date.parse('2026-02-03T04:05:06Z') / 1000,
      },
    });
    expect(Number.isInteger(links[0]!.id)).toBe(true);
    expect(typeof links[0]!.verified_date).toBe('string');
    const rsvp = (await get(`mentions.json?target=${encodeURIComponent(POST)}&wm-property=rsvp&sort-by=rsvp`)).json<{ links: Json[] }>()
      .links;
    expect(rsvp.map((link) => [link.activity.type, link.data.rsvp])).toEqual([
      ['rsvp', 'yes'],
      ['rsvp', 'no'],
    ]);
    // the same under the other names webmention.io answers to
    for (const alias of ['mentions', 'links', 'links.json'])
      expect((await get(`${alias}?target=${encodeURIComponent(POST)}`)).json<{ links: Json[] }>().links).toHaveLength(7);
  });

  it('count.json: the total and the count of each type, RSVPs by value', async () => {
    const response = await get(`count.json?target=${encodeURIComponent(POST)}`);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      count: 7,
      type: { reply: 1, like: 1, 'rsvp-yes': 1, 'rsvp-no': 1, repost: 1, bookmark: 1, mention: 1 },
    });
    expect((await get(`count.json?target[]=${encodeURIComponent(POST)}&target[]=${encodeURIComponent(OTHER_POST)}`)).json()).toMatchObject({
      count: 8,
    });
    expect((await get('count.json?target=https%3A%2F%2Falice.example%2Fnothing')).json()).toEqual({ count: 0, type: {} });
    const missing = await get('count.json');
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({ error: 'invalid_input' });
  });

  it('jsonp=NAME wraps the answer in a call; a callback that is not a function name is 400', async () => {
    const response = await get(`mentions.jf2?target=${encodeURIComponent(POST)}&jsonp=render`);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/javascript/);
    const match = /^render\((.*)\)$/s.exec(response.body);
    expect(JSON.parse(match![1]!).children).toHaveLength(7);
    expect((await get(`count.json?target=${encodeURIComponent(POST)}&jsonp=cb`)).body).toMatch(/^cb\(\{"count":7/);
    const hostile = await get(`mentions.jf2?target=${encodeURIComponent(POST)}&jsonp=${encodeURIComponent('alert(1);x')}`);
    expect(hostile.statusCode).toBe(400);
  });

  it('Access-Control-Allow-Origin: * on answers and errors; unknown parameter names are ignored', async () => {
    const ok = await get(`mentions.jf2?target=${encodeURIComponent(POST)}&_=1712345678&foo=bar`, { origin: 'https://alice.example' });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['access-control-allow-origin']).toBe('*');
    expect(ok.json().children).toHaveLength(7);
    const bad = await get('mentions.jf2?per-page=x');
    expect(bad.headers['access-control-allow-origin']).toBe('*');
  });

  it.each([
    ['per-page that is not a number', 'per-page=ten'],
    ['per-page of 0', 'per-page=0'],
    ['negative page', 'page=-1'],
    ['page that is not a number', 'page=1.5'],
    ['unknown sort-dir', 'sort-dir=sideways'],
    ['unknown sort-by', 'sort-by=likes'],
    ['unknown wm-property', 'wm-property=likes'],
    ['target that is not a URL', 'target=not%20a%20url'],
    ['target that is not http(s)', 'target=javascript%3Aalert(1)'],
    ['since that is not a date', 'since=yesterday'],
    ['since_id that is not a number', 'since_id=abc'],
    ['domain that is not a host', 'domain=%3Cscript%3E'],
  ])('400 invalid_input for a %s', async (_name, query) => {
    const response = await get(`mentions.jf2?target=${encodeURIComponent(POST)}&${query}`.replace(/target=[^&]*&(target=)/, '$1'));
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.json()).toMatchObject({ error: 'invalid_input', error_description: expect.any(String) });
  });

  it('per-page is capped at 1000', async () => {
    const response = await get(`mentions.jf2?target=${encodeURIComponent(POST)}&per-page=100000`);
    expect(response.statusCode).toBe(200);
    expect(response.json().children).toHaveLength(7);
  });
});
