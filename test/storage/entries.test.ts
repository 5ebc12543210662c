import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isUniqueViolation } from '../../src/storage/errors.js';
import { createEntriesRepository, type EntriesRepository, type NewEntryRow } from '../../src/storage/repositories/entries.js';
import { DIALECTS, openTestDatabase, type TestDatabase } from '../helpers/databases.js';

const BASE = 'https://id.example';

function entry(overrides: Partial<NewEntryRow> & { id: string; path: string }): NewEntryRow {
  return {
    userId: 'alice-id',
    url: `${BASE}${overrides.path}`,
    type: ['h-entry'],
    properties: { content: [`entry ${overrides.id}`] },
    published: '2026-11-01T10:00:00.000Z',
    createdAt: '2026-11-01T10:00:00.000Z',
    ...overrides,
  };
}

for (const dialect of DIALECTS) {
  describe(`entries repository on ${dialect}`, () => {
    let database: TestDatabase;
    let entries: EntriesRepository;
    beforeAll(async () => {
      database = await openTestDatabase(dialect);
      entries = createEntriesRepository(database.db);
    });
    afterAll(async () => {
      await database.dispose();
    });

    it('stores an entry and finds it by path (whoever asks) and by URL (only for its owner)', async () => {
      const stored = await entries.insert(
        entry({ id: 'e1', path: '/alice/2026/11/hello/', properties: { content: [{ html: '<p>hi</p>', value: 'hi' }], category: ['a', 'b'] }, type: ['h-entry'] }),
      );
      expect(stored).toMatchObject({ id: 'e1', version: 1, deletedAt: null, postStatus: 'published' });
      const found = await entries.findByPath('/alice/2026/11/hello/');
      expect(found).toEqual(stored);
      expect(found?.properties).toEqual({ content: [{ html: '<p>hi</p>', value: 'hi' }], category: ['a', 'b'] });
      expect(await entries.findOwnedByUrl('alice-id', `${BASE}/alice/2026/11/hello/`)).toEqual(stored);
      expect(await entries.findOwnedByUrl('bob-id', `${BASE}/alice/2026/11/hello/`)).toBeNull();
      expect(await entries.findByPath('/alice/2026/11/nothing/')).toBeNull();
    });

    it('refuses a second entry at a taken path, and says which paths are taken', async () => {
      const error = await entries.insert(entry({ id: 'e1-again', path: '/alice/2026/11/hello/', url: `${BASE}/other` })).then(
        () => null,
        (e: unknown) => e,
      );
      expect(isUniqueViolation(error)).toBe(true);
      await entries.insert(entry({ id: 'e2', path: '/alice/2026/11/hello-2/' }));
      await entries.insert(entry({ id: 'e3', path: '/alice/2026/11/hello_world/' }));
      expect((await entries.takenPaths(['/alice/2026/11/hello/', '/alice/2026/11/hello-2/', '/alice/2026/11/hello-3/', '/alice/2026/11/hello_world/'])).sort()).toEqual([
        '/alice/2026/11/hello-2/',
        '/alice/2026/11/hello/',
        '/alice/2026/11/hello_world/',
      ]);
      expect(await entries.takenPaths([])).toEqual([]);
      expect(await entries.lastSlugNumber('/alice/2026/11/hello')).toBe(2);
      expect(await entries.lastSlugNumber('/alice/2026/11/nothing')).toBe(0);
    });

    it('updates only over the version it read', async () => {
      const current = (await entries.findByPath('/alice/2026/11/hello-2/'))!;
      const changes = { properties: { content: ['first'] }, published: current.published, updatedAt: '2026-11-02T00:00:00.000Z' };
      expect(await entries.updateIfVersion(current.id, current.version, changes)).toBe(true);
      // a second writer that read the same version loses and must read again
      expect(await entries.updateIfVersion(current.id, current.version, { ...changes, properties: { content: ['second'] } })).toBe(false);
      const after = (await entries.findById(current.id))!;
      expect(after.properties).toEqual({ content: ['first'] });
      expect(after.version).toBe(current.version + 1);
      expect(after.updatedAt).toBe('2026-11-02T00:00:00.000Z');
    });

    it('modify recomputes from the newest version when another writer got in between', async () => {
      const { id } = (await entries.findByPath('/alice/2026/11/hello_world/'))!;
      let calls = 0;
      const result = await entries.modify(id, (current) => {
        calls += 1;
        return { properties: { ...current.properties, category: [...((current.properties.category as string[] | undefined) ?? []), 'mine'] }, published: current.published, updatedAt: current.updatedAt };
      });
      expect(calls).toBe(1);
      expect(result?.properties.category).toEqual(['mine']);

      // a concurrent writer lands between this writer's read and write: the first attempt fails, the second sees both
      let interfered = false;
      let attempts = 0;
      const second = await entries.modify(id, async (current) => {
        attempts += 1;
        if (!interfered) {
          interfered = true;
          await entries.updateIfVersion(id, current.version, { properties: { ...current.properties, category: ['mine', 'theirs'] }, published: current.published, updatedAt: current.updatedAt });
        }
        return { properties: { ...current.properties, category: [...(current.properties.category as string[]), 'again'] }, published: current.published, updatedAt: current.updatedAt };
      });
      expect(attempts).toBe(2);
      const final = (await entries.findById(id))!;
      expect(final.properties.category).toEqual(['mine', 'theirs', 'again']);
      expect(second).toEqual(final);
    });

    it('deletes as a tombstone and undeletes; a deleted entry is not updated', async () => {
      const { id, version } = (await entries.findByPath('/alice/2026/11/hello/'))!;
      expect(await entries.markDeleted(id, '2026-11-03T00:00:00.000Z')).toBe(true);
      expect(await entries.markDeleted(id, '2026-11-03T00:00:00.000Z')).toBe(false);
      const deleted = (await entries.findByPath('/alice/2026/11/hello/'))!;
      expect(deleted.deletedAt).toBe('2026-11-03T00:00:00.000Z');
      expect(await entries.modify(id, () => ({ properties: {}, published: deleted.published, updatedAt: deleted.updatedAt }))).toBeNull();
      expect(await entries.markUndeleted(id, '2026-11-04T00:00:00.000Z')).toBe(true);
      expect(await entries.markUndeleted(id, '2026-11-04T00:00:00.000Z')).toBe(false);
      const back = (await entries.findByPath('/alice/2026/11/hello/'))!;
      expect(back.deletedAt).toBeNull();
      expect(back.version).toBe(version + 2);
    });
  });

  describe(`entry listings on ${dialect}`, () => {
    let database: TestDatabase;
    let entries: EntriesRepository;
    beforeAll(async () => {
      database = await openTestDatabase(dialect);
      entries = createEntriesRepository(database.db);
      // five of alice's, created one minute apart, published in a different order; one draft, one deleted; one of bob's
      const published = ['2026-10-05', '2026-10-01', '2026-10-03', '2026-10-03', '2026-10-09'];
      for (const [index, day] of published.entries()) {
        await entries.insert(
          entry({
            id: `a${index}`,
            path: `/alice/2026/10/p${index}/`,
            published: `${day}T12:00:00.000Z`,
            createdAt: `2026-11-01T10:0${index}:00.000Z`,
            properties: index === 4 ? { content: [`entry a${index}`], 'post-status': ['draft'] } : { content: [`entry a${index}`] },
          }),
        );
      }
      await entries.insert(entry({ id: 'a5', path: '/alice/2026/10/gone/', createdAt: '2026-11-01T10:09:00.000Z' }));
      await entries.markDeleted('a5', '2026-11-02T00:00:00.000Z');
      await entries.insert(entry({ id: 'b0', userId: 'bob-id', path: '/bob/2026/10/p0/', createdAt: '2026-11-01T11:00:00.000Z' }));
    });
    afterAll(async () => {
      await database.dispose();
    });

    it('lists a user’s live entries newest created first, drafts included, with offset and limit, and counts them', async () => {
      expect((await entries.listByUser('alice-id', { offset: 0, limit: null })).map((e) => e.id)).toEqual(['a4', 'a3', 'a2', 'a1', 'a0']);
      expect((await entries.listByUser('alice-id', { offset: 1, limit: 2 })).map((e) => e.id)).toEqual(['a3', 'a2']);
      expect((await entries.listByUser('alice-id', { offset: 3, limit: null })).map((e) => e.id)).toEqual(['a1', 'a0']);
      expect(await entries.listByUser('alice-id', { offset: 0, limit: 0 })).toEqual([]);
      expect(await entries.countByUser('alice-id')).toBe(5);
      expect(await entries.countByUser('bob-id')).toBe(1);
      expect(await entries.countByUser('nobody')).toBe(0);
    });

    it('pages through published entries by (published, id), newest first, without drafts or deleted ones', async () => {
      const first = await entries.listPublished('alice-id', { limit: 2 });
      expect(first.map((e) => e.id)).toEqual(['a0', 'a3']);
      const last = first[first.length - 1]!;
      const second = await entries.listPublished('alice-id', { limit: 2, before: { published: last.published, id: last.id } });
      expect(second.map((e) => e.id)).toEqual(['a2', 'a1']);
      const tail = second[second.length - 1]!;
      expect(await entries.listPublished('alice-id', { limit: 2, before: { published: tail.published, id: tail.id } })).toEqual([]);
      expect(await entries.countPublished('alice-id')).toBe(4);
      expect((await entries.listPublished('bob-id', { limit: 10 })).map((e) => e.id)).toEqual(['b0']);
    });
  });
}
