import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { isUniqueViolation } from '../../src/storage/errors.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { createTokensRepository } from '../../src/storage/repositories/tokens.js';
import { createAuthCodesRepository } from '../../src/storage/repositories/auth-codes.js';
import { createUsersRepository } from '../../src/storage/repositories/users.js';
import { DIALECTS, openTestDatabase, type TestDatabase } from '../helpers/databases.js';

const NOW = '2026-01-01T00:00:00.000Z';

for (const dialect of DIALECTS) {
  describe(`repositories on ${dialect}`, () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await openTestDatabase(dialect);
    });
    afterAll(async () => {
      await database.dispose();
    });

    it('migrating twice is a no-op', async () => {
      const { error, results } = await migrateToLatest(database.db);
      expect(error).toBeUndefined();
      expect(results).toEqual([]);
    });

    it('enforces foreign keys', async () => {
      await expect(
        database.db
          .insertInto('indieweb_user_profile_url')
          .values({ url_key: 'https://orphan.example/', user_id: 'nobody', url: 'https://orphan.example/', position: 0 })
          .execute(),
      ).rejects.toThrow();
    });

    describe('users', () => {
      it('stores a user with its profile URLs in order and finds it by name, id and URL key', async () => {
        const users = createUsersRepository(database.db);
        await users.insert({
          id: 'u1',
          name: 'alice',
          passwordHash: 'scrypt$x',
          profileUrls: [
            { url: 'https://Alice.example/', key: 'https://alice.example/' },
            { url: 'https://alice.example/about', key: 'https://alice.example/about' },
          ],
          now: NOW,
        });
        const byName = await users.findByName('alice');
        expect(byName).toMatchObject({
          id: 'u1',
          name: 'alice',
          me: ['https://Alice.example/', 'https://alice.example/about'],
          isActive: true,
          sessionEpoch: 0,
        });
        expect(await users.findById('u1')).toEqual(byName);
        expect((await users.findByProfileUrlKey('https://alice.example/about'))?.id).toBe('u1');
        expect(await users.findByProfileUrlKey('https://bob.example/')).toBeNull();
        expect(await users.findCredentials('alice')).toMatchObject({ passwordHash: 'scrypt$x' });
        expect(await users.findTakenProfileUrlKeys(['https://alice.example/', 'https://x.example/'])).toEqual(['https://alice.example/']);
      });

      it('rejects a second user with the same name, leaving nothing half-written', async () => {
        const users = createUsersRepository(database.db);
        const attempt = users.insert({
          id: 'u2',
          name: 'alice',
          passwordHash: 'h',
          profileUrls: [{ url: 'https://other.example/', key: 'https://other.example/' }],
          now: NOW,
        });
        const error = await attempt.then(
          () => null,
          (e: unknown) => e,
        );
        expect(isUniqueViolation(error)).toBe(true);
        expect(await users.findById('u2')).toBeNull();
        expect(await users.findTakenProfileUrlKeys(['https://other.example/'])).toEqual([]);
      });

      it('rejects a profile URL that belongs to another user, leaving no user row behind', async () => {
        const users = createUsersRepository(database.db);
        const error = await users
          .insert({
            id: 'u3',
            name: 'carol',
            passwordHash: 'h',
            profileUrls: [{ url: 'https://alice.example/', key: 'https://alice.example/' }],
            now: NOW,
          })
          .then(
            () => null,
            (e: unknown) => e,
          );
        expect(isUniqueViolation(error)).toBe(true);
        expect(await users.findByName('carol')).toBeNull();
      });

      it('disables, enables, changes password and bumps the session epoch', async () => {
        const users = createUsersRepository(database.db);
        expect(await users.setActive('u1', false, NOW)).toBe(true);
        // disabling ends every session (issue 23 #10); enabling does not touch the epoch
        expect(await users.findById('u1')).toMatchObject({ isActive: false, sessionEpoch: 1 });
        expect(await users.setActive('u1', true, NOW)).toBe(true);
        expect(await users.findById('u1')).toMatchObject({ isActive: true, sessionEpoch: 1 });
        expect(await users.setPasswordHash('u1', 'scrypt$new', NOW)).toBe(true);
        expect(await users.findCredentials('alice')).toMatchObject({ passwordHash: 'scrypt$new', user: { sessionEpoch: 2 } });
        expect(await users.bumpSessionEpoch('u1', NOW)).toBe(true);
        expect((await users.findById('u1'))?.sessionEpoch).toBe(3);
        expect(await users.setActive('missing', false, NOW)).toBe(false);
      });

      it('lists users by name', async () => {
        const users = createUsersRepository(database.db);
        await users.insert({
          id: 'u0',
          name: 'aaron',
          passwordHash: 'h',
          profileUrls: [{ url: 'https://aaron.example/', key: 'https://aaron.example/' }],
          now: NOW,
        });
        expect((await users.list()).map((u) => u.name)).toEqual(['aaron', 'alice']);
      });
    });

    describe('tokens', () => {
      it('stores only the hash and finds the token by it', async () => {
        const tokens = createTokensRepository(database.db);
        await tokens.insert({
          id: 't1',
          tokenHash: 'hash-1',
          userId: 'u1',
          clientId: 'https://app.example/',
          me: 'https://alice.example/',
          scope: 'create',
          createdAt: NOW,
          expiresAt: '2026-01-02T00:00:00.000Z',
        });
        await tokens.insert({
          id: 't2',
          tokenHash: 'hash-2',
          userId: 'u0',
          clientId: 'https://app.example/',
          me: 'https://aaron.example/',
          scope: '',
          createdAt: '2026-01-01T00:00:01.000Z',
          expiresAt: null,
        });
        expect(await tokens.findByHash('hash-1')).toEqual({
          id: 't1',
          userId: 'u1',
          clientId: 'https://app.example/',
          me: 'https://alice.example/',
          scope: 'create',
          createdAt: NOW,
          expiresAt: '2026-01-02T00:00:00.000Z',
          lastUsedAt: null,
          revokedAt: null,
          // a token issued alone is a grant of its own
          grantId: 't1',
        });
        expect(await tokens.findByHash('hash-3')).toBeNull();
        const columns = await sql<{ token_hash: string }>`select token_hash from indieweb_token order by id`.execute(database.db);
        expect(columns.rows.map((r) => r.token_hash)).toEqual(['hash-1', 'hash-2']);
      });

      it('refuses a second token with the same hash', async () => {
        const tokens = createTokensRepository(database.db);
        const error = await tokens
          .insert({
            id: 't9',
            tokenHash: 'hash-1',
            userId: 'u1',
            clientId: 'https://app.example/',
            me: 'https://alice.example/',
            scope: '',
            createdAt: NOW,
            expiresAt: null,
          })
          .then(
            () => null,
            (e: unknown) => e,
          );
        expect(isUniqueViolation(error)).toBe(true);
      });

      it('lists newest first, optionally for one user', async () => {
        const tokens = createTokensRepository(database.db);
        expect((await tokens.list()).map((t) => t.id)).toEqual(['t2', 't1']);
        expect((await tokens.list({ userId: 'u1' })).map((t) => t.id)).toEqual(['t1']);
      });

      it('revokes once and records the last use', async () => {
        const tokens = createTokensRepository(database.db);
        expect(await tokens.revoke('t1', NOW)).toBe(true);
        expect(await tokens.revoke('t1', NOW)).toBe(false);
        expect(await tokens.revoke('missing', NOW)).toBe(false);
        await tokens.touch('t2', '2026-01-01T01:00:00.000Z');
        expect(await tokens.findById('t1')).toMatchObject({ revokedAt: NOW });
        expect(await tokens.findById('t2')).toMatchObject({ lastUsedAt: '2026-01-01T01:00:00.000Z' });
      });
    });

    describe('auth codes', () => {
      const code = {
        userId: 'u1',
        clientId: 'https://app.example/',
        redirectUri: 'https://app.example/cb',
        me: 'https://alice.example/',
        scope: 'create',
        codeChallenge: null,
        codeChallengeMethod: null,
        createdAt: NOW,
        expiresAt: '2026-01-01T00:10:00.000Z',
      };

      it('stores a code by its hash and consumes it exactly once, even when asked in parallel', async () => {
        const codes = createAuthCodesRepository(database.db);
        await codes.insert('code-hash-1', code);
        expect(await codes.findByHash('code-hash-1')).toEqual({ ...code, consumedAt: null, grantId: null });
        const results = await Promise.all(Array.from({ length: 5 }, () => codes.consume('code-hash-1', '2026-01-01T00:01:00.000Z')));
        expect(results.filter(Boolean)).toHaveLength(1);
        expect(await codes.consume('code-hash-1', '2026-01-01T00:02:00.000Z')).toBe(false);
        expect((await codes.findByHash('code-hash-1'))?.consumedAt).toBe('2026-01-01T00:01:00.000Z');
      });

      it('looks up the codes asked for in one turn together, each caller getting its own (issue 31)', async () => {
        const codes = createAuthCodesRepository(database.db);
        // expiring later than the codes the next tests count
        const later = { ...code, expiresAt: '2026-01-01T01:00:00.000Z' };
        await codes.insert('code-hash-turn-a', later);
        await codes.insert('code-hash-turn-b', { ...later, scope: 'create media' });
        const found = await Promise.all(
          ['code-hash-turn-a', 'nobody', 'code-hash-turn-b', 'code-hash-turn-a'].map((hash) => codes.findByHashInTurn(hash)),
        );
        expect(found.map((record) => record?.scope ?? null)).toEqual(['create', null, 'create media', 'create']);
        // a code stored after an earlier turn's lookup is found by the next one
        await codes.insert('code-hash-turn-c', later);
        expect((await codes.findByHashInTurn('code-hash-turn-c'))?.userId).toBe('u1');
      });

      it('never consumes an expired code', async () => {
        const codes = createAuthCodesRepository(database.db);
        await codes.insert('code-hash-2', code);
        expect(await codes.consume('code-hash-2', '2026-01-01T00:10:00.000Z')).toBe(false);
        expect(await codes.consume('missing', NOW)).toBe(false);
      });

      it('deletes expired codes', async () => {
        const codes = createAuthCodesRepository(database.db);
        expect(await codes.deleteExpired('2026-01-01T00:10:00.001Z')).toBe(2);
        expect(await codes.findByHash('code-hash-2')).toBeNull();
      });
    });
  });
}
