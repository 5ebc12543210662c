/**
 * Migration 0006: tokens issued before it (no grant) become grants of their
 * own, so revocation by grant reaches them; codes gain the grant column.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createTokensRepository } from '../../src/storage/repositories/tokens.js';
import { DIALECTS, withUnmigratedDatabase } from '../helpers/databases.js';

const NOW = '2026-01-01T00:00:00.000Z';

for (const dialect of DIALECTS) {
  describe(`migration 0006-code-grants (${dialect})`, () => {
    it('gives every older token a grant of its own, keeps grants that exist, and goes down again', async () => {
      await withUnmigratedDatabase(dialect, async ({ handle, migrator }) => {
        expect((await migrator.migrateTo('0005-grants')).error).toBeUndefined();
        const row = { user_id: 'u1', client_id: 'https://app.example/', me: 'https://alice.example/', scope: 'create', created_at: NOW };
        await handle.db
          .insertInto('indieweb_token')
          .values([
            { ...row, id: 'alone', token_hash: 'h1' },
            { ...row, id: 'granted', token_hash: 'h2', grant_id: 'g1' },
          ])
          .execute();

        expect((await migrator.migrateToLatest()).error).toBeUndefined();
        const grants = await handle.db.selectFrom('indieweb_token').select(['id', 'grant_id']).orderBy('id').execute();
        expect(grants).toEqual([
          { id: 'alone', grant_id: 'alone' },
          { id: 'granted', grant_id: 'g1' },
        ]);
        expect(await createTokensRepository(handle.db).revokeGrant('alone', NOW)).toBe(1);
        const codeColumns = await sql<{ grant_id: string | null }>`select grant_id from indieweb_auth_code`.execute(handle.db);
        expect(codeColumns.rows).toEqual([]);

        expect((await migrator.migrateTo('0005-grants')).error).toBeUndefined();
        await expect(sql`select grant_id from indieweb_auth_code`.execute(handle.db)).rejects.toThrow();
      });
    });
  });
}
