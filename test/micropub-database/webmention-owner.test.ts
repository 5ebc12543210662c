/**
 * Issue 18: a webmention whose target is an entry of the database handler
 * belongs to that entry's author (ownership asks the handler), even with
 * several accounts on the server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { CLIENT_ID } from '../helpers/indieauth.js';
import { createViaJson, HOST } from '../helpers/micropub.js';

describe('webmentions to entries of the database handler', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ env: { INDIEWEB_MICROPUB_HANDLER: 'database' } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('are owned by the author of the entry at the target', async () => {
    const users = t.app.indieweb.users!;
    // two accounts whose profiles live elsewhere: only the entry can say whose the mention is
    const alice = await users.addUser({ name: 'alice', me: ['https://alice.example/'], password: 'a long password' });
    const bob = await users.addUser({ name: 'bob', me: ['https://bob.example/'], password: 'a long password' });
    const owned: Record<string, string> = {};
    for (const user of [alice, bob]) {
      const { token } = await t.app.indieweb.tokens.issue({
        userId: user.id,
        clientId: CLIENT_ID,
        me: user.me[0]!,
        scope: 'create',
        expiresIn: 3600,
      });
      owned[user.id] = await createViaJson(t.app, token, { content: [`${user.name}'s post`], 'mp-slug': ['post'] });
    }
    for (const [userId, target] of Object.entries(owned)) {
      const received = await t.app.inject({
        method: 'POST',
        url: '/indieweb/webmention/',
        headers: { host: HOST, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ source: `https://source.example/reply-to-${userId}`, target }).toString(),
      });
      expect(received.statusCode).toBeLessThan(300);
      const row = await t.database.db
        .selectFrom('indieweb_webmention')
        .select('owner_id')
        .where('target', '=', target)
        .executeTakeFirstOrThrow();
      expect(row.owner_id).toBe(userId);
    }
    expect(Object.values(owned).map((url) => new URL(url).pathname.split('/')[1])).toEqual(['alice', 'bob']);
  });
});
