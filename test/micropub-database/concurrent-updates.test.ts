/**
 * Issue 18: concurrent updates of one entry, from two instances (two
 * handlers, each over its own connection to one database), never lose a
 * change: every update lands, whatever the interleaving.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostUser } from '../../src/contracts/accounts.js';
import type { MicropubHandler } from '../../src/contracts/micropub-handler.js';
import { createDatabaseHandler } from '../../src/content/handlers/database/handler.js';
import { createDatabase, type DatabaseHandle } from '../../src/storage/connect.js';
import { createEntriesRepository } from '../../src/storage/repositories/entries.js';
import { DIALECTS, openTestDatabase, type TestDatabase } from '../helpers/databases.js';

const BASE_URL = 'https://id.example';
const alice: HostUser = { id: 'alice-id', name: 'alice', me: ['https://alice.example/'], isActive: true };
/** Updates raced at once, alternating between the two instances. */
const RACERS = 24;

for (const dialect of DIALECTS) {
  describe(`concurrent updates through two database handlers on ${dialect}`, () => {
    let database: TestDatabase;
    let second: DatabaseHandle;
    let one: MicropubHandler;
    let two: MicropubHandler;
    beforeAll(async () => {
      database = await openTestDatabase(dialect);
      // the second instance opens its own connection (pool) to the same database
      second = createDatabase(
        dialect === 'sqlite' ? { kind: 'sqlite', filename: database.url.slice('sqlite:'.length) } : { kind: 'postgres', url: database.url },
      );
      one = createDatabaseHandler({ baseUrl: BASE_URL, entries: createEntriesRepository(database.db) });
      two = createDatabaseHandler({ baseUrl: BASE_URL, entries: createEntriesRepository(second.db) });
    });
    afterAll(async () => {
      await second.close();
      await database.dispose();
    });

    it('two updates racing on one entry both land', async () => {
      const { url } = await one.createEntry({ type: ['h-entry'], properties: { content: ['race'], 'mp-slug': ['race'] } }, alice);
      await Promise.all([
        one.updateEntry(url, { add: { category: ['from-one'] } }, alice),
        two.updateEntry(url, { add: { category: ['from-two'] }, replace: { content: ['raced'] } }, alice),
      ]);
      const entry = await two.getEntry(url, alice);
      expect([...(entry?.properties.category ?? [])].sort()).toEqual(['from-one', 'from-two']);
      expect(entry?.properties.content).toEqual(['raced']);
    });

    it(`${RACERS} updates racing on one entry from two instances all land, each exactly once`, async () => {
      const { url } = await two.createEntry({ type: ['h-entry'], properties: { content: ['many'], 'mp-slug': ['many'] } }, alice);
      const values = Array.from({ length: RACERS }, (_, index) => `tag-${index}`);
      await Promise.all(
        values.map((value, index) => (index % 2 === 0 ? one : two).updateEntry(url, { add: { category: [value] } }, alice)),
      );
      const entry = await one.getEntry(url, alice);
      expect([...(entry?.properties.category ?? [])].sort()).toEqual([...values].sort());
      // every update wrote exactly one new version
      const row = await createEntriesRepository(database.db).findOwnedByUrl(alice.id, url);
      expect(row?.version).toBe(1 + RACERS);
    });

    it('an update racing a delete either lands before it or is refused as an unknown entry, never resurrecting it', async () => {
      const { url } = await one.createEntry({ type: ['h-entry'], properties: { content: ['doomed'] } }, alice);
      const [updated] = await Promise.allSettled([
        two.updateEntry(url, { add: { category: ['late'] } }, alice),
        one.deleteEntry(url, alice),
      ]);
      if (updated.status === 'rejected') expect((updated.reason as Error).name).toBe('HandlerValueError');
      expect(await two.getEntry(url, alice)).toBeNull();
      const restored = await two.undeleteEntry(url, alice);
      expect(restored.properties.content).toEqual(['doomed']);
    });

    it('two creates racing for one slug get two URLs', async () => {
      const created = await Promise.all(
        [one, two, one, two].map((handler) =>
          handler.createEntry({ type: ['h-entry'], properties: { content: ['same'], 'mp-slug': ['same'] } }, alice),
        ),
      );
      const urls = created.map((entry) => entry.url);
      expect(new Set(urls).size).toBe(4);
      for (const url of urls) expect(url).toMatch(/\/alice\/\d{4}\/\d{2}\/same(-[2-4])?\/$/);
    });

    it('forty creates of one slug at once through one instance all succeed, numbered 1 to 40 (issue 31)', async () => {
      const created = await Promise.all(
        Array.from({ length: 40 }, () =>
          one.createEntry({ type: ['h-entry'], properties: { content: ['burst'], 'mp-slug': ['burst'] } }, alice),
        ),
      );
      const numbers = created.map((entry) => Number(/\/burst(?:-(\d+))?\/$/.exec(entry.url)?.[1] ?? 1)).sort((a, b) => a - b);
      expect(numbers).toEqual(Array.from({ length: 40 }, (_, index) => index + 1));
    });
  });
}
