/**
 * Class 4 and F13, F14 (issue 28): one rule decides what a visitor may see of
 * an entry (`core/visibility.ts`), with `post-status` and `visibility` read
 * trimmed and lower-cased, and every reader follows it: the entry page, the
 * home page's list, count and paging cursors, feed.atom and feed.json. Over
 * real HTTP on loopback, on a SQLite file and on PostgreSQL; entries created
 * through Micropub.
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeCursor } from '../../src/entries/paths.js';
import { createEntriesRepository } from '../../src/storage/repositories/entries.js';
import { DIALECTS } from '../helpers/databases.js';
import { entriesApp, parsePage, pathOf, type EntriesTestApp, type Mf2Item } from '../helpers/entries.js';
import { postJson } from '../helpers/micropub.js';
import { childrenNamed, childNamed, parseXmlStrict } from '../helpers/xml.js';

/** Properties that keep an entry off the lists (and, but for unlisted, off its URL), as clients spell them. */
const HIDDEN: readonly Record<string, unknown[]>[] = [
  { 'post-status': ['draft'] },
  { 'post-status': [' draft'] },
  { 'post-status': [' Draft '] },
  { 'post-status': ['DRAFT'] },
  { 'post-status': ['pending'] },
  { visibility: ['private'] },
  { visibility: [' Private'] },
  { visibility: ['PRIVATE '] },
  { visibility: ['protected'] },
  { visibility: ['unlisted'] },
  { visibility: [' Unlisted'] },
  { 'post-status': ['published'], visibility: ['private'] },
];
/** Properties of listed entries, as clients spell them. */
const SHOWN: readonly Record<string, unknown[]>[] = [
  {},
  { 'post-status': ['published'] },
  { 'post-status': [' Published '] },
  { visibility: ['public'] },
  { visibility: [' PUBLIC'] },
  { 'post-status': [''], visibility: [''] },
];

const PUBLIC_COUNT = 25;
const HIDDEN_COUNT = 30;

const feedNames = (body: string): string[] => {
  const feed = parsePage(body).items.find((item) => item.type.includes('h-feed'));
  return (feed?.children ?? []).map((child: Mf2Item) => String(child.properties.name?.[0]));
};
const relative = (url: string) => {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
};

