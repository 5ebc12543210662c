/**
 * Issue 18: what the database handler stores besides the properties (they
 * stay exactly as sent): the draft flag, the published date, the URL under
 * the base URL, and ownership between users.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostUser } from '../../src/contracts/accounts.js';
import { createManualClock } from '../../src/core/clock.js';
import { createDatabaseHandler } from '../../src/content/handlers/database/handler.js';
import { createEntriesRepository, type EntriesRepository } from '../../src/storage/repositories/entries.js';
import type { MicropubHandler } from '../../src/contracts/micropub-handler.js';
import { matchesFilter } from '../../src/core/list-params.js';
import { categoriesOf } from '../../src/content/handlers/entry-rules.js';
import { DIALECTS, openTestDatabase, type TestDatabase } from '../helpers/databases.js';

const alice: HostUser = { id: 'alice-id', name: 'alice', me: ['https://alice.example/'], isActive: true };
const bob: HostUser = { id: 'bob-id', name: 'bob', me: ['https://bob.example/'], isActive: true };

for (const dialect of DIALECTS) {
  describe(`entries the database handler stores (${dialect})`, () => {
    let database: TestDatabase;
    let entries: EntriesRepository;
    let handler: MicropubHandler;
    const clock = createManualClock('2026-11-27T10:00:00.000Z');
    beforeAll(async () => {
      database = await openTestDatabase(dialect);
      entries = createEntriesRepository(database.db);
      handler = createDatabaseHandler({ baseUrl: 'https://id.example', entries, clock });
    });
    afterAll(async () => {
      await database.dispose();
    });

    it('stores the properties as sent, adds none, and dates the entry now when the client gave no published', async () => {
      const properties = { content: ['plain note'] };
      const created = await handler.createEntry({ type: ['h-entry'], properties }, alice);
      expect(created).toEqual({
        url: 'https://id.example/alice/2026/11/plain-note/',
        type: ['h-entry'],
        properties: { content: ['plain note'] },
      });
      const row = (await entries.findByPath('/alice/2026/11/plain-note/'))!;
      expect(row).toMatchObject({
        userId: 'alice-id',
        postStatus: 'published',
        published: '2026-11-27T10:00:00.000Z',
        createdAt: '2026-11-27T10:00:00.000Z',
        deletedAt: null,
        version: 1,
      });
      expect(row.properties).toEqual({ content: ['plain note'] });
    });

    it('files an entry under the month of a valid published date; an invalid one is kept as sent and dated now', async () => {
      const old = await handler.createEntry(
        { type: ['h-entry'], properties: { name: ['Back then'], published: ['2019-03-31T23:30:00-02:00'] } },
        alice,
      );
      expect(old.url).toBe('https://id.example/alice/2019/04/back-then/');
      expect((await entries.findByPath('/alice/2019/04/back-then/'))?.published).toBe('2019-04-01T01:30:00.000Z');
      const odd = await handler.createEntry({ type: ['h-entry'], properties: { name: ['Odd date'], published: ['last tuesday'] } }, alice);
      expect(odd.url).toBe('https://id.example/alice/2026/11/odd-date/');
      expect((await handler.getEntry(odd.url, alice))?.properties.published).toEqual(['last tuesday']);
    });

    it('keeps a draft a draft until post-status says published, and the URL never moves', async () => {
      const draft = await handler.createEntry({ type: ['h-entry'], properties: { name: ['Not yet'], 'post-status': ['draft'] } }, alice);
      expect((await entries.findOwnedByUrl(alice.id, draft.url))?.postStatus).toBe('draft');
      expect((await entries.listPublished(alice.id, { limit: 50 })).map((row) => row.url)).not.toContain(draft.url);
      const published = await handler.updateEntry(
        draft.url,
        { replace: { 'post-status': ['published'], published: ['2026-12-01T08:00:00Z'] } },
        alice,
      );
      expect(published.url).toBe(draft.url);
      const row = (await entries.findOwnedByUrl(alice.id, draft.url))!;
      expect(row).toMatchObject({ postStatus: 'published', published: '2026-12-01T08:00:00.000Z', version: 2 });
      expect((await entries.listPublished(alice.id, { limit: 1 }))[0]?.url).toBe(draft.url);
    });

    it('numbers a slug taken in the same month, per user; another month or user starts again', async () => {
      const first = await handler.createEntry({ type: ['h-entry'], properties: { 'mp-slug': ['again'] } }, alice);
      const second = await handler.createEntry({ type: ['h-entry'], properties: { 'mp-slug': ['again'] } }, alice);
      const third = await handler.createEntry({ type: ['h-entry'], properties: { 'mp-slug': ['again'] } }, alice);
      const bobs = await handler.createEntry({ type: ['h-entry'], properties: { 'mp-slug': ['again'] } }, bob);
      const earlier = await handler.createEntry(
        { type: ['h-entry'], properties: { 'mp-slug': ['again'], published: ['2026-10-10'] } },
        alice,
      );
      expect([first, second, third, bobs, earlier].map((entry) => entry.url)).toEqual([
        'https://id.example/alice/2026/11/again/',
        'https://id.example/alice/2026/11/again-2/',
        'https://id.example/alice/2026/11/again-3/',
        'https://id.example/bob/2026/11/again/',
        'https://id.example/alice/2026/10/again/',
      ]);
      // a deleted entry keeps its URL: the next one does not take it over
      await handler.deleteEntry(third.url, alice);
      expect((await handler.createEntry({ type: ['h-entry'], properties: { 'mp-slug': ['again'] } }, alice)).url).toBe(
        'https://id.example/alice/2026/11/again-4/',
      );
    });

    it('finds the free number past the first batch of taken ones', async () => {
      const urls: string[] = [];
      for (let index = 0; index < 20; index++)
        urls.push((await handler.createEntry({ type: ['h-entry'], properties: { 'mp-slug': ['busy'] } }, alice)).url);
      expect(new Set(urls).size).toBe(20);
      expect(urls.at(-1)).toBe('https://id.example/alice/2026/11/busy-20/');
    });

    it('skips a number an entry took by asking for it (mp-slug hello-2)', async () => {
      const slugs = ['clash', 'clash-2', 'clash', 'clash-2'];
      const urls: string[] = [];
      for (const slug of slugs) urls.push((await handler.createEntry({ type: ['h-entry'], properties: { 'mp-slug': [slug] } }, alice)).url);
      expect(urls.map((url) => url.split('/').at(-2))).toEqual(['clash', 'clash-2', 'clash-3', 'clash-2-2']);
    });

    it('stores a slug in another script percent-encoded, and finds the entry by either spelling', async () => {
      const created = await handler.createEntry(
        { type: ['h-entry'], properties: { name: ['Grüße, 世界'], content: ['\u0000 and \ud800 survive'] } },
        alice,
      );
      expect(created.url).toBe('https://id.example/alice/2026/11/gr%C3%BC%C3%9Fe-%E4%B8%96%E7%95%8C/');
      expect((await handler.getEntry('https://id.example/alice/2026/11/grüße-世界/', alice))?.properties.content).toEqual([
        '\u0000 and \ud800 survive',
      ]);
      expect(await entries.findByPath('/alice/2026/11/gr%C3%BC%C3%9Fe-%E4%B8%96%E7%95%8C/')).not.toBeNull();
    });

    it('treats another user’s entry as unknown, for every operation and in lists', async () => {
      const own = await handler.createEntry({ type: ['h-entry'], properties: { content: ['bob only'] } }, bob);
      expect(await handler.getEntry(own.url, alice)).toBeNull();
      await expect(handler.updateEntry(own.url, { add: { category: ['x'] } }, alice)).rejects.toMatchObject({ name: 'HandlerValueError' });
      await expect(handler.deleteEntry(own.url, alice)).rejects.toMatchObject({ name: 'HandlerValueError' });
      await handler.deleteEntry(own.url, bob);
      await expect(handler.undeleteEntry(own.url, alice)).rejects.toMatchObject({ name: 'HandlerValueError' });
      const list = await handler.listEntries!(alice, { limit: null, offset: 0, filter: 'bob only' });
      expect(list).toEqual({ items: [], total: 0 });
    });

    it('answers unknown for URLs that are no entry: malformed, traversal, another host', async () => {
      for (const url of [
        'http://[::1',
        '/alice/2026/11/../11/plain-note/x',
        'https://evil.example/alice/2026/11/plain-note/',
        '/alice/2026/11/plain-note',
        '',
      ]) {
        expect(await handler.getEntry(url, alice)).toBeNull();
      }
      // a dot segment resolves like any URL
      expect(await handler.getEntry('/alice/2026/10/../11/plain-note/', alice)).not.toBeNull();
    });

    it('lists with filter in batches: the filter sees the added url, total counts the matches', async () => {
      const page = await handler.listEntries!(alice, { limit: 2, offset: 1, filter: '/alice/2026/11/again' });
      expect(page.total).toBe(3);
      expect(page.items.map((item) => item.url)).toEqual([
        'https://id.example/alice/2026/11/again-2/',
        'https://id.example/alice/2026/11/again/',
      ]);
      expect(page.items[0]?.properties.url).toEqual(['https://id.example/alice/2026/11/again-2/']);
    });

    it('a filter matches exactly what the list shows, in SQL: case, %, _, backslashes, other scripts, updates, the published date the list adds (issue 31)', async () => {
      const carol: HostUser = { id: 'carol-id', name: 'carol', me: ['https://carol.example/'], isActive: true };
      const odd = ['50% off_SALE', 'a\\b path', 'ÉCOLE Ünïcode', 'plain', '"quoted" {json}'];
      for (const content of odd)
        await handler.createEntry({ type: ['h-entry'], properties: { content: [content], category: ['Mixed Case'] } }, carol);
      const changed = await handler.createEntry({ type: ['h-entry'], properties: { content: ['before the update'] } }, carol);
      await handler.updateEntry(changed.url, { replace: { content: ['after the update'] } }, carol);
      const all = (await handler.listEntries!(carol, { limit: null, offset: 0, filter: null })).items;
      for (const filter of [
        '%',
        '_',
        '50% off_s',
        '\\',
        'a\\\\b',
        'école',
        'ÜNÏ',
        'mixed case',
        '"content":["plain"]',
        '{json}',
        'before the update',
        'after the',
        'h-entry',
        '/carol/2026/11/',
        'x%y',
        '',
        'published',
        '"published":["20',
      ]) {
        const expected = all
          .filter((item) => matchesFilter({ type: item.type, properties: item.properties }, filter))
          .map((item) => item.url);
        const listed = await handler.listEntries!(carol, { limit: null, offset: 0, filter });
        expect({ filter, urls: listed.items.map((item) => item.url), total: listed.total }).toEqual({
          filter,
          urls: expected,
          total: expected.length,
        });
      }
      // offset and limit apply to the matches
      const page = await handler.listEntries!(carol, { limit: 1, offset: 1, filter: 'mixed' });
      expect(page.total).toBe(5);
      // newest first: "quoted", then plain
      expect(page.items.map((item) => item.properties.content)).toEqual([['plain']]);
    });
  });

  describe(`q=config and q=source totals with two instances on one database (issue 31, ${dialect})`, () => {
    let database: TestDatabase;
    let one: MicropubHandler;
    let two: MicropubHandler;
    const dana: HostUser = { id: 'dana-id', name: 'dana', me: ['https://dana.example/'], isActive: true };
    beforeAll(async () => {
      database = await openTestDatabase(dialect);
      // two handlers, two repositories: what two instances of the server have
      one = createDatabaseHandler({ baseUrl: 'https://id.example', entries: createEntriesRepository(database.db) });
      two = createDatabaseHandler({ baseUrl: 'https://id.example', entries: createEntriesRepository(database.db) });
    });
    afterAll(async () => {
      await database.dispose();
    });

    it('a config remembered by one instance follows every change of the account’s entries, by either instance or by SQL', async () => {
      expect((await one.getConfig(dana)).categories).toEqual([]);
      const first = await two.createEntry({ type: ['h-entry'], properties: { content: ['x'], category: [' Travel '] } }, dana);
      expect((await one.getConfig(dana)).categories).toEqual(['Travel']);
      // asked again with nothing changed: the same (frozen) object
      expect(await one.getConfig(dana)).toBe(await one.getConfig(dana));
      expect(Object.isFrozen((await one.getConfig(dana)).categories)).toBe(true);
      await two.updateEntry(first.url, { add: { category: ['Food'] } }, dana);
      expect((await one.getConfig(dana)).categories).toEqual(['Food', 'Travel']);
      await two.deleteEntry(first.url, dana);
      expect((await one.getConfig(dana)).categories).toEqual([]);
      await two.undeleteEntry(first.url, dana);
      expect((await one.getConfig(dana)).categories).toEqual(['Food', 'Travel']);
      await database.db.deleteFrom('indieweb_entry').where('user_id', '=', dana.id).execute();
      expect((await one.getConfig(dana)).categories).toEqual([]);
    });

    it('the categories are the plain-text ones of the account’s 1,000 latest live entries, as the entries themselves say', async () => {
      const erin: HostUser = { id: 'erin-id', name: 'erin', me: ['https://erin.example/'], isActive: true };
      const repository = createEntriesRepository(database.db);
      const at = (n: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString();
      const odd: unknown[][] = [[' spaced ', 'Zeta', 'alpha'], [42, { value: 'object' }, '', '  '], ['alpha', 'Émile'], ['ß']];
      // five old ones, then 1,000 newer ones; one newer one deleted (so the window reaches back to the newest old one), one with category not a list
      await Promise.all(
        Array.from({ length: 1005 }, (_, n) =>
          repository.insert({
            id: `erin-${String(n).padStart(4, '0')}`,
            userId: erin.id,
            url: `https://id.example/erin/2026/01/e${n}/`,
            path: `/erin/2026/01/e${n}/`,
            type: ['h-entry'],
            properties:
              n < 5
                ? { content: ['old'], category: [`too-old-${n}`] }
                : n === 6
                  ? { content: ['odd'], category: 'not a list' as never }
                  : { content: ['new'], category: odd[n % odd.length] as never },
            published: at(n),
            createdAt: at(n),
          }),
        ),
      );
      await repository.markDeleted('erin-0007', at(2000));
      const stored = await repository.listByUser(erin.id, { offset: 0, limit: 1000 });
      const expected = categoriesOf(stored.filter((row) => Array.isArray(row.properties.category)));
      expect(expected).toEqual(['alpha', 'Émile', 'spaced', 'ß', 'too-old-4', 'Zeta'].sort((a, b) => a.localeCompare(b)));
      expect((await one.getConfig(erin)).categories).toEqual(expected);
    });

    it('q=source’s total counts the account’s live entries, whichever instance wrote them', async () => {
      const created = await Promise.all(
        Array.from({ length: 6 }, (_, n) =>
          (n % 2 === 0 ? one : two).createEntry({ type: ['h-entry'], properties: { content: [`n${n}`] } }, dana),
        ),
      );
      expect((await one.listEntries!(dana, { limit: 2, offset: 0, filter: null })).total).toBe(6);
      await one.deleteEntry(created[0]!.url, dana);
      await two.deleteEntry(created[1]!.url, dana);
      expect((await two.listEntries!(dana, { limit: 2, offset: 0, filter: null })).total).toBe(4);
      await one.undeleteEntry(created[1]!.url, dana);
      expect((await one.listEntries!(dana, { limit: 20, offset: 0, filter: null })).total).toBe(5);
      expect((await one.listEntries!(dana, { limit: 20, offset: 0, filter: null })).items).toHaveLength(5);
    });
  });
}
