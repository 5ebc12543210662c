/**
 * F12 (issue 28): hostile values in every field of the feeds. feed.atom must
 * stay well-formed XML 1.0 read by a strict parser (saxes), and every value
 * must read back as stored (less the characters XML cannot hold at all);
 * feed.json must be valid JSON whose values read back exactly. Served over
 * real HTTP on loopback, on a SQLite file and on PostgreSQL.
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/databases.js';
import { entriesApp, type EntriesTestApp } from '../helpers/entries.js';
import { childNamed, childrenNamed, parseXmlStrict } from '../helpers/xml.js';

/** Characters no XML 1.0 document may hold, escaped or not: C0 controls, a lone surrogate, U+FFFE/U+FFFF. */
const NOT_XML = '\u0001\u0008\u000b\u001f\ud800\ufffe\uffff';
const TITLE = `A <b>title</b> & "double" 'single' ]]> twice ]]> &amp; &lt; ${NOT_XML}end 😀`;
const CATEGORIES = [
  'a<b',
  'x & y',
  '"quoted"',
  "it's",
  ']]>',
  '&amp;',
  'tab\there',
  'line\nbreak',
  'carriage\rreturn',
  `${NOT_XML}control`,
  '<script>alert(1)</script>',
];
const AUTHOR = `Tom & "Jerry" <b>&amp;</b> ]]> it's 😀`;
const SUMMARY = `Text < with & ]]> and "quotes" ${NOT_XML}`;
const CONTENT_HTML = '<p>1 &lt; 2 ]]&gt; and <a href="https://e.example/?a=1&amp;b=2">a link</a></p><p>]]&gt;]]&gt;</p>';
const PHOTO = 'https://media.example/p.jpg?a=1&b="2"<3>';
const REPLY = "https://reply.example/?q=a&b=<c>&d='e'";
/** What XML keeps of a string: everything but the characters it cannot hold. */
const inXml = (value: string) => value.replace(/[\u0001\u0008\u000b\u001f\ud800\ufffe\uffff]/g, '');

for (const dialect of DIALECTS) {
  describe(`hostile values in the feeds (${dialect})`, () => {
    let t: EntriesTestApp;
    let origin: string;
    let url: string;

    beforeAll(async () => {
      t = await entriesApp({ dialect });
      const alice = (await t.app.indieweb.users!.findByName('alice'))!;
      await t.app.indieweb.profiles.update(alice, { name: [AUTHOR], url: ['https://alice.example/'] });
      url = await t.create({
        name: [TITLE],
        summary: [SUMMARY],
        content: [{ html: CONTENT_HTML }],
        category: CATEGORIES,
        photo: [PHOTO],
        'in-reply-to': [REPLY],
        'mp-slug': ['hostile'],
      });
      await t.app.listen({ host: '127.0.0.1', port: 0 });
      origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    });
    afterAll(async () => t?.close());

    it('feed.atom is well-formed XML whose title, categories, author, link and content read back as stored', async () => {
      const response = await fetch(`${origin}/alice/feed.atom`);
      expect(response.status).toBe(200);
      const body = await response.text();
      const feed = parseXmlStrict(body);
      expect(feed.name).toBe('feed');
      expect(childNamed(feed, 'title').text).toBe(`Posts by ${AUTHOR}`);
      expect(childNamed(childNamed(feed, 'author'), 'name').text).toBe(AUTHOR);
      const [entry, ...others] = childrenNamed(feed, 'entry');
      expect(others).toEqual([]);
      expect(childNamed(entry!, 'id').text).toBe(url);
      expect(childNamed(entry!, 'link').attributes.href).toBe(url);
      expect(childNamed(entry!, 'title').text).toBe(inXml(TITLE));
      expect(childNamed(childNamed(entry!, 'author'), 'name').text).toBe(AUTHOR);
      expect(childrenNamed(entry!, 'category').map((category) => category.attributes.term)).toEqual(CATEGORIES.map(inXml));
      expect(childrenNamed(entry!, 'category').map((category) => category.attributes.label)).toEqual(CATEGORIES.map(inXml));
      const content = childNamed(entry!, 'content');
      expect(content.attributes.type).toBe('html');
      expect(content.text).toContain('<p>1 &lt; 2 ]]&gt; and <a href="https://e.example/?a=1&amp;b=2">a link</a></p>');
      expect(content.text).toContain('Text &lt; with &amp; ]]&gt; and &quot;quotes&quot;');
      expect(content.text).toContain(`<img src="${new URL(PHOTO).href.replace(/&/g, '&amp;')}"`);
      expect(content.text).toContain(`<a href="${new URL(REPLY).href.replace(/&/g, '&amp;').replace(/'/g, '&#39;')}">`);
    });

    it('feed.json is valid JSON whose title, tags, author, URLs and content read back exactly', async () => {
      const response = await fetch(`${origin}/alice/feed.json`);
      expect(response.status).toBe(200);
      const feed = JSON.parse(await response.text()) as { title: string; authors: { name: string }[]; items: Record<string, unknown>[] };
      expect(feed.title).toBe(`Posts by ${AUTHOR}`);
      expect(feed.authors).toEqual([{ name: AUTHOR, url: 'http://indiestack.test/alice/' }]);
      expect(feed.items).toHaveLength(1);
      const item = feed.items[0]!;
      expect(item.title).toBe(TITLE);
      expect(item.tags).toEqual(CATEGORIES);
      expect(item.url).toBe(url);
      expect(item.image).toBe(new URL(PHOTO).href);
      expect(item.authors).toEqual([{ name: AUTHOR, url: 'http://indiestack.test/alice/' }]);
      // the same HTML as the Atom feed's (where XML cannot hold a character, it is left out there)
      const atom = parseXmlStrict(await (await fetch(`${origin}/alice/feed.atom`)).text());
      expect(item.content_html).toContain(
        SUMMARY.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;'),
      );
      expect(inXml(String(item.content_html))).toBe(childNamed(childNamed(atom, 'entry'), 'content').text);
    });
  });
}
