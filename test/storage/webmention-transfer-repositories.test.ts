/**
 * The stores behind sending on publish and import, on SQLite and PostgreSQL:
 * a pair sent again is one row reset, the deploy signal releases one
 * account's waiting rows once, and an import is all or nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createManualClock } from '../../src/core/clock.js';
import { createWebmentionOutgoingRepository } from '../../src/storage/repositories/webmention-outgoing.js';
import { createStores, type Stores } from '../../src/storage/stores.js';
import { importMentions } from '../../src/webmention/transfer/import.js';
import type { ExportedMention } from '../../src/webmention/transfer/read-export.js';
import { DIALECTS, openTestDatabase, type TestDatabase } from '../helpers/databases.js';

const NOW = '2026-03-01T12:00:00.000Z';

const mention = (n: number): ExportedMention => ({
  source: `https://s${n}.example/post`,
  target: 'https://alice.example/post/',
  type: 'like',
  rsvp: null,
  author: { name: `S${n}`, url: null, photo: null },
  contentHtml: null,
  contentText: null,
  published: null,
  receivedAt: `2024-01-0${n}T00:00:00.000Z`,
  originalId: n,
  private: false,
  verified: true,
});

for (const dialect of DIALECTS) {
  describe(`sending and import stores (${dialect})`, () => {
    let database: TestDatabase;
    let stores: Stores;

    beforeAll(async () => {
      database = await openTestDatabase(dialect);
      stores = createStores(database);
    });
    afterAll(async () => database?.dispose());

    it('a pair sent again is the same row, reset; releasing waiting rows is per account and happens once', async () => {
      const first = await stores.webmentionOutgoing.upsert({
        id: 'o1',
        userId: 'alice',
        source: 'https://a.example/1',
        target: 'https://t.example/x',
        linked: true,
        awaitingDeploy: true,
        now: NOW,
      });
      await stores.webmentionOutgoing.recordOutcome(first, {
        status: 'failed',
        endpoint: 'https://t.example/wm',
        httpStatus: 400,
        error: 'endpoint answered 400',
        now: NOW,
      });
      const again = await stores.webmentionOutgoing.upsert({
        id: 'o2',
        userId: 'alice',
        source: 'https://a.example/1',
        target: 'https://t.example/x',
        linked: false,
        awaitingDeploy: true,
        now: NOW,
      });
      expect(again).toBe(first);
      expect(await stores.webmentionOutgoing.findById(first)).toMatchObject({
        status: 'waiting',
        error: null,
        httpStatus: null,
        linked: false,
        awaitingDeploy: true,
      });
      await stores.webmentionOutgoing.upsert({
        id: 'o3',
        userId: 'bob',
        source: 'https://b.example/1',
        target: 'https://t.example/x',
        linked: true,
        awaitingDeploy: true,
        now: NOW,
      });
      expect(await stores.webmentionOutgoing.releaseWaiting('alice', NOW)).toEqual([first]);
      expect(await stores.webmentionOutgoing.releaseWaiting('alice', NOW)).toEqual([]);
      expect(await stores.webmentionOutgoing.findById('o3')).toMatchObject({ status: 'waiting', awaitingDeploy: true });
      expect(
        (await stores.webmentionOutgoing.listBySources(['https://a.example/1', 'https://b.example/1'])).map((row) => row.id).sort(),
      ).toEqual([first, 'o3'].sort());
    });

    it('each of many sources asked at once gets its own rows in order, looked up together (issue 31)', async () => {
      const outgoing = stores.webmentionOutgoing;
      for (const [n, source, target] of [
        [1, 'https://turn.example/a', 'https://t.example/2'],
        [2, 'https://turn.example/a', 'https://t.example/1'],
        [3, 'https://turn.example/b', 'https://t.example/1'],
        // what a JSON array or a text[] literal must carry as it is
        [4, `https://turn.example/"q'é 🎉\\,{}`, 'https://t.example/1'],
      ] as const)
        await outgoing.upsert({
          id: `turn-${n}`,
          userId: 'alice',
          source,
          target,
          linked: true,
          awaitingDeploy: false,
          now: `2026-03-01T12:00:0${n}.000Z`,
        });
      const ids = (rows: { id: string }[]) => rows.map((row) => row.id);
      // 72 asks in one burst, looked up by one statement: a and none-1 (which nobody has) asked twice
      const others = Array.from({ length: 67 }, (_, n) => `https://turn.example/none-${n}`);
      const asked = [
        'https://turn.example/a',
        'https://turn.example/b',
        'https://turn.example/a',
        ...others,
        'https://turn.example/none-1',
        `https://turn.example/"q'é 🎉\\,{}`,
      ];
      const answers = await Promise.all(asked.map((source) => outgoing.listBySources([source])));
      expect(answers.slice(0, 3).map(ids)).toEqual([['turn-1', 'turn-2'], ['turn-3'], ['turn-1', 'turn-2']]);
      expect(answers.slice(3, -1).every((rows) => rows.length === 0)).toBe(true);
      expect(ids(answers.at(-1)!)).toEqual(['turn-4']);
      // several sources at once (an entry's URL spellings): their rows merged, oldest first, whatever the order asked
      expect(ids(await outgoing.listBySources(['https://turn.example/b', 'https://turn.example/a', 'https://turn.example/b']))).toEqual([
        'turn-1',
        'turn-2',
        'turn-3',
      ]);
      expect(await outgoing.listBySources([])).toEqual([]);
      // a key the database cannot take (NUL: PostgreSQL's text refuses it) finds nothing and fails nobody else of its batch
      const [withNul, beside] = await Promise.all([
        outgoing.listBySources(['https://turn.example/a\u0000']),
        outgoing.listBySources(['https://turn.example/b']),
      ]);
      expect([ids(withNul), ids(beside)]).toEqual([[], ['turn-3']]);
      // through a Kysely instance connect.ts did not open (a transaction here): the same answers, through Kysely
      const throughKysely = await database.db
        .transaction()
        .execute(async (trx) =>
          Promise.all(
            [
              ['https://turn.example/b', 'https://turn.example/a'],
              [`https://turn.example/"q'é 🎉\\,{}`],
              ['https://turn.example/none-1'],
            ].map((sources) => createWebmentionOutgoingRepository(trx).listBySources(sources)),
          ),
        );
      expect(throughKysely.map(ids)).toEqual([['turn-1', 'turn-2', 'turn-3'], ['turn-4'], []]);
    });

    it('an import that fails part-way stores nothing; a whole one stores each pair once', async () => {
      const clock = createManualClock(new Date(NOW));
      const count = async () =>
        Number(
          (
            await database.db
              .selectFrom('indieweb_webmention')
              .select((eb) => eb.fn.countAll().as('n'))
              .executeTakeFirst()
          )?.n,
        );
      // the third mention's target cannot be read inside the transaction: the two stored before it are rolled back
      const broken = { ...mention(3), target: 'not a url' };
      await expect(
        importMentions({
          transact: stores.transactWebmentions,
          clock,
          ownerOf: async () => null,
          mentions: [mention(1), mention(2), broken],
          originName: 'webmention.io',
        }),
      ).rejects.toThrow();
      expect(await count()).toBe(0);
      const all = [mention(1), mention(2), mention(3), mention(1)];
      expect(
        await importMentions({
          transact: stores.transactWebmentions,
          clock,
          ownerOf: async () => 'alice',
          mentions: all,
          originName: 'webmention.io',
        }),
      ).toMatchObject({ imported: 3, alreadyHere: 1 });
      expect(
        await importMentions({
          transact: stores.transactWebmentions,
          clock,
          ownerOf: async () => 'alice',
          mentions: all,
          originName: 'webmention.io',
        }),
      ).toMatchObject({ imported: 0, alreadyHere: 4 });
      expect(await count()).toBe(3);
    });
  });
}
