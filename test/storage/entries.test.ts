import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MicropubProperties } from '../../src/contracts/micropub-types.js';
import { audienceOf, isEntryListed, isEntryVisible, postStatusOf, visibilityOf } from '../../src/core/visibility.js';
import { isUniqueViolation } from '../../src/storage/errors.js';
import { createEntriesRepository, type EntriesRepository, type NewEntryRow } from '../../src/storage/repositories/entries.js';
import { DIALECTS, openTestDatabase, type TestDatabase, withUnmigratedDatabase } from '../helpers/databases.js';

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
        entry({
          id: 'e1',
          path: '/alice/2026/11/hello/',
          properties: { content: [{ html: '<p>hi</p>', value: 'hi' }], category: ['a', 'b'] },
          type: ['h-entry'],
        }),
      );
      expect(stored).toMatchObject({ id: 'e1', version: 1, deletedAt: null, postStatus: 'published' });
      const found = await entries.findByPath('/alice/2026/11/hello/');
      expect(found).toEqual(stored);
      expect(found?.properties).toEqual({ content: [{ html: '<p>hi</p>', value: 'hi' }], category: ['a', 'b'] });
      expect(await entries.findOwnedByUrl('alice-id', `${BASE}/alice/2026/11/hello/`)).toEqual(stored);
      expect(await entries.findOwnedByUrl('bob-id', `${BASE}/alice/2026/11/hello/`)).toBeNull();
      expect(await entries.findByPath('/alice/2026/11/nothing/')).toBeNull();
    });

    it('finds entries by URL and accounts’ counts asked for at once, each its own (one lookup for the moment, issue 31)', async () => {
      await entries.insert(entry({ id: 'b1', userId: 'bob-id', path: '/bob/2026/11/hello/' }));
      const [own, bobs, asAlice, nothing, again, alice, bob, nobody] = await Promise.all([
        entries.findOwnedByUrl('alice-id', `${BASE}/alice/2026/11/hello/`),
        entries.findOwnedByUrl('bob-id', `${BASE}/bob/2026/11/hello/`),
        entries.findOwnedByUrl('alice-id', `${BASE}/bob/2026/11/hello/`),
        entries.findOwnedByUrl('alice-id', `${BASE}/alice/2026/11/nothing/`),
        entries.findOwnedByUrl('alice-id', `${BASE}/alice/2026/11/hello/`),
        entries.statsOf('alice-id'),
        entries.statsOf('bob-id'),
        entries.statsOf('nobody-id'),
      ]);
      expect([own?.id, bobs?.id, asAlice, nothing, again?.id]).toEqual(['e1', 'b1', null, null, 'e1']);
      expect(again).toEqual(own);
      expect([alice.live, bob.live, nobody]).toEqual([1, 1, { live: 0, version: 0 }]);
      expect(bob.version).toBeGreaterThan(0);
    });

    it('refuses a second entry at a taken path, and says which paths are taken', async () => {
      const error = await entries.insert(entry({ id: 'e1-again', path: '/alice/2026/11/hello/', url: `${BASE}/other` })).then(
        () => null,
        (e: unknown) => e,
      );
      expect(isUniqueViolation(error)).toBe(true);
      await entries.insert(entry({ id: 'e2', path: '/alice/2026/11/hello-2/' }));
      await entries.insert(entry({ id: 'e3', path: '/alice/2026/11/hello_world/' }));
      expect(
        (
          await entries.takenPaths([
            '/alice/2026/11/hello/',
            '/alice/2026/11/hello-2/',
            '/alice/2026/11/hello-3/',
            '/alice/2026/11/hello_world/',
          ])
        ).sort(),
      ).toEqual(['/alice/2026/11/hello-2/', '/alice/2026/11/hello/', '/alice/2026/11/hello_world/']);
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
        return {
          properties: { ...current.properties, category: [...((current.properties.category as string[] | undefined) ?? []), 'mine'] },
          published: current.published,
          updatedAt: current.updatedAt,
        };
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
          await entries.updateIfVersion(id, current.version, {
            properties: { ...current.properties, category: ['mine', 'theirs'] },
            published: current.published,
            updatedAt: current.updatedAt,
          });
        }
        return {
          properties: { ...current.properties, category: [...(current.properties.category as string[]), 'again'] },
          published: current.published,
          updatedAt: current.updatedAt,
        };
      });
      expect(attempts).toBe(2);
      const final = (await entries.findById(id))!;
      expect(final.properties.category).toEqual(['mine', 'theirs', 'again']);
      expect(second).toEqual(final);
    });

    it('modify starts from the entry its caller read, and reads again when that was stale', async () => {
      const read = (await entries.findByPath('/alice/2026/11/hello_world/'))!;
      const addCategory = (category: string) => (current: typeof read) => ({
        properties: { ...current.properties, category: [...((current.properties.category as string[] | undefined) ?? []), category] },
        published: current.published,
        updatedAt: current.updatedAt,
      });
      const seen: number[] = [];
      const fresh = await entries.modify(read.id, (current) => (seen.push(current.version), addCategory('from-read')(current)), read);
      expect(seen).toEqual([read.version]);
      expect(fresh?.version).toBe(read.version + 1);
      // `read` is now stale: the first attempt loses over its version, the second starts from the entry as it is
      seen.length = 0;
      const after = await entries.modify(read.id, (current) => (seen.push(current.version), addCategory('after')(current)), read);
      expect(seen).toEqual([read.version, read.version + 1]);
      expect(after?.properties.category).toEqual([...(read.properties.category as string[]), 'from-read', 'after']);
      expect(await entries.findById(read.id)).toEqual(after);
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

  describe(`entry inserts and updates of a burst (group commit below Kysely, issue 31) on ${dialect}`, () => {
    let database: TestDatabase;
    let entries: EntriesRepository;
    beforeAll(async () => {
      database = await openTestDatabase(dialect);
      entries = createEntriesRepository(database.db);
      await entries.insert(entry({ id: 'taken', path: '/alice/2026/11/taken/' }));
    });
    afterAll(async () => {
      await database.dispose();
    });
    const outcome = (promise: Promise<unknown>) =>
      promise.then(
        () => 'stored',
        (error: unknown) => (isUniqueViolation(error) ? 'taken' : error),
      );

    it('stores every entry of a turn with all its columns; a taken path refuses only its own, and of two asking for one path the first wins', async () => {
      const asked = [
        ...Array.from({ length: 20 }, (_, index) => entry({ id: `t${index}`, path: `/alice/2026/11/t${index}/` })),
        entry({ id: 'again', path: '/alice/2026/11/taken/', url: `${BASE}/elsewhere` }),
        entry({ id: 'twin-1', path: '/alice/2026/11/twin/' }),
        entry({ id: 'twin-2', path: '/alice/2026/11/twin/', url: `${BASE}/alice/2026/11/twin-url-2/` }),
        entry({ id: 'same-url', path: '/alice/2026/11/other-path/', url: `${BASE}/alice/2026/11/t3/` }),
      ];
      const results = await Promise.all(asked.map((row) => outcome(entries.insert(row))));
      expect(results).toEqual([...Array.from({ length: 20 }, () => 'stored'), 'taken', 'stored', 'taken', 'taken']);
      const rows = await database.db
        .selectFrom('indieweb_entry')
        .select(['id', 'version', 'deleted_at', 'slug_series', 'slug_number', 'search_text', 'post_status', 'visibility'])
        .where('id', 'in', ['t7', 'twin-1', 'twin-2', 'again', 'same-url'])
        .orderBy('id')
        .execute();
      expect(rows.map((row) => ({ ...row, version: Number(row.version), slug_number: Number(row.slug_number) }))).toEqual([
        {
          id: 't7',
          version: 1,
          deleted_at: null,
          slug_series: '/alice/2026/11/t7',
          slug_number: 1,
          search_text: expect.stringContaining('"entry t7"'),
          post_status: 'published',
          visibility: 'public',
        },
        expect.objectContaining({ id: 'twin-1' }),
      ]);
      expect(await entries.findByPath('/alice/2026/11/t7/')).toMatchObject({ id: 't7', properties: { content: ['entry t7'] } });
    });

    it('never writes into a transaction another caller keeps open: its rollback leaves an entry asked for meanwhile', async () => {
      let inserted: Promise<unknown> | undefined;
      await database.db
        .transaction()
        .execute(async (trx) => {
          await trx.insertInto('indieweb_counter').values({ name: 'rolled-back', value: 1 }).execute();
          inserted = outcome(entries.insert(entry({ id: 'meanwhile', path: '/alice/2026/11/meanwhile/' })));
          // the group commit's turn comes and goes while this transaction is open
          await new Promise((resolve) => setTimeout(resolve, 30));
          throw new Error('roll back');
        })
        .catch(() => {});
      expect(await inserted).toBe('stored');
      expect(await entries.findByPath('/alice/2026/11/meanwhile/')).toMatchObject({ id: 'meanwhile' });
      const counter = await database.db.selectFrom('indieweb_counter').selectAll().where('name', '=', 'rolled-back').execute();
      expect(counter).toEqual([]);
    });

    it('while each turn of the event loop brings more inserts, they wait and are answered together; a lone one is not kept waiting', async () => {
      // the turn of the loop each insert was answered in (counted by a chain of check-phase callbacks)
      let turn = 0;
      let counting = true;
      const tick = (): void => {
        turn++;
        if (counting) setImmediate(tick);
      };
      setImmediate(tick);
      const answeredIn = (promise: Promise<unknown>) => promise.then(() => turn);
      const asked: Promise<number>[] = [];
      const askedIn: number[] = [];
      // two in the first turn (a turn with one alone is written at once), then one in each of the next two
      for (const ids of [['wave-0', 'wave-1'], ['wave-2'], ['wave-3']]) {
        for (const id of ids) {
          askedIn.push(turn);
          asked.push(answeredIn(entries.insert(entry({ id, path: `/alice/2026/11/${id}/` }))));
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
      const answered = await Promise.all(asked);
      // three turns, one batch: the first were not answered before the last was asked
      expect(new Set(askedIn).size).toBe(3);
      expect(new Set(answered).size).toBe(1);
      expect(answered[0]).toBeGreaterThanOrEqual(askedIn[3]!);
      if (dialect === 'sqlite') {
        // alone in its turn: committed in that turn's check phase, before a callback queued right after it
        const lone = answeredIn(entries.insert(entry({ id: 'lone', path: '/alice/2026/11/lone/' })));
        const before = turn;
        let settled = false;
        void lone.then(() => (settled = true));
        await new Promise((resolve) => setImmediate(resolve));
        expect(settled).toBe(true);
        expect(await lone).toBeLessThanOrEqual(before + 1);
      }
      counting = false;
      expect(await entries.findByPath('/alice/2026/11/wave-3/')).toMatchObject({ id: 'wave-3' });
    });

    it('inserts that never stop coming do not keep the first waiting: a batch waits a few turns at most', async () => {
      let turn = 0;
      const answered: number[] = [];
      const asked: Promise<void>[] = [];
      // at least until the first is answered (PostgreSQL's answer takes a round trip: many turns)
      for (let index = 0; index < 24 || (answered[0] === undefined && index < 5000); index++) {
        // two a turn, so every turn brings more
        for (const id of [`stream-${index}-a`, `stream-${index}-b`]) {
          const position = asked.length;
          asked.push(entries.insert(entry({ id, path: `/alice/2026/11/${id}/` })).then(() => void (answered[position] = turn)));
        }
        await new Promise((resolve) => setImmediate(resolve));
        turn++;
      }
      await Promise.all(asked);
      // on SQLite (whose writes are synchronous, so turns are the clock) the first two were answered within the
      // first few turns; on PostgreSQL a round trip takes an unknown number of turns, but the answers came in batches
      if (dialect === 'sqlite') expect(answered[0]).toBeLessThanOrEqual(6);
      expect(new Set(answered).size).toBeGreaterThan(1);
    });

    it('through a Kysely instance it did not open (a transaction here) the inserts go through Kysely, with the same answers', async () => {
      await database.db.transaction().execute(async (trx) => {
        const inTransaction = createEntriesRepository(trx);
        expect(await outcome(inTransaction.insert(entry({ id: 'in-trx', path: '/alice/2026/11/in-trx/' })))).toBe('stored');
        expect(await outcome(inTransaction.insert(entry({ id: 'in-trx-2', path: '/alice/2026/11/in-trx/' })))).toBe('taken');
        // several in one turn: one batch, written in the caller's transaction (no transaction nested in it)
        expect(
          await Promise.all(
            ['in-trx-a', 'in-trx-b', 'in-trx-a'].map((id, index) =>
              outcome(inTransaction.insert(entry({ id: `${id}-${index}`, path: `/alice/2026/11/${id}/` }))),
            ),
          ),
        ).toEqual(['stored', 'stored', 'taken']);
      });
      expect(await entries.findByPath('/alice/2026/11/in-trx/')).toMatchObject({ id: 'in-trx', version: 1 });
    });

    it('writes every update of a burst over the version it read; ten writers of one entry lose none of their changes', async () => {
      await Promise.all(
        Array.from({ length: 30 }, (_, index) => entries.insert(entry({ id: `u${index}`, path: `/alice/2026/11/u${index}/` }))),
      );
      await entries.insert(entry({ id: 'gone', path: '/alice/2026/11/gone/' }));
      await entries.markDeleted('gone', '2026-11-02T00:00:00.000Z');
      const { version: before } = await entries.statsOf('alice-id');
      const replace = (id: string) =>
        entries.modify(id, (current) => ({
          properties: { content: [`changed ${id}`] },
          published: current.published,
          updatedAt: '2026-11-03T00:00:00.000Z',
        }));
      const addCategory = (category: string) =>
        entries.modify('u0', (current) => ({
          properties: { ...current.properties, category: [...((current.properties.category as string[] | undefined) ?? []), category] },
          published: current.published,
          updatedAt: current.updatedAt,
        }));
      const [replaced, added, deleted] = await Promise.all([
        Promise.all(Array.from({ length: 29 }, (_, index) => replace(`u${index + 1}`))),
        Promise.all(Array.from({ length: 10 }, (_, index) => addCategory(`c${index}`))),
        replace('gone'),
      ]);
      expect(deleted).toBeNull();
      expect(replaced.map((row) => row?.version)).toEqual(Array.from({ length: 29 }, () => 2));
      for (const index of [1, 15, 29]) {
        expect(await entries.findById(`u${index}`)).toMatchObject({ version: 2, properties: { content: [`changed u${index}`] } });
      }
      const u0 = (await entries.findById('u0'))!;
      expect(u0.version).toBe(11);
      expect((u0.properties.category as string[]).toSorted()).toEqual(Array.from({ length: 10 }, (_, index) => `c${index}`));
      expect(added.map((row) => row?.version).toSorted((a, b) => a! - b!)).toEqual(Array.from({ length: 10 }, (_, index) => index + 2));
      // the search text went with the properties, and the account's version moved (the caches that read it see the change)
      const searched = await database.db
        .selectFrom('indieweb_entry')
        .select('search_text')
        .where('id', '=', 'u15')
        .executeTakeFirstOrThrow();
      expect(searched.search_text).toContain('changed u15');
      expect((await entries.statsOf('alice-id')).version).toBeGreaterThan(before);
      expect((await entries.findById('gone'))?.properties).toEqual({ content: ['entry gone'] });
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

/** Every spelling of the two properties the rule reads, crossed with deleted or not. */
const POST_STATUSES: readonly (readonly unknown[] | undefined)[] = [
  ['draft'],
  [' Draft '],
  ['DRAFT'],
  ['published'],
  [' Published'],
  ['pending'],
  [''],
  [{ value: 'published' }],
  undefined,
];
const VISIBILITIES: readonly (readonly unknown[] | undefined)[] = [
  ['public'],
  ['unlisted'],
  ['private'],
  [' Private'],
  ['UNLISTED '],
  ['protected'],
  ['  '],
  undefined,
];

function combinations(): { id: string; properties: MicropubProperties; deleted: boolean }[] {
  const all: { id: string; properties: MicropubProperties; deleted: boolean }[] = [];
  for (const [s, status] of POST_STATUSES.entries()) {
    for (const [v, visibility] of VISIBILITIES.entries()) {
      for (const deleted of [false, true]) {
        const properties: MicropubProperties = { content: ['x'] };
        if (status !== undefined) properties['post-status'] = [...status];
        if (visibility !== undefined) properties.visibility = [...visibility];
        all.push({ id: `c-${s}-${v}-${deleted ? 'd' : 'l'}`, properties, deleted });
      }
    }
  }
  return all;
}

for (const dialect of DIALECTS) {
  describe(`the rule for a public entry, in JavaScript and in SQL (${dialect})`, () => {
    let database: TestDatabase;
    let entries: EntriesRepository;
    beforeAll(async () => {
      database = await openTestDatabase(dialect);
      entries = createEntriesRepository(database.db);
    });
    afterAll(async () => {
      await database.dispose();
    });

    it('lists, counts and pages exactly the entries isEntryListed accepts, over every combination', async () => {
      const all = combinations();
      for (const [index, combination] of all.entries()) {
        const published = new Date(Date.UTC(2026, 0, 1, 0, index)).toISOString();
        await entries.insert(
          entry({
            id: combination.id,
            userId: 'rule-user',
            path: `/rule/2026/01/${combination.id}/`,
            properties: combination.properties,
            published,
            createdAt: published,
          }),
        );
        if (combination.deleted) await entries.markDeleted(combination.id, published);
      }
      const expected = all
        .filter((c) => isEntryListed({ ...audienceOf(c.properties), deletedAt: c.deleted ? 'now' : null }))
        .map((c) => c.id);
      // the rule as the issue states it: trimmed, lower-cased, published (or nothing) and public (or nothing), live
      const word = (values: readonly unknown[] | undefined) =>
        typeof values?.[0] === 'string' ? values[0].trim().toLowerCase() : values?.[0];
      const byHand = all
        .filter(
          (c) =>
            [undefined, '', 'published'].includes(word(c.properties['post-status']) as string) &&
            [undefined, '', 'public'].includes(word(c.properties.visibility) as string) &&
            !c.deleted,
        )
        .map((c) => c.id);
      expect(expected.sort()).toEqual(byHand.sort());
      // published: 'published', ' Published', '' and none; public: 'public', '  ' and none
      expect(expected.length).toBe(4 * 3);

      const listed = await entries.listPublished('rule-user', { limit: 1000 });
      expect(listed.map((row) => row.id).sort()).toEqual(expected);
      expect(await entries.countPublished('rule-user')).toBe(expected.length);
      // paged two at a time, both ways: the same entries, and the cursors are only ever listed ones
      const paged: string[] = [];
      let before: { published: string; id: string } | undefined;
      for (;;) {
        const page = await entries.listPublished('rule-user', { limit: 2, ...(before === undefined ? {} : { before }) });
        if (page.length === 0) break;
        paged.push(...page.map((row) => row.id));
        before = { published: page.at(-1)!.published, id: page.at(-1)!.id };
      }
      expect(paged.sort()).toEqual(expected);
      const oldest = listed.at(-1)!;
      expect(
        (await entries.listPublishedAfter('rule-user', { limit: 1000, after: { published: oldest.published, id: oldest.id } }))
          .map((row) => row.id)
          .sort(),
      ).toEqual(expected.filter((id) => id !== oldest.id));

      // each stored row: the columns say what the properties say, and the page rule agrees
      for (const combination of all) {
        const row = (await entries.findById(combination.id))!;
        expect([combination.id, row.postStatus, row.visibility]).toEqual([
          combination.id,
          postStatusOf(combination.properties),
          visibilityOf(combination.properties),
        ]);
        expect([combination.id, isEntryVisible(row)]).toEqual([combination.id, isEntryVisible(audienceOf(combination.properties))]);
        expect([combination.id, isEntryListed(row)]).toEqual([combination.id, expected.includes(combination.id)]);
      }
    });

    it('keeps the columns in step on every write: an update to private, to draft and back', async () => {
      const id = 'c-step';
      await entries.insert(entry({ id, userId: 'step-user', path: '/step/2026/01/one/' }));
      const listedIds = async () => (await entries.listPublished('step-user', { limit: 10 })).map((row) => row.id);
      expect(await listedIds()).toEqual([id]);
      const update = async (properties: MicropubProperties) =>
        entries.modify(id, (current) => ({ properties, published: current.published, updatedAt: current.updatedAt }));
      expect(await update({ content: ['x'], visibility: [' Private '] })).toMatchObject({ visibility: 'private', postStatus: 'published' });
      expect(await listedIds()).toEqual([]);
      expect(await entries.countPublished('step-user')).toBe(0);
      expect(await update({ content: ['x'], 'post-status': ['Draft'] })).toMatchObject({ visibility: 'public', postStatus: 'draft' });
      expect(await listedIds()).toEqual([]);
      const current = (await entries.findById(id))!;
      expect(
        await entries.updateIfVersion(id, current.version, {
          properties: { content: ['x'] },
          published: current.published,
          updatedAt: current.updatedAt,
        }),
      ).toBe(true);
      expect(await listedIds()).toEqual([id]);
      expect(await entries.findById(id)).toMatchObject({ visibility: 'public', postStatus: 'published' });
    });
  });

  describe(`migration 0013-entry-visibility (${dialect})`, () => {
    it('fills visibility and post_status from the properties of existing entries, and goes down again', async () => {
      await withUnmigratedDatabase(dialect, async ({ handle, migrator }) => {
        expect((await migrator.migrateTo('0012-webmention-sending')).error).toBeUndefined();
        const all = combinations().filter((c) => !c.deleted);
        // as the handler of the day stored them: post_status 'draft' only for a trimmed, lower-cased 'draft'
        const oldStatus = (properties: MicropubProperties) => {
          const first = properties['post-status']?.find((value): value is string => typeof value === 'string' && value.trim() !== '');
          return first?.trim().toLowerCase() === 'draft' ? 'draft' : 'published';
        };
        for (const [index, c] of all.entries()) {
          const at = new Date(Date.UTC(2026, 0, 1, 0, index)).toISOString();
          // the table before this migration, without the column
          await (handle.db as unknown as Kysely<any>)
            .insertInto('indieweb_entry')
            .values({
              id: c.id,
              user_id: 'old-user',
              url: `${BASE}/old/${c.id}/`,
              path: `/old/${c.id}/`,
              type: '["h-entry"]',
              properties: JSON.stringify(c.properties),
              post_status: oldStatus(c.properties),
              published: at,
              created_at: at,
              updated_at: at,
              deleted_at: null,
              version: 1,
              slug_series: `/old/${c.id}`,
              slug_number: 1,
            })
            .execute();
        }
        expect((await migrator.migrateToLatest()).error).toBeUndefined();
        const entries = createEntriesRepository(handle.db);
        for (const c of all) {
          const row = (await entries.findById(c.id))!;
          expect([c.id, row.postStatus, row.visibility]).toEqual([c.id, postStatusOf(c.properties), visibilityOf(c.properties)]);
        }
        const expected = all
          .filter((c) => isEntryListed(audienceOf(c.properties)))
          .map((c) => c.id)
          .sort();
        expect((await entries.listPublished('old-user', { limit: 1000 })).map((row) => row.id).sort()).toEqual(expected);
        expect(await entries.countPublished('old-user')).toBe(expected.length);

        expect((await migrator.migrateTo('0012-webmention-sending')).error).toBeUndefined();
        await expect(sql`select visibility from indieweb_entry`.execute(handle.db)).rejects.toThrow();
      });
    });
  });

  describe(`migration 0015-entry-search-text (${dialect})`, () => {
    it('fills the search text of existing entries, so a filtered list finds them, and goes down again (issue 31)', async () => {
      await withUnmigratedDatabase(dialect, async ({ handle, migrator }) => {
        expect((await migrator.migrateTo('0014-webhook-webmention-io')).error).toBeUndefined();
        const at = '2026-01-01T00:00:00.000Z';
        const old = (id: string, properties: string) => ({
          id,
          user_id: 'old-user',
          url: `${BASE}/old/${id}/`,
          path: `/old/${id}/`,
          type: '["h-entry"]',
          properties,
          post_status: 'published',
          visibility: 'public',
          published: at,
          created_at: at,
          updated_at: at,
          deleted_at: null,
          version: 1,
          slug_series: `/old/${id}`,
          slug_number: 1,
        });
        // the table before this migration, without the column; one row with properties no JSON parser reads
        await (handle.db as unknown as Kysely<any>)
          .insertInto('indieweb_entry')
          .values([
            old('a', JSON.stringify({ content: ['Hello OLD World'] })),
            old('b', JSON.stringify({ content: ['other'], url: ['https://elsewhere.example/b'] })),
            old('c', '{not json'),
          ])
          .execute();
        expect((await migrator.migrateToLatest()).error).toBeUndefined();
        const entries = createEntriesRepository(handle.db);
        const ids = async (filter: string) =>
          (await entries.listByUserMatching('old-user', filter, { offset: 0, limit: null })).rows.map((row) => row.id);
        expect(await ids('old world')).toEqual(['a']);
        // the url property the list adds when there is none, and the one an entry has of its own
        expect(await ids(`${BASE}/old/a/`.toLowerCase())).toEqual(['a']);
        expect(await ids('elsewhere.example')).toEqual(['b']);
        expect(await ids(`${BASE}/old/b/`.toLowerCase())).toEqual([]);
        expect((await entries.listByUserMatching('old-user', 'h-entry', { offset: 0, limit: null })).total).toBe(2);
        // the page's plan: migration 0018's test
        expect((await migrator.migrateTo('0014-webhook-webmention-io')).error).toBeUndefined();
        await expect(sql`select search_text from indieweb_entry`.execute(handle.db)).rejects.toThrow();
      });
    });
  });

  describe(`entry counts per account (migration 0018, issue 31) on ${dialect}`, () => {
    let database: TestDatabase;
    let entries: EntriesRepository;
    beforeAll(async () => {
      database = await openTestDatabase(dialect);
      entries = createEntriesRepository(database.db);
    });
    afterAll(async () => {
      await database.dispose();
    });
    /** The count kept by the triggers, and the count of the rows themselves. */
    const counts = async (userId: string) => {
      const row = await database.db
        .selectFrom('indieweb_entry')
        .select((eb) => eb.fn.countAll<string | number>().as('n'))
        .where('user_id', '=', userId)
        .where('deleted_at', 'is', null)
        .executeTakeFirstOrThrow();
      return { kept: await entries.countByUser(userId), counted: Number(row.n) };
    };

    it('follows creates (one at a time and a turn’s batch, refused ones not counted), deletes, undeletes and updates', async () => {
      expect(await entries.statsOf('carol-id')).toEqual({ live: 0, version: 0 });
      await entries.insert(entry({ id: 'c1', userId: 'carol-id', path: '/carol/2026/11/c1/' }));
      const batch = await Promise.all(
        [
          ...Array.from({ length: 12 }, (_, n) => entry({ id: `cb${n}`, userId: 'carol-id', path: `/carol/2026/11/cb${n}/` })),
          ...Array.from({ length: 5 }, (_, n) => entry({ id: `db${n}`, userId: 'dave-id', path: `/dave/2026/11/db${n}/` })),
          // taken: refused, so not counted
          entry({ id: 'c1-again', userId: 'carol-id', path: '/carol/2026/11/c1/', url: `${BASE}/c1-again` }),
        ].map((row) =>
          entries.insert(row).then(
            () => true,
            () => false,
          ),
        ),
      );
      expect(batch.filter((stored) => !stored)).toHaveLength(1);
      expect(await counts('carol-id')).toEqual({ kept: 13, counted: 13 });
      expect(await counts('dave-id')).toEqual({ kept: 5, counted: 5 });
      const before = (await entries.statsOf('carol-id')).version;
      expect(await entries.markDeleted('c1', '2026-11-02T00:00:00.000Z')).toBe(true);
      expect(await entries.markDeleted('cb0', '2026-11-02T00:00:00.000Z')).toBe(true);
      // deleting a deleted entry changes nothing
      expect(await entries.markDeleted('cb0', '2026-11-02T00:00:00.000Z')).toBe(false);
      expect(await counts('carol-id')).toEqual({ kept: 11, counted: 11 });
      expect(await entries.markUndeleted('cb0', '2026-11-03T00:00:00.000Z')).toBe(true);
      expect(await counts('carol-id')).toEqual({ kept: 12, counted: 12 });
      const afterDeletes = (await entries.statsOf('carol-id')).version;
      expect(afterDeletes).toBeGreaterThan(before);
      // an update leaves the count and moves the version; another account's change leaves this one's alone
      await entries.modify('cb1', (current) => ({ properties: { content: ['changed'] }, published: current.published, updatedAt: 'x' }));
      expect(await counts('carol-id')).toEqual({ kept: 12, counted: 12 });
      expect((await entries.statsOf('carol-id')).version).toBeGreaterThan(afterDeletes);
      const carol = await entries.statsOf('carol-id');
      await entries.markDeleted('db0', '2026-11-02T00:00:00.000Z');
      expect(await entries.statsOf('carol-id')).toEqual(carol);
      expect(await counts('dave-id')).toEqual({ kept: 4, counted: 4 });
    });

    it('stays exact with writes that go around the repository (SQL by hand: another process, a restore)', async () => {
      const db = database.db;
      await db.updateTable('indieweb_entry').set({ deleted_at: 'gone' }).where('user_id', '=', 'dave-id').execute();
      expect(await counts('dave-id')).toEqual({ kept: 0, counted: 0 });
      await db.updateTable('indieweb_entry').set({ deleted_at: null }).where('user_id', '=', 'dave-id').where('id', '!=', 'db4').execute();
      expect(await counts('dave-id')).toEqual({ kept: 4, counted: 4 });
      // an entry moved to another account
      await db.updateTable('indieweb_entry').set({ user_id: 'erin-id' }).where('id', '=', 'db1').execute();
      expect(await counts('dave-id')).toEqual({ kept: 3, counted: 3 });
      expect(await counts('erin-id')).toEqual({ kept: 1, counted: 1 });
      await db.deleteFrom('indieweb_entry').where('user_id', 'in', ['dave-id', 'erin-id']).execute();
      expect(await counts('dave-id')).toEqual({ kept: 0, counted: 0 });
      expect(await counts('erin-id')).toEqual({ kept: 0, counted: 0 });
    });
    it('keeps the listed count of the home page the same way (migration 0019): drafts, unlisted and private ones, deletes, SQL by hand', async () => {
      const listedCount = async (userId: string) => {
        const row = await database.db
          .selectFrom('indieweb_entry')
          .select((eb) => eb.fn.countAll<string | number>().as('n'))
          .where('user_id', '=', userId)
          .where('deleted_at', 'is', null)
          .where('post_status', '=', 'published')
          .where('visibility', '=', 'public')
          .executeTakeFirstOrThrow();
        return { kept: await entries.countPublished(userId), counted: Number(row.n) };
      };
      const frank = (id: string, properties: MicropubProperties = {}) =>
        entry({ id, userId: 'frank-id', path: `/frank/${id}/`, properties: { content: [id], ...properties } });
      expect(await listedCount('frank-id')).toEqual({ kept: 0, counted: 0 });
      await entries.insert(frank('f1'));
      await entries.insert(frank('f2', { 'post-status': ['draft'] }));
      await entries.insert(frank('f3', { visibility: ['unlisted'] }));
      await entries.insert(frank('f4', { visibility: ['private'] }));
      await entries.insert(frank('f5'));
      expect(await listedCount('frank-id')).toEqual({ kept: 2, counted: 2 });
      // the draft published, the public one made unlisted
      await entries.modify('f2', (current) => ({ properties: { content: ['f2'] }, published: current.published, updatedAt: 'x' }));
      await entries.modify('f5', (current) => ({
        properties: { content: ['f5'], visibility: ['unlisted'] },
        published: current.published,
        updatedAt: 'x',
      }));
      expect(await listedCount('frank-id')).toEqual({ kept: 2, counted: 2 });
      await entries.markDeleted('f1', '2026-11-02T00:00:00.000Z');
      await entries.markDeleted('f3', '2026-11-02T00:00:00.000Z');
      expect(await listedCount('frank-id')).toEqual({ kept: 1, counted: 1 });
      await entries.markUndeleted('f1', '2026-11-03T00:00:00.000Z');
      expect(await listedCount('frank-id')).toEqual({ kept: 2, counted: 2 });
      // by hand: made private, moved to another account, removed
      await database.db.updateTable('indieweb_entry').set({ visibility: 'private' }).where('id', '=', 'f1').execute();
      expect(await listedCount('frank-id')).toEqual({ kept: 1, counted: 1 });
      await database.db.updateTable('indieweb_entry').set({ user_id: 'grace-id' }).where('id', '=', 'f2').execute();
      expect(await listedCount('frank-id')).toEqual({ kept: 0, counted: 0 });
      expect(await listedCount('grace-id')).toEqual({ kept: 1, counted: 1 });
      await database.db.deleteFrom('indieweb_entry').where('id', '=', 'f2').execute();
      expect(await listedCount('grace-id')).toEqual({ kept: 0, counted: 0 });
    });
  });

  describe(`migration 0018-entry-counts (${dialect})`, () => {
    it('counts the entries already stored, keeps counting, and goes down again (issue 31)', async () => {
      await withUnmigratedDatabase(dialect, async ({ handle, migrator }) => {
        expect((await migrator.migrateTo('0015-entry-search-text')).error).toBeUndefined();
        for (const [n, userId] of ['old-a', 'old-a', 'old-a', 'old-b'].entries())
          await (handle.db as unknown as Kysely<any>)
            .insertInto('indieweb_entry')
            .values({
              id: `o${n}`,
              user_id: userId,
              url: `${BASE}/old/${n}/`,
              path: `/old/${n}/`,
              type: '["h-entry"]',
              properties: '{}',
              post_status: 'published',
              visibility: 'public',
              published: '2026-01-01T00:00:00.000Z',
              created_at: '2026-01-01T00:00:00.000Z',
              updated_at: '2026-01-01T00:00:00.000Z',
              deleted_at: n === 1 ? '2026-01-02T00:00:00.000Z' : null,
              version: 1,
              slug_series: `/old/${n}`,
              slug_number: 1,
              search_text: '{}',
            })
            .execute();
        expect((await migrator.migrateTo('0018-entry-counts')).error).toBeUndefined();
        const entries = createEntriesRepository(handle.db);
        expect(await entries.countByUser('old-a')).toBe(2);
        expect(await entries.countByUser('old-b')).toBe(1);
        expect((await entries.statsOf('old-a')).version).toBe(3);
        // q=source's page is a range of the partial index of live entries, read in its order (no sort of the user's rows)
        const list = `select * from indieweb_entry where deleted_at is null and user_id = 'old-a' order by created_at desc, id desc limit 20`;
        if (dialect === 'sqlite') {
          const plan = (await sql.raw<{ detail: string }>(`explain query plan ${list}`).execute(handle.db)).rows.map((row) => row.detail);
          expect(plan.join('; ')).toMatch(/^SEARCH indieweb_entry USING INDEX indieweb_entry_user_live_created[^;]*$/);
        } else {
          // four rows: the planner would read the table; told not to, it must still need no sort
          const plan = await handle.db.connection().execute(async (connection) => {
            await sql`set enable_seqscan = off`.execute(connection);
            const rows = (await sql.raw<{ 'QUERY PLAN': string }>(`explain ${list}`).execute(connection)).rows;
            await sql`set enable_seqscan = on`.execute(connection);
            return rows.map((row) => row['QUERY PLAN']);
          });
          expect(plan.join('; ')).toMatch(/Index Scan Backward using indieweb_entry_user_live_created/);
          expect(plan.join('; ')).not.toMatch(/Sort/);
        }
        await entries.markUndeleted('o1', '2026-01-03T00:00:00.000Z');
        expect(await entries.countByUser('old-a')).toBe(3);
        expect((await migrator.migrateTo('0015-entry-search-text')).error).toBeUndefined();
        await expect(sql`select live from indieweb_entry_count`.execute(handle.db)).rejects.toThrow();
        // no trigger is left behind to write into the dropped table
        await (handle.db as unknown as Kysely<any>).updateTable('indieweb_entry').set({ deleted_at: null }).execute();
        expect((await migrator.migrateToLatest()).error).toBeUndefined();
        expect(await createEntriesRepository(handle.db).countByUser('old-a')).toBe(3);
      });
    });
  });
  describe(`migration 0019-entry-listed-count (${dialect})`, () => {
    it('counts the listed entries already stored, keeps counting, and goes down to 0018’s triggers again (issue 31)', async () => {
      await withUnmigratedDatabase(dialect, async ({ handle, migrator }) => {
        expect((await migrator.migrateTo('0018-entry-counts')).error).toBeUndefined();
        // through Kysely, as any writer of this older schema (the server's own insert writes migration 0022's column)
        const entries = createEntriesRepository(handle.db.withoutPlugins());
        const old = (id: string, properties: MicropubProperties = {}) =>
          entries.insert(entry({ id, userId: 'old-a', path: `/old/${id}/`, properties: { content: [id], ...properties } }));
        await old('o1');
        await old('o2', { 'post-status': ['draft'] });
        await old('o3', { visibility: ['unlisted'] });
        await old('o4');
        await entries.markDeleted('o4', '2026-11-02T00:00:00.000Z');
        expect((await migrator.migrateTo('0019-entry-listed-count')).error).toBeUndefined();
        expect(await entries.countPublished('old-a')).toBe(1);
        await old('o5');
        await entries.markUndeleted('o4', '2026-11-03T00:00:00.000Z');
        expect(await entries.countPublished('old-a')).toBe(3);
        expect(await entries.countByUser('old-a')).toBe(5);
        expect((await migrator.migrateTo('0018-entry-counts')).error).toBeUndefined();
        await expect(sql`select listed from indieweb_entry_count`.execute(handle.db)).rejects.toThrow();
        // 0018's triggers are back and still count
        await old('o6');
        await entries.markDeleted('o1', '2026-11-04T00:00:00.000Z');
        expect(await entries.countByUser('old-a')).toBe(5);
        expect((await migrator.migrateToLatest()).error).toBeUndefined();
        expect(await entries.countPublished('old-a')).toBe(3);
      });
    });
  });

  describe(`migration 0022-entry-search-pending (${dialect})`, () => {
    it('PostgreSQL: entries stored before are indexed, new ones of the server wait, the trigram index leaves those out, and down again; SQLite: unchanged', async () => {
      await withUnmigratedDatabase(dialect, async ({ handle, migrator }) => {
        expect((await migrator.migrateTo('0021-entry-search-sqlite')).error).toBeUndefined();
        await createEntriesRepository(handle.db.withoutPlugins()).insert(entry({ id: 'before', userId: 'u', path: '/before/' }));
        expect((await migrator.migrateTo('0022-entry-search-pending')).error).toBeUndefined();
        const entries = createEntriesRepository(handle.db);
        await entries.insert(entry({ id: 'after', userId: 'u', path: '/after/' }));
        if (dialect === 'sqlite') {
          // SQLite keeps its own account of what waits (migration 0021): nothing changes
          await expect(sql`select search_pending from indieweb_entry`.execute(handle.db)).rejects.toThrow();
          return;
        }
        const pending = await sql<{
          id: string;
          search_pending: boolean;
        }>`select id, search_pending from indieweb_entry order by id`.execute(handle.db);
        expect(pending.rows).toEqual([
          { id: 'after', search_pending: true },
          { id: 'before', search_pending: false },
        ]);
        const definition = async () =>
          (
            await sql<{ indexdef: string }>`select indexdef from pg_indexes
              where tablename = 'indieweb_entry' and indexname = 'indieweb_entry_search_trigram'`.execute(handle.db)
          ).rows[0]?.indexdef ?? '';
        expect(await definition()).toMatch(/WHERE \(\(deleted_at IS NULL\) AND \(NOT search_pending\)\)$/);
        expect((await entries.listByUserMatching('u', 'entry', { offset: 0, limit: null })).total).toBe(2);
        expect((await migrator.migrateTo('0021-entry-search-sqlite')).error).toBeUndefined();
        expect(await definition()).toMatch(/WHERE \(deleted_at IS NULL\)$/);
        await expect(sql`select search_pending from indieweb_entry`.execute(handle.db)).rejects.toThrow();
        expect((await migrator.migrateToLatest()).error).toBeUndefined();
        expect(await definition()).toMatch(/NOT search_pending/);
      });
    });
  });
}
