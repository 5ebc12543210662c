/**
 * The statements below Kysely (storage/raw-access.ts) on SQLite: each text is
 * prepared once and used again — the server's fixed texts (the search
 * indexer's, the entry insert and update, the reads of rows-by-key.ts) are
 * more than the 16 the cache once held, and the ones past that were prepared
 * again on every call.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawAccessOf, type RawSqlite } from '../../src/storage/raw-access.js';
import { openTestDatabase, type TestDatabase } from '../helpers/databases.js';

describe('statements below Kysely (SQLite)', () => {
  let database: TestDatabase;
  let raw: RawSqlite;

  beforeAll(async () => {
    database = await openTestDatabase('sqlite');
    const access = rawAccessOf(database.db);
    if (access?.dialect !== 'sqlite') throw new Error('no raw SQLite access');
    raw = access;
  });
  afterAll(() => database.dispose());

  it('keeps every one of 40 distinct texts used in turn, and answers from each', () => {
    const texts = Array.from({ length: 40 }, (_, index) => `select ${index} as n`);
    const first = texts.map((text) => raw.statement(text));
    const again = texts.map((text) => raw.statement(text));
    expect(again.every((statement, index) => statement === first[index])).toBe(true);
    expect(again.map((statement) => (statement.get() as { n: number }).n)).toEqual(texts.map((_, index) => index));
  });
});
