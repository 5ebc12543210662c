/**
 * Issue 18: when the database the database handler stores entries in cannot
 * answer, Micropub answers 503 with Retry-After, as every other surface of
 * indiestack does, not a 500.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabaseHandler } from '../../src/content/handlers/database/handler.js';
import { createDatabase, type DatabaseHandle } from '../../src/storage/connect.js';
import { createEntriesRepository } from '../../src/storage/repositories/entries.js';
import { BASE_URL, micropubGet, mountedApp, postForm, type MicropubTestApp } from '../helpers/micropub.js';
import { freePort } from '../helpers/net.js';

describe('the database handler with its PostgreSQL unreachable', () => {
  let t: MicropubTestApp;
  let gone: DatabaseHandle;
  beforeAll(async () => {
    // nothing listens on this port: every query is refused
    gone = createDatabase(
      { kind: 'postgres', url: `postgres://nobody:secret@127.0.0.1:${await freePort()}/entries` },
      { timeoutSeconds: 2 },
    );
    t = await mountedApp({ handler: createDatabaseHandler({ baseUrl: BASE_URL, entries: createEntriesRepository(gone.db) }) });
  });
  afterAll(async () => {
    await t.close();
    await gone.close();
  });

  it('503 with Retry-After for create, source and list; nothing leaks', async () => {
    const token = await t.token('create update');
    for (const response of [
      await postForm(t.app, token, { h: 'entry', content: 'nowhere to go' }),
      await micropubGet(t.app, token, { q: 'source', url: `${BASE_URL}/alice/2026/11/x/` }),
      await micropubGet(t.app, token, { q: 'source' }),
    ]) {
      expect(response.statusCode).toBe(503);
      expect(response.headers['retry-after']).toMatch(/^\d+$/);
      expect(response.body).not.toMatch(/ECONNREFUSED|secret|postgres/i);
    }
    // the server itself is fine
    expect((await micropubGet(t.app, token, { q: 'config' })).statusCode).toBe(200);
  });
});
