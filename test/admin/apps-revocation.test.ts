/**
 * Issue 23 #2 on the admin Apps page: it lists grants (an app's access and
 * refresh tokens of one authorization), alive while any token of the grant
 * is, and "Revoke" / "Revoke all access of this app" end both kinds at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, hiddenField, type CookieJar, type TestApp } from '../helpers/app.js';
import { ADMIN, addUser, getAdmin, shownTime, submitAdmin } from '../helpers/admin.js';
import { DIALECTS } from '../helpers/databases.js';
import { expectEnded, expectWorking, jsonGrant, micropubWith, refresh } from '../helpers/grants.js';
import { addAlice, CLIENT_ID } from '../helpers/indieauth.js';

const ACCESS_LIFETIME_S = 86_400;
const REFRESH_LIFETIME_S = 30 * 86_400;

for (const dialect of DIALECTS) {
  describe(`admin Apps page: grants, revoked in both token tables (${dialect})`, () => {
    let t: TestApp;
    let jar: CookieJar;

    beforeAll(async () => {
      t = await buildTestApp({ dialect });
      jar = await addAlice(t);
    });
    afterAll(async () => {
      await t.close();
    });

    const clientSections = async () => (await getAdmin(t, jar, '/apps/')).body.split('<section class="client">').slice(1);
    const rowsOf = (section: string) => section.split('<tr>').slice(2);

    it('"Revoke all access of this app" ends the access token and the refresh token (the attack of issue 23 #2)', async () => {
      const grant = await jsonGrant(t, jar);
      await expectWorking(t, grant.access_token);
      const page = await getAdmin(t, jar, '/apps/');
      expect(page.body).toContain(
        `<input type="hidden" name="client_id" value="${CLIENT_ID}"><button type="submit">Revoke all access of this app</button>`,
      );
      const response = await submitAdmin(t, jar, '/apps/', '/apps/revoke-client', { client_id: CLIENT_ID });
      expect(response.statusCode).toBe(303);
      expect(response.headers.location).toBe(`http://indiestack.test${ADMIN}/apps/?done=revoked`);
      await expectEnded(t, grant);
      expect((await getAdmin(t, jar, '/apps/')).body).toContain('No app has access to your site.');
    });

    it('one row per grant, refreshes included; a grant whose access token expired is still listed while its refresh token lives, and its Revoke ends it', async () => {
      const issuedAt = t.clock.now().toISOString();
      const grant = await jsonGrant(t, jar);
      const refreshed = (await refresh(t, grant.refresh_token)).json() as { access_token: string; refresh_token: string };
      let sections = await clientSections();
      expect(sections).toHaveLength(1);
      expect(rowsOf(sections[0]!)).toHaveLength(1);
      const grantId = hiddenField(sections[0]!, 'grant_id');

      t.clock.advance(ACCESS_LIFETIME_S + 1);
      expect((await micropubWith(t, refreshed.access_token)).statusCode).toBe(401);
      sections = await clientSections();
      expect(sections).toHaveLength(1);
      const [row] = rowsOf(sections[0]!);
      const refreshExpires = new Date(Date.parse(issuedAt) + REFRESH_LIFETIME_S * 1000).toISOString();
      expect(row).toContain(
        `<td data-label="Scopes">create update</td><td data-label="Issued">${shownTime(issuedAt)}</td><td data-label="Expires">${shownTime(refreshExpires)}</td>`,
      );
      expect(row).toContain(`name="grant_id" value="${grantId}"`);

      expect((await submitAdmin(t, jar, '/apps/', '/apps/revoke', { grant_id: grantId })).statusCode).toBe(303);
      const refused = await refresh(t, refreshed.refresh_token);
      expect(refused.statusCode).toBe(400);
      expect(refused.json()).toEqual({ error: 'invalid_grant' });
      expect((await getAdmin(t, jar, '/apps/')).body).toContain('No app has access to your site.');
    });

    it('"Revoke" on one grant ends it, another grant of the same app keeps working', async () => {
      const ended = await jsonGrant(t, jar);
      const kept = await jsonGrant(t, jar);
      const endedId = (await t.app.indieweb.tokens.findByToken(ended.access_token))!.grantId;
      expect(rowsOf((await clientSections())[0]!)).toHaveLength(2);
      expect((await submitAdmin(t, jar, '/apps/', '/apps/revoke', { grant_id: endedId })).statusCode).toBe(303);
      await expectEnded(t, ended);
      expect((await micropubWith(t, kept.access_token)).statusCode).toBe(200);
      expect((await refresh(t, kept.refresh_token)).statusCode).toBe(200);
    });

    it("another user's grant id or client revokes nothing", async () => {
      const alices = await jsonGrant(t, jar);
      const alicesGrant = (await t.app.indieweb.tokens.findByToken(alices.access_token))!.grantId;
      const bob = await addUser(t, 'bob');
      expect((await submitAdmin(t, bob.jar, '/apps/', '/apps/revoke', { grant_id: alicesGrant })).statusCode).toBe(303);
      expect((await submitAdmin(t, bob.jar, '/apps/', '/apps/revoke-client', { client_id: CLIENT_ID })).statusCode).toBe(303);
      expect((await micropubWith(t, alices.access_token)).statusCode).toBe(200);
      expect((await refresh(t, alices.refresh_token)).statusCode).toBe(200);
    });
  });
}
