import fastXml from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_URL, postJson } from '../helpers/micropub.js';
import { entriesApp, parsePage, type EntriesTestApp, type Mf2Item } from '../helpers/entries.js';

const COUNT = 25;
const nameOf = (n: number) => `Post number ${String(n).padStart(2, '0')}`;

function feedNames(body: string): string[] {
  const feed = parsePage(body).items.find((item) => item.type.includes('h-feed'));
  return (feed?.children ?? []).map((child: Mf2Item) => String(child.properties.name?.[0]));
}

function relative(url: string): string {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
}

describe('home page paging and feeds', () => {
  let t: EntriesTestApp;
  let deleted: string;

  beforeAll(async () => {
    t = await entriesApp();
    // post 1 is the oldest; every post a day apart
    for (let n = 1; n <= COUNT; n++) {
      await t.create({
        name: [nameOf(n)],
        content: n === COUNT ? [{ html: '<p>The <strong>newest</strong> one, ]]&gt; with CDATA ends.</p>' }] : [`Text of post ${n}`],
        published: [new Date(Date.UTC(2026, 0, n, 12)).toISOString()],
        category: ['numbers'],
        ...(n === COUNT ? { photo: [{ value: 'https://media.example/new.jpg', alt: 'A new photo' }] } : {}),
      });
    }
    deleted = await t.create({ name: ['Deleted one'], published: ['2026-02-01T00:00:00Z'] });
    await postJson(t.app, await t.token(), { action: 'delete', url: deleted });
    await t.create({ name: ['A draft'], 'post-status': ['draft'], published: ['2026-02-02T00:00:00Z'] });
  });
  afterAll(async () => t?.close());

  describe('GET /{user}/', () => {
    it('200 with 20 entries and rel=next; the next page has the rest and rel=prev leads back', async () => {
      const first = await t.get('/alice/');
      expect(first.statusCode).toBe(200);
      const newest = Array.from({ length: 20 }, (_, i) => nameOf(COUNT - i));
      expect(feedNames(first.body)).toEqual(newest);
      const rels = parsePage(first.body).rels;
      expect(rels.prev).toBeUndefined();
      expect(rels.next).toHaveLength(1);

      const second = await t.get(relative(rels.next![0]!));
      expect(second.statusCode).toBe(200);
      expect(feedNames(second.body)).toEqual([5, 4, 3, 2, 1].map(nameOf));
      const secondRels = parsePage(second.body).rels;
      expect(secondRels.next).toBeUndefined();
      expect(secondRels.prev).toHaveLength(1);

      const back = await t.get(relative(secondRels.prev![0]!));
      expect(back.statusCode).toBe(200);
      expect(feedNames(back.body)).toEqual(newest);
      expect(parsePage(back.body).rels.prev).toBeUndefined();
    });
  });

  describe('GET /{user}/feed.atom', () => {
    it('200 with well-formed Atom: feed fields, 20 newest entries with id, link, dates, html content; no draft or deleted entry', async () => {
      const response = await t.get('/alice/feed.atom');
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('application/atom+xml; charset=utf-8');
      expect(fastXml.validate(response.body)).toBe(true);
      const document = fastXml.parse(response.body, { ignoreAttributes: false, attributeNamePrefix: '@' }) as {
        feed: Record<string, unknown>;
      };
      const feed = document.feed;
      expect(feed['@xmlns']).toBe('http://www.w3.org/2005/Atom');
      expect(feed.id).toBe(`${BASE_URL}/alice/`);
      expect(feed.title).toBe('Posts by alice');
      expect(Date.parse(String(feed.updated))).not.toBeNaN();
      const links = feed.link as { '@rel'?: string; '@href': string }[];
      expect(links).toContainEqual({ '@rel': 'self', '@href': `${BASE_URL}/alice/feed.atom` });
      const entries = feed.entry as Record<string, unknown>[];
      expect(entries).toHaveLength(20);
      const newest = entries[0]!;
      expect(newest.id).toMatch(/^http:\/\/indiestack\.test\/alice\/2026\/01\/post-number-25\/$/);
      expect((newest.link as { '@href': string })['@href']).toBe(newest.id);
      expect(newest.published).toBe('2026-01-25T12:00:00.000Z');
      expect((newest.content as { '@type': string; '#text': string })['@type']).toBe('html');
      expect((newest.content as { '#text': string })['#text']).toContain('<strong>newest</strong>');
      expect((newest.content as { '#text': string })['#text']).toContain('alt="A new photo"');
      expect(JSON.stringify(entries)).not.toContain('Deleted one');
      expect(JSON.stringify(entries)).not.toContain('A draft');
    });
  });

  describe('GET /{user}/feed.json', () => {
    it('200 with JSON Feed 1.1: version, title, home and feed URLs, authors, 20 items with id, url, title, content_html, date_published, tags', async () => {
      const response = await t.get('/alice/feed.json');
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('application/feed+json; charset=utf-8');
      const feed = response.json<Record<string, unknown> & { items: Record<string, unknown>[] }>();
      expect(feed.version).toBe('https://jsonfeed.org/version/1.1');
      expect(feed.title).toBe('Posts by alice');
      expect(feed.home_page_url).toBe(`${BASE_URL}/alice/`);
      expect(feed.feed_url).toBe(`${BASE_URL}/alice/feed.json`);
      expect(feed.authors).toEqual([{ name: 'alice', url: `${BASE_URL}/alice/` }]);
      expect(feed.items).toHaveLength(20);
      const newest = feed.items[0]!;
      expect(newest.id).toBe(newest.url);
      expect(newest.title).toBe(nameOf(COUNT));
      expect(newest.content_html).toContain('<strong>newest</strong>');
      expect(newest.date_published).toBe('2026-01-25T12:00:00.000Z');
      expect(newest.tags).toEqual(['numbers']);
      expect(newest.image).toBe('https://media.example/new.jpg');
      expect(feed.items.map((item) => item.title)).not.toContain('Deleted one');
    });

    it('is linked from the pages as rel=alternate with its type', async () => {
      const body = (await t.get('/alice/')).body;
      expect(body).toContain(
        `<link rel="alternate" type="application/feed+json" title="Posts by alice (JSON Feed)" href="${BASE_URL}/alice/feed.json">`,
      );
      expect(body).toContain(
        `<link rel="alternate" type="application/atom+xml" title="Posts by alice (Atom)" href="${BASE_URL}/alice/feed.atom">`,
      );
    });
  });
});
