/**
 * Issue 23 "what held up": behaviours the security review tried and found
 * sound, pinned here where no other test already does, so they stay that
 * way — on SQLite and PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { issueToken } from '../helpers/admin.js';
import { DIALECTS } from '../helpers/databases.js';
import { addAlice } from '../helpers/indieauth.js';

for (const dialect of DIALECTS) {
  describe(`what held up in the security review, on ${dialect}`, () => {
    let t: TestApp;
    let token: string;

    beforeAll(async () => {
      t = await buildTestApp({ dialect });
      await addAlice(t);
      const alice = await t.app.indieweb.users!.findByName('alice');
      token = (await issueToken(t, { id: alice!.id, name: 'alice', me: alice!.me, isActive: true }, { scope: 'create media' })).token;
    });
    afterAll(async () => t.close());

    it('a token in the query string is never accepted (Micropub and media answer 401)', async () => {
      const micropub = await t.app.inject({ method: 'GET', url: `/indieweb/micropub/?q=config&access_token=${token}` });
      expect(micropub.statusCode).toBe(401);
      const media = await t.app.inject({ method: 'GET', url: `/indieweb/media/?q=source&access_token=${token}` });
      expect(media.statusCode).toBe(401);
      // the same token in the header works, so the refusal is about where it was sent
      const header = await t.app.inject({
        method: 'GET',
        url: '/indieweb/micropub/?q=config',
        headers: { authorization: `Bearer ${token}` },
      });
      expect(header.statusCode).toBe(200);
    });

    it('X-Forwarded-* headers are ignored by default: advertised URLs keep the configured base URL', async () => {
      const forwarded = { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.9' };
      const metadata = await t.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server', headers: forwarded });
      expect(metadata.statusCode).toBe(200);
      expect(JSON.stringify(metadata.json())).not.toContain('evil.example');
      expect(metadata.json().issuer).toBe('http://indiestack.test/');
      const mention = await t.app.inject({
        method: 'POST',
        url: '/indieweb/webmention/',
        headers: { ...forwarded, 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'source=https%3A%2F%2Fsource.example%2Fa&target=http%3A%2F%2Findiestack.test%2Findieweb%2F',
      });
      expect(mention.statusCode).toBe(201);
      expect(mention.headers.location).toMatch(/^http:\/\/indiestack\.test\/indieweb\/webmention\//);
    });
  });
}
