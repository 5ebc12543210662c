/**
 * Migration 0007: webmentions gain an owner and a target host. Mentions
 * received before it get theirs from the server, in the background, once it
 * is ready; until then they belong to nobody.
 */
import { describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config/env.js';
import { createManualClock } from '../../src/core/clock.js';
import { profileUrlKey } from '../../src/core/url.js';
import { createServer } from '../../src/app/server.js';
import { createUsersRepository } from '../../src/storage/repositories/users.js';
import { TEST_SECRET } from '../helpers/app.js';
import { DIALECTS, withUnmigratedDatabase } from '../helpers/databases.js';
import { SITE } from '../helpers/webmention.js';

const NOW = '2026-01-01T00:00:00.000Z';

for (const dialect of DIALECTS) {
  describe(`migration 0007-webmention-owner (${dialect})`, () => {
    it('older mentions get their owner and target host once the server is ready; the migration goes down again', async () => {
      await withUnmigratedDatabase(dialect, async ({ handle, migrator, fresh }) => {
        expect((await migrator.migrateTo('0006-code-grants')).error).toBeUndefined();
        const users = createUsersRepository(handle.db);
        for (const name of ['alice', 'bob']) {
          const me = `https://${name}.example/`;
          await users.insert({
            id: `id-${name}`,
            name,
            passwordHash: 'not-used',
            profileUrls: [{ url: me, key: profileUrlKey(me)! }],
            now: NOW,
          });
        }
        const row = { status: 'pending', created_at: NOW, updated_at: NOW };
        await handle.db
          .insertInto('indieweb_webmention')
          .values([
            {
              ...row,
              id: 'm-alice',
              source: 'https://a.example/1',
              target: 'https://WWW.Alice.example/post',
              target_key: 'https://alice.example/post',
            },
            { ...row, id: 'm-bob', source: 'https://a.example/2', target: 'https://bob.example/', target_key: 'https://bob.example/' },
            { ...row, id: 'm-nobody', source: 'https://a.example/3', target: `${SITE}/about`, target_key: `${SITE}/about` },
          ])
          .execute();

        expect((await migrator.migrateToLatest()).error).toBeUndefined();
        const owners = () => handle.db.selectFrom('indieweb_webmention').select(['id', 'owner_id', 'target_host']).orderBy('id').execute();
        expect(await owners()).toEqual([
          { id: 'm-alice', owner_id: null, target_host: null },
          { id: 'm-bob', owner_id: null, target_host: null },
          { id: 'm-nobody', owner_id: null, target_host: null },
        ]);

        const config = loadConfig({ env: { INDIEWEB_BASE_URL: SITE, INDIEWEB_SECRET: TEST_SECRET, INDIEWEB_DATABASE_URL: fresh.url } });
        const { app } = await createServer({ config, database: handle, clock: createManualClock(NOW), logger: false, worker: false });
        await app.ready();
        try {
          await vi.waitFor(async () => expect((await owners()).every((mention) => mention.target_host !== null)).toBe(true), {
            timeout: 10_000,
            interval: 20,
          });
          expect(await owners()).toEqual([
            { id: 'm-alice', owner_id: 'id-alice', target_host: 'alice.example' },
            { id: 'm-bob', owner_id: 'id-bob', target_host: 'bob.example' },
            { id: 'm-nobody', owner_id: null, target_host: 'indiestack.test' },
          ]);
          expect(await app.indieweb.webmention.assignMissingOwners()).toBe(0);
        } finally {
          await app.close();
        }

        expect((await migrator.migrateTo('0006-code-grants')).error).toBeUndefined();
        await expect(handle.db.selectFrom('indieweb_webmention').select('owner_id').execute()).rejects.toThrow();
      });
    });
  });
}
