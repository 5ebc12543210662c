import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSyndicationRepository } from '../../src/storage/repositories/syndication.js';
import { DIALECTS, openTestDatabase, type TestDatabase } from '../helpers/databases.js';

const NOW = '2026-01-01T00:00:00.000Z';
const LATER = '2026-01-01T00:01:00.000Z';

for (const dialect of DIALECTS) {
  describe(`syndication repository on ${dialect}`, () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await openTestDatabase(dialect);
    });
    afterAll(async () => {
      await database.dispose();
    });

    it('keeps targets per user with their sealed credentials, and removes only the owner’s', async () => {
      const repo = createSyndicationRepository(database.db);
      await repo.addTarget({
        id: 't1',
        userId: 'u1',
        service: 'mastodon',
        name: '@a@m.example',
        url: 'https://m.example',
        handle: null,
        sealedCredentials: 'v1.x',
        now: NOW,
      });
      await repo.addTarget({
        id: 't2',
        userId: 'u2',
        service: 'bluesky',
        name: 'b.example',
        url: 'https://pds.example',
        handle: 'b.example',
        sealedCredentials: 'v1.y',
        now: NOW,
      });
      expect((await repo.listTargets('u1')).map((t) => [t.id, t.service, t.name, t.sealedCredentials])).toEqual([
        ['t1', 'mastodon', '@a@m.example', 'v1.x'],
      ]);
      expect((await repo.listAllTargets()).length).toBe(2);
      expect(await repo.removeTarget('u1', 't2')).toBe(false);
      expect(await repo.removeTarget('u2', 't2')).toBe(true);
      expect(await repo.findTarget('t2')).toBeNull();
    });

    it('keeps one row per entry and target: queueing again keeps the copy and clears the error', async () => {
      const repo = createSyndicationRepository(database.db);
      const id = await repo.queue({
        id: 'r1',
        userId: 'u1',
        entryUrl: 'https://me.example/1',
        targetId: 't1',
        action: 'publish',
        now: NOW,
      });
      expect(id).toBe('r1');
      await repo.recordCopy(id, { id: '42', url: 'https://m.example/@a/42' }, NOW);
      await repo.recordOutcome(id, { state: 'failed', error: 'x'.repeat(900), now: NOW });
      expect((await repo.find(id))?.error?.length).toBe(500);
      expect(
        await repo.queue({ id: 'r2', userId: 'u1', entryUrl: 'https://me.example/1', targetId: 't1', action: 'update', now: LATER }),
      ).toBe('r1');
      const row = await repo.find('r1');
      expect(row).toMatchObject({
        state: 'queued',
        action: 'update',
        copyId: '42',
        copyUrl: 'https://m.example/@a/42',
        error: null,
        attempts: 0,
      });
      expect((await repo.listByEntry(['https://me.example/1'])).length).toBe(1);
      expect((await repo.listByUser('u1', { limit: 10, offset: 0 })).map((r) => r.id)).toEqual(['r1']);
      await repo.delete('r1');
      expect(await repo.find('r1')).toBeNull();
    });

    it('finds the rows of many entries asked at once, each its own, oldest first (one lookup for the moment, issue 31)', async () => {
      const repo = createSyndicationRepository(database.db);
      const rows = [
        ['s1', 'https://me.example/a', 't1', '2026-01-02T00:00:03.000Z'],
        ['s2', 'https://me.example/a', 't2', '2026-01-02T00:00:01.000Z'],
        ['s3', 'https://me.example/b', 't1', '2026-01-02T00:00:02.000Z'],
        ['s4', `https://me.example/"q'é 🎉\\,{}`, 't1', '2026-01-02T00:00:04.000Z'],
      ] as const;
      for (const [id, entryUrl, targetId, now] of rows) await repo.queue({ id, userId: 'u1', entryUrl, targetId, action: 'publish', now });
      const ids = (found: { id: string }[]) => found.map((row) => row.id);
      const asked = [
        ['https://me.example/a'],
        ['https://me.example/b', 'https://me.example/a'],
        ['https://me.example/none'],
        [rows[3][1]],
        [],
      ];
      const answers = await Promise.all(asked.map((urls) => repo.listByEntry(urls)));
      expect(answers.map(ids)).toEqual([['s2', 's1'], ['s2', 's3', 's1'], [], ['s4'], []]);
      // targets of several accounts asked at once (every q=config asks): each account's own
      const targets = await Promise.all(['u1', 'u2', 'u1', 'nobody'].map((userId) => repo.listTargets(userId)));
      expect(targets.map(ids)).toEqual([['t1'], [], ['t1'], []]);
      expect(targets[0]![0]).toMatchObject({ service: 'mastodon', sealedCredentials: 'v1.x' });
    });
  });
}
