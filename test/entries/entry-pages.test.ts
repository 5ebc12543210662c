import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_URL, postJson } from '../helpers/micropub.js';
import { comparable, entriesApp, parsePage, pathOf, seedMention, type EntriesTestApp, type Mf2Item } from '../helpers/entries.js';
import { HAS_POSTGRES } from '../helpers/databases.js';

const ARTICLE = {
  name: ['A walk by the river'],
  content: [{ html: '<p>Cold but <em>bright</em>.</p>' }],
  published: ['2026-11-03T10:00:00.000Z'],
  category: ['walks', 'winter'],
  photo: [{ value: 'https://media.example/river.jpg', alt: 'The river under a grey sky' }, 'https://media.example/bridge.jpg'],
  video: ['https://media.example/river.mp4'],
  audio: ['https://media.example/birds.mp3'],
  location: [{ type: ['h-card'], properties: { name: ['Riverside'], locality: ['Leipzig'] } }],
  syndication: ['https://social.example/@alice/1'],
  'in-reply-to': ['https://bob.example/posts/rivers'],
};

function only(items: Mf2Item[], type: string): Mf2Item {
  const found = items.filter((item) => item.type.includes(type));
  expect(found).toHaveLength(1);
  return found[0]!;
}

describe('entry pages (database handler, standalone)', () => {
  let t: EntriesTestApp;

  beforeAll(async () => {
    t = await entriesApp();
  });
  afterAll(async () => t?.close());

  describe('GET /{user}/{yyyy}/{MM}/{slug}/', () => {
    it('200 with an h-entry whose microformats parse back to every stored property, plus url, uid and author', async () => {
      const url = await t.create(ARTICLE);
      expect(url).toBe(`${BASE_URL}/alice/2026/11/a-walk-by-the-river/`);
      const response = await t.get(pathOf(url));
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      const entry = only(parsePage(response.body).items, 'h-entry');
      for (const [name, values] of Object.entries(ARTICLE)) expect(comparable(entry.properties[name]), name).toEqual(comparable(values));
      expect(entry.properties.url).toEqual([url]);
      expect(entry.properties.uid).toEqual([url]);
      const author = entry.properties.author?.[0] as Mf2Item;
      expect(author.type).toEqual(['h-card']);
      expect(author.properties.name).toEqual(['alice']);
    });

    it('200 with a note: plain text content, a like-of h-cite, an rsvp and the row date as dt-published', async () => {
      const properties = {
        content: ['Going to this one.'],
        rsvp: ['yes'],
        'like-of': [{ type: ['h-cite'], properties: { url: ['https://events.example/meetup'], name: ['The meetup'] } }],
      };
      const url = await t.create(properties);
      const response = await t.get(pathOf(url));
      expect(response.statusCode).toBe(200);
      const entry = only(parsePage(response.body).items, 'h-entry');
      for (const [name, values] of Object.entries(properties)) expect(comparable(entry.properties[name]), name).toEqual(comparable(values));
      expect(entry.properties.name).toBeUndefined();
      expect(typeof entry.properties.published?.[0]).toBe('string');
      expect(Date.parse(entry.properties.published![0] as string)).not.toBeNaN();
    });

    it('200 with an h-event for an event entry: name, start, end, location, summary', async () => {
      const properties = {
        name: ['IndieWebCamp'],
        start: ['2026-12-05T09:00:00Z'],
        end: ['2026-12-06T17:00:00Z'],
        location: ['Town hall'],
        summary: ['Two days of building our own websites.'],
      };
      const url = await t.create(properties, { type: ['h-event'] });
      const response = await t.get(pathOf(url));
      expect(response.statusCode).toBe(200);
      const { items } = parsePage(response.body);
      expect(items.some((item) => item.type.includes('h-entry'))).toBe(false);
      const event = only(items, 'h-event');
      for (const [name, values] of Object.entries(properties)) expect(event.properties[name], name).toEqual(values);
    });

    it('links the webmention and IndieAuth endpoints, the feeds and its stylesheet; strict CSP without inline script or style', async () => {
      const url = await t.create({ content: ['Links in the head.'] });
      const response = await t.get(pathOf(url));
      const { rels } = parsePage(response.body);
      expect(rels.webmention).toEqual([`${BASE_URL}/indieweb/webmention/`]);
      expect(rels.micropub).toEqual([`${BASE_URL}/indieweb/micropub/`]);
      expect(rels.authorization_endpoint).toEqual([`${BASE_URL}/indieweb/auth/`]);
      expect(rels.alternate).toEqual([`${BASE_URL}/alice/feed.atom`, `${BASE_URL}/alice/feed.json`]);
      expect(rels.canonical).toEqual([url]);
      expect(response.headers.link).toBe(`<${BASE_URL}/indieweb/webmention/>; rel="webmention"`);
      const csp = String(response.headers['content-security-policy']);
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("style-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).not.toMatch(/script-src/);
      expect(response.body).not.toMatch(/<script|<style|\sstyle=/i);
      const stylesheet = rels.stylesheet![0]!;
      const css = await t.get(new URL(stylesheet).pathname + new URL(stylesheet).search);
      expect(css.statusCode).toBe(200);
      expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
      expect(css.body).toContain('prefers-color-scheme:dark');
    });

    it('escapes every stored value and never links a javascript: URL', async () => {
      const url = await t.create({
        name: ['<script>alert(1)</script>'],
        content: [{ html: '<p onclick="x()">hi<script>alert(2)</script><img src="javascript:alert(3)"></p>' }],
        summary: ['<a href="javascript:alert(4)">x</a>'],
        category: ['"><img src=x onerror=alert(5)>'],
      });
      const body = (await t.get(pathOf(url))).body;
      // no element carries a script or handler: what looks like one is escaped text
      expect(body).not.toMatch(/<script|<[^>]+\son\w+=|(?:href|src)="javascript:/i);
      expect(body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
      const entry = only(parsePage(body).items, 'h-entry');
      expect(entry.properties.name).toEqual(['<script>alert(1)</script>']);
      expect(entry.properties.category).toEqual(['"><img src=x onerror=alert(5)>']);
      expect(entry.properties.summary).toEqual(['<a href="javascript:alert(4)">x</a>']);
    });

    it('301 to the canonical URL when only the trailing slash is missing, and only for an entry that exists', async () => {
      const url = await t.create({ name: ['Slashless'] });
      const response = await t.get(pathOf(url).slice(0, -1));
      expect(response.statusCode).toBe(301);
      expect(response.headers.location).toBe(url);
      expect((await t.get('/alice/2026/11/no-such-entry')).statusCode).toBe(404);
    });

    it('410 with a tombstone page once deleted, 200 again after undelete', async () => {
      const url = await t.create({ name: ['Soon gone'], content: ['Secret words'] });
      const token = await t.token();
      expect((await postJson(t.app, token, { action: 'delete', url })).statusCode).toBeLessThan(300);
      const gone = await t.get(pathOf(url));
      expect(gone.statusCode).toBe(410);
      expect(gone.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(gone.body).toContain('This post was deleted');
      expect(gone.body).not.toContain('Secret words');
      expect(parsePage(gone.body).items.some((item) => item.type.includes('h-entry'))).toBe(false);
      expect((await postJson(t.app, token, { action: 'undelete', url })).statusCode).toBeLessThan(300);
      expect((await t.get(pathOf(url))).statusCode).toBe(200);
    });

    it('404, exactly like an unknown path, for a draft, a private entry, and a draft without its slash', async () => {
      const unknown = await t.get('/alice/2026/11/never-was/');
      const draft = await t.create({ name: ['Not yet'], content: ['draft words'], 'post-status': ['draft'] });
      const hidden = await t.create({ name: ['Only me'], visibility: ['private'] });
      for (const path of [pathOf(draft), pathOf(hidden), pathOf(draft).slice(0, -1)]) {
        const response = await t.get(path);
        expect(response.statusCode, path).toBe(404);
        expect(response.body).toBe(unknown.body);
        expect(response.body).not.toContain('draft words');
      }
    });

    it('404 for traversal, odd Unicode, another case, another user in front, or an encoded separator; never the entry', async () => {
      const bobs = await t.create({ name: ['Bobs secret plans'], content: ['bob only'] }, { user: 'bob' });
      const bobPath = pathOf(bobs);
      expect((await t.get(bobPath)).statusCode).toBe(200);
      const [, , yyyy, MM, slug = ''] = bobPath.split('/');
      const attempts = [
        `/alice/${yyyy}/${MM}/${slug}/`,
        `/alice/${yyyy}/${MM}/%2e%2e/%2e%2e/bob/${yyyy}/${MM}/${slug}/`,
        `/alice/${yyyy}/${MM}/..%2f..%2fbob%2f${yyyy}%2f${MM}%2f${slug}/`,
        `/Bob/${yyyy}/${MM}/${slug}/`,
        `/BOB/${yyyy}/${MM}/${slug.toUpperCase()}/`,
        `/bob/${yyyy}/${MM}/${slug.toUpperCase()}/`,
        `/b%D0%BEb/${yyyy}/${MM}/${slug}/`,
        `/bob/${yyyy}/${MM}/${slug}%E2%80%8B/`,
        `/bob/${yyyy}/${MM}/${slug}%00/`,
        `/bob/${yyyy}/0${MM}/${slug}/`,
        `/bob/+${yyyy}/${MM}/${slug}/`,
        `/bob//${yyyy}/${MM}/${slug}/`,
        `/%62ob/${yyyy}/${MM}/${slug}/`,
      ];
      for (const path of attempts) {
        const response = await t.get(path);
        expect([400, 404], path).toContain(response.statusCode);
        expect(response.body, path).not.toContain('bob only');
      }
    });
  });

  describe('GET /{user}/', () => {
    it('200 with the h-card and an h-feed of published entries only, newest first', async () => {
      const response = await t.get('/alice/');
      expect(response.statusCode).toBe(200);
      const { items, rels } = parsePage(response.body);
      const card = only(items, 'h-card');
      expect(card.properties.name).toEqual(['alice']);
      expect(card.properties.url).toEqual(['https://alice.example/']);
      const feed = only(items, 'h-feed');
      const children = feed.children ?? [];
      expect(children.length).toBeGreaterThan(3);
      const names = children.map((child) => child.properties.name?.[0]);
      expect(names).toContain('A walk by the river');
      expect(names).not.toContain('Not yet');
      expect(names).not.toContain('Only me');
      expect(names).not.toContain('Bobs secret plans');
      const dates = children.map((child) => String(child.properties.published?.[0]));
      expect([...dates].sort().reverse()).toEqual(dates);
      for (const child of children)
        expect(String(child.properties.url?.[0])).toMatch(/^http:\/\/indiestack\.test\/alice\/\d{4}\/\d{2}\/[^/]+\/$/);
      expect(rels.webmention).toEqual([`${BASE_URL}/indieweb/webmention/`]);
    });

    it('301 from /{user} to /{user}/ for a user that exists; 404 for one that does not, or in another case', async () => {
      const response = await t.get('/alice');
      expect(response.statusCode).toBe(301);
      expect(response.headers.location).toBe(`${BASE_URL}/alice/`);
      expect((await t.get('/carol/')).statusCode).toBe(404);
      expect((await t.get('/carol')).statusCode).toBe(404);
      expect((await t.get('/Alice/')).statusCode).toBe(404);
    });

    it('400 for a cursor that is not ours, or both directions at once', async () => {
      expect((await t.get('/alice/?before=not-a-cursor')).statusCode).toBe(400);
      expect((await t.get('/alice/?before=%3Cscript%3E')).statusCode).toBe(400);
      const cursor = Buffer.from('2026-01-01T00:00:00.000Z~x').toString('base64url');
      expect((await t.get(`/alice/?before=${cursor}&after=${cursor}`)).statusCode).toBe(400);
    });
  });

  describe('GET /{user}/feed.atom and /{user}/feed.json', () => {
    it('404 for an unknown user', async () => {
      expect((await t.get('/carol/feed.atom')).statusCode).toBe(404);
      expect((await t.get('/carol/feed.json')).statusCode).toBe(404);
    });
  });

  describe('webmentions under an entry', () => {
    it('shows verified replies with author and sanitized content, likes and reposts as faces, bookmarks as links; nothing pending or spam', async () => {
      const url = await t.create({ name: ['Talk to me'], content: ['Replies welcome.'] });
      await seedMention(t, url, {
        source: 'https://carol.example/reply',
        type: 'reply',
        author: { name: 'Carol', url: 'https://carol.example/', photo: 'https://carol.example/me.jpg' },
        contentHtml: '<p>Nice <a href="https://carol.example/x">post</a>!</p><script>alert("pwned")</script><img src=x onerror="alert(1)">',
      });
      await seedMention(t, url, {
        source: 'https://dan.example/like',
        type: 'like',
        author: { name: 'Dan', url: 'https://dan.example/', photo: 'https://dan.example/dan.png' },
      });
      await seedMention(t, url, {
        source: 'https://erin.example/repost',
        type: 'repost',
        author: { name: 'Erin', url: 'https://erin.example/', photo: null },
      });
      await seedMention(t, url, {
        source: 'https://fay.example/bookmarks',
        type: 'bookmark',
        author: { name: 'Fay', url: 'https://fay.example/', photo: null },
      });
      await seedMention(t, url, {
        source: 'https://spam.example/x',
        type: 'reply',
        author: { name: 'Spammer', url: null, photo: null },
        contentText: 'buy now',
        status: 'spam',
      });
      await seedMention(t, url, { source: 'https://later.example/x', type: 'reply', status: 'pending' });
      await seedMention(t, `${url}#frag`.replace('#frag', '').slice(0, -1), {
        source: 'https://gus.example/like',
        type: 'like',
        author: { name: 'Gus', url: 'https://gus.example/', photo: null },
      });

      const body = (await t.get(pathOf(url))).body;
      expect(body).not.toMatch(/<script|<[^>]+\son\w+=|alert\(/i);
      expect(body).not.toContain('Spammer');
      expect(body).not.toContain('later.example');
      expect(body).toContain('<img class="u-photo avatar" src="https://dan.example/dan.png" alt="Dan"');
      expect(body).toContain('href="https://carol.example/x" rel="nofollow ugc noopener"');
      expect(body).toContain('fay.example/bookmarks');

      const entry = only(parsePage(body).items, 'h-entry');
      const comments = entry.properties.comment as Mf2Item[];
      expect(comments).toHaveLength(1);
      expect((comments[0]!.properties.author?.[0] as Mf2Item).properties.name).toEqual(['Carol']);
      expect((comments[0]!.properties.content?.[0] as { html: string }).html).toContain('Nice');
      expect(comments[0]!.properties.url).toEqual(['https://carol.example/reply']);
      const likes = entry.properties.like as Mf2Item[];
      expect(likes.map((like) => (like.properties.author?.[0] as Mf2Item).properties.name?.[0]).sort()).toEqual(['Dan', 'Gus']);
      expect(
        (entry.properties.repost as Mf2Item[]).map((repost) => (repost.properties.author?.[0] as Mf2Item).properties.name?.[0]),
      ).toEqual(['Erin']);
    });

    it('an http: avatar is dropped, not shown as a broken image (the page loads https images only): the initial stands in', async () => {
      const url = await t.create({ name: ['Plain http faces'], content: ['Hello.'] });
      await seedMention(t, url, {
        source: 'https://hal.example/like',
        type: 'like',
        author: { name: 'Hal', url: 'https://hal.example/', photo: 'http://hal.example/hal.png' },
      });
      await seedMention(t, url, {
        source: 'https://ivy.example/reply',
        type: 'reply',
        author: { name: 'Ivy', url: 'https://ivy.example/', photo: 'http://ivy.example/ivy.png' },
        contentText: 'hi',
      });
      const body = (await t.get(pathOf(url))).body;
      expect(body).not.toContain('http://hal.example/hal.png');
      expect(body).not.toContain('http://ivy.example/ivy.png');
      expect(body).toContain('<span class="initial" aria-hidden="true">H</span>');
      expect(body).toContain('Ivy');
    });

    it('counts every public like and reply, beyond the 200 the page reads: 230 likes and 3 replies say so, 50 faces shown and a link to the rest (issue 28 F2)', async () => {
      const url = await t.create({ name: ['Popular'], content: ['Much liked.'] });
      for (let i = 0; i < 230; i++)
        await seedMention(t, url, {
          source: `https://fan${i}.example/like`,
          type: 'like',
          author: { name: `Fan ${i}`, url: `https://fan${i}.example/`, photo: null },
        });
      // the replies are the newest: within the 200 the page reads
      t.clock.advance(60);
      for (let i = 0; i < 3; i++)
        await seedMention(t, url, {
          source: `https://r${i}.example/reply`,
          type: 'reply',
          author: { name: `R ${i}`, url: null, photo: null },
          contentText: 'hi',
        });
      await seedMention(t, url, { source: 'https://held.example/like', type: 'like', status: 'spam' });
      const body = (await t.get(pathOf(url))).body;
      expect(body).toContain('<h3>230 likes</h3>');
      expect(body).toContain('<h3>3 replies</h3>');
      expect(body).toMatch(/and 180 more: <a href="[^"]*\/indieweb\/webmention\/\?target=/);
      const entry = only(parsePage(body).items, 'h-entry');
      expect(entry.properties.like).toHaveLength(50);
      expect(entry.properties.comment).toHaveLength(3);
    });
  });
});

describe.skipIf(!HAS_POSTGRES)('entry pages on PostgreSQL', () => {
  it('200 for a published entry (mf2 round trip), 404 for a draft, 410 once deleted, the home page and both feeds', async () => {
    const t = await entriesApp({ dialect: 'postgres' });
    try {
      const url = await t.create(ARTICLE);
      const entry = only(parsePage((await t.get(pathOf(url))).body).items, 'h-entry');
      for (const [name, values] of Object.entries(ARTICLE)) expect(comparable(entry.properties[name]), name).toEqual(comparable(values));
      const draft = await t.create({ name: ['Draft on pg'], 'post-status': ['draft'] });
      expect((await t.get(pathOf(draft))).statusCode).toBe(404);
      expect((await t.get('/alice/')).statusCode).toBe(200);
      expect((await t.get('/alice/feed.atom')).statusCode).toBe(200);
      expect((await t.get('/alice/feed.json')).json<{ items: unknown[] }>().items).toHaveLength(1);
      await postJson(t.app, await t.token(), { action: 'delete', url });
      expect((await t.get(pathOf(url))).statusCode).toBe(410);
    } finally {
      await t.close();
    }
  });
});