for (const dialect of DIALECTS) {
  describe(`what a visitor sees of alice's entries (${dialect})`, () => {
    let t: EntriesTestApp;
    let origin: string;
    const get = (path: string) => fetch(`${origin}${path}`, { redirect: 'manual' });
    /** Names of the listed entries, newest first. */
    const shownNames: string[] = [];
    const hiddenNames: string[] = [];

    beforeAll(async () => {
      t = await entriesApp({ dialect });
      // 25 listed and 30 hidden entries, interleaved, an hour apart: entry 0 is the oldest
      const kinds = [
        ...Array.from({ length: PUBLIC_COUNT }, (_, i) => ({ shown: true, n: i })),
        ...Array.from({ length: HIDDEN_COUNT }, (_, i) => ({ shown: false, n: i })),
      ];
      kinds.sort((a, b) => (a.shown === b.shown ? a.n - b.n : a.n * 55 + (a.shown ? 0 : 27) - (b.n * 55 + (b.shown ? 0 : 27))));
      for (const [index, kind] of kinds.entries()) {
        const name = kind.shown ? `Public ${String(kind.n).padStart(2, '0')}` : `Hidden ${String(kind.n).padStart(2, '0')}`;
        const extra = kind.shown ? SHOWN[kind.n % SHOWN.length]! : HIDDEN[kind.n % HIDDEN.length]!;
        await t.create({
          name: [name],
          content: [`Text of ${name}`],
          published: [new Date(Date.UTC(2026, 0, 1, index)).toISOString()],
          category: ['all'],
          ...extra,
        });
        (kind.shown ? shownNames : hiddenNames).unshift(name);
      }
      await t.app.listen({ host: '127.0.0.1', port: 0 });
      origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    });
    afterAll(async () => t?.close());

    it('the entry page: 200 for published and unlisted, 404 for drafts and private ones in any spelling, 410 only for a deleted visible one', async () => {
      // bob's entries, so alice's lists stay as the other tests expect
      const page = async (properties: Record<string, unknown[]>) =>
        (await get(pathOf(await t.create({ content: ['an entry'], ...properties }, { user: 'bob' })))).status;
      for (const properties of SHOWN) expect([properties, await page(properties)]).toEqual([properties, 200]);
      for (const properties of HIDDEN) {
        const unlisted = typeof properties.visibility?.[0] === 'string' && properties.visibility[0].trim().toLowerCase() === 'unlisted';
        expect([properties, await page(properties)]).toEqual([properties, unlisted ? 200 : 404]);
      }
      const token = await t.token('bob');
      const deleted = async (properties: Record<string, unknown[]>) => {
        const url = await t.create({ content: ['soon gone'], ...properties }, { user: 'bob' });
        expect((await postJson(t.app, token, { action: 'delete', url })).statusCode).toBe(204);
        return (await get(pathOf(url))).status;
      };
      expect(await deleted({})).toBe(410);
      expect(await deleted({ visibility: [' Unlisted '] })).toBe(410);
      expect(await deleted({ 'post-status': [' draft'] })).toBe(404);
      expect(await deleted({ visibility: [' Private'] })).toBe(404);
    });

    it('the home page: the count says 25, the pages hold only the 25, and no cursor points at a hidden entry', async () => {
      const entries = createEntriesRepository(t.database.db);
      const cursorsSeen: string[] = [];
      const checkCursors = async (body: string) => {
        const rels = parsePage(body).rels;
        for (const link of [...(rels.next ?? []), ...(rels.prev ?? [])]) {
          const query = new URL(link).searchParams;
          for (const value of [query.get('before'), query.get('after')]) {
            if (value === null) continue;
            const cursor = decodeCursor(value)!;
            const row = (await entries.findById(cursor.id))!;
            expect(row.published).toBe(cursor.published);
            expect(shownNames).toContain(row.properties.name?.[0]);
            cursorsSeen.push(value);
          }
        }
        return rels;
      };

      const first = await get('/alice/');
      expect(first.status).toBe(200);
      const firstBody = await first.text();
      expect(firstBody).toContain('<p class="count">25 posts</p>');
      expect(feedNames(firstBody)).toEqual(shownNames.slice(0, 20));
      const firstRels = await checkCursors(firstBody);
      expect(firstRels.prev).toBeUndefined();
      expect(firstRels.next).toHaveLength(1);

      const second = await get(relative(firstRels.next![0]!));
      expect(second.status).toBe(200);
      const secondBody = await second.text();
      expect(secondBody).toContain('<p class="count">25 posts</p>');
      expect(feedNames(secondBody)).toEqual(shownNames.slice(20));
      const secondRels = await checkCursors(secondBody);
      // the last page: no "Older posts" to an empty page
      expect(secondRels.next).toBeUndefined();
      expect(secondRels.prev).toHaveLength(1);

      const back = await get(relative(secondRels.prev![0]!));
      expect(feedNames(await back.text())).toEqual(shownNames.slice(0, 20));
      expect(cursorsSeen.length).toBeGreaterThanOrEqual(2);
      for (const name of hiddenNames) {
        expect(firstBody).not.toContain(name);
        expect(secondBody).not.toContain(name);
      }
    });

    it('feed.atom and feed.json hold the 20 newest listed entries and nothing hidden', async () => {
      const atom = parseXmlStrict(await (await get('/alice/feed.atom')).text());
      expect(childrenNamed(atom, 'entry').map((entry) => childNamed(entry, 'title').text)).toEqual(shownNames.slice(0, 20));
      const json = (await (await get('/alice/feed.json')).json()) as { items: { title: string }[] };
      expect(json.items.map((item) => item.title)).toEqual(shownNames.slice(0, 20));
    });

    it('an update that makes an entry private takes it off the home page, the count and the feeds at once', async () => {
      const url = await t.create({ name: ['Newest, soon private'], published: ['2027-01-01T00:00:00Z'] });
      expect(feedNames(await (await get('/alice/')).text())[0]).toBe('Newest, soon private');
      expect((await postJson(t.app, await t.token(), { action: 'update', url, replace: { visibility: ['  PRIVATE'] } })).statusCode).toBe(
        204,
      );
      const body = await (await get('/alice/')).text();
      expect(body).toContain('<p class="count">25 posts</p>');
      expect(feedNames(body)).toEqual(shownNames.slice(0, 20));
      expect(((await (await get('/alice/feed.json')).json()) as { items: { title: string }[] }).items[0]!.title).toBe(shownNames[0]);
      expect((await get(pathOf(url))).status).toBe(404);
    });
  });
}
