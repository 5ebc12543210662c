import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabaseHandler } from '../../src/content/handlers/database/handler.js';
import { createEntriesRepository } from '../../src/storage/repositories/entries.js';
import { describeMicropubHandlerContract } from '../../src/testing/micropub-contract.js';
import { DIALECTS, openTestDatabase, type TestDatabase } from '../helpers/databases.js';

// indiestack/testing's conformance suite against the database handler, on a SQLite file and a real PostgreSQL;
// the suite wants a fresh handler per test: each starts on an empty entries table
for (const dialect of DIALECTS) {
  describe(`database handler on ${dialect}`, () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await openTestDatabase(dialect);
    });
    afterAll(async () => {
      await database.dispose();
    });
    async function freshHandler() {
      await database.db.deleteFrom('indieweb_entry').execute();
      return createDatabaseHandler({ baseUrl: 'https://id.example', entries: createEntriesRepository(database.db) });
    }
    describeMicropubHandlerContract(`database handler (${dialect})`, freshHandler, { describe, it, expect });
  });
}
