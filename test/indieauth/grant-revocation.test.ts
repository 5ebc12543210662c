/**
 * Issue 23 #2 and #12: revocation works by grant, in both token tables. A
 * client that completed the code flow with `Accept: application/json` holds
 * an access token and a refresh token; whichever way the grant is ended (the
 * revocation endpoint with either token, `indiestack token revoke`, a replay
 * of its code) the refresh grant then fails and the old access token gets 401
 * on Micropub, on the very next request (the SQLite validation cache
 * included: every access token is used twice first, so it is remembered).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type CookieJar, type TestApp } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
import { DIALECTS } from '../helpers/databases.js';
import { expectEnded, expectWorking, jsonGrant, micropubWith, redeemJson, refresh, revokeAtEndpoint } from '../helpers/grants.js';
import { addAlice, CLIENT_ID, formBody, obtainCode, postToken, REDIRECT_URI } from '../helpers/indieauth.js';

for (const dialect of DIALECTS) {
  describe(`revoking a grant ends its access and refresh tokens (${dialect})`, () => {
    let t: TestApp;
    let jar: CookieJar;
    let cwd: string;
    const cli = (args: string[]) => runCli(args, { cwd, env: { INDIEWEB_DATABASE_URL: t.database.url } });

    beforeAll(async () => {
      t = await buildTestApp({ dialect });
      jar = await addAlice(t);
      cwd = mkdtempSync(path.join(os.tmpdir(), 'indiestack-grants-'));
    });
    afterAll(async () => {
      await t.close();
      rmSync(cwd, { recursive: true, force: true });
    });

    it('the revocation endpoint, given the access token, revokes the refresh token of its grant too', async () => {
      const grant = await jsonGrant(t, jar);
      await expectWorking(t, grant.access_token);
      expect((await revokeAtEndpoint(t, grant.access_token)).statusCode).toBe(200);
      await expectEnded(t, grant);
    });

    it('the revocation endpoint, given the refresh token, revokes every access token of its grant, refreshed ones included', async () => {
      const grant = await jsonGrant(t, jar);
      const refreshed = (await refresh(t, grant.refresh_token)).json() as { access_token: string; refresh_token: string };
      await expectWorking(t, grant.access_token);
      await expectWorking(t, refreshed.access_token);
      expect((await revokeAtEndpoint(t, refreshed.refresh_token)).statusCode).toBe(200);
      expect((await micropubWith(t, grant.access_token)).statusCode).toBe(401);
      await expectEnded(t, refreshed);
    });

    it('`indiestack token revoke <access token id>` revokes the whole grant; `token list --grants` shows it until then', async () => {
      const grant = await jsonGrant(t, jar);
      await expectWorking(t, grant.access_token);
      const record = await t.app.indieweb.tokens.findByToken(grant.access_token);
      expect(record).not.toBeNull();
      const listed = await cli(['token', 'list', '--grants', '--user', 'alice']);
      expect(listed.code).toBe(0);
      expect(listed.stdout.split('\n')[0]).toMatch(/^GRANT\s+USER\s+CLIENT\s+SCOPE\s+ISSUED\s+EXPIRES\s+LAST USED\s+REFRESH$/);
      expect(listed.stdout.split('\n').find((line) => line.startsWith(record!.grantId))).toMatch(/\syes$/);

      const revoked = await cli(['token', 'revoke', record!.id]);
      expect(revoked).toMatchObject({ code: 0, stdout: `revoked token ${record!.id}\n` });
      await expectEnded(t, grant);
      expect((await cli(['token', 'list', '--grants'])).stdout).not.toContain(record!.grantId);
    });

    it('`indiestack token revoke <grant id>` works for a grant whose access tokens are all gone', async () => {
      const grant = await jsonGrant(t, jar);
      const { grantId } = (await t.app.indieweb.tokens.findByToken(grant.access_token))!;
      const revoked = await cli(['token', 'revoke', grantId]);
      expect(revoked.code).toBe(0);
      await expectEnded(t, grant);
    });

    it('a replayed code (issue 23 #12): invalid_grant as before, and the grant issued from it is revoked', async () => {
      const grant = await jsonGrant(t, jar);
      await expectWorking(t, grant.access_token);
      const replay = await redeemJson(t, grant.code);
      expect(replay.statusCode).toBe(400);
      expect(replay.json()).toEqual({ error: 'invalid_grant' });
      await expectEnded(t, grant);
    });

    it('a replayed code in the SPEC form flow (no PKCE, no refresh token): the first access token gets 401 on Micropub', async () => {
      const code = await obtainCode(t, jar);
      const first = await postToken(t, { code, client_id: CLIENT_ID, redirect_uri: REDIRECT_URI });
      expect(first.statusCode).toBe(201);
      const token = formBody(first).access_token!;
      await expectWorking(t, token);
      const replay = await postToken(t, { code, client_id: CLIENT_ID });
      expect(replay.statusCode).toBe(400);
      expect(formBody(replay)).toEqual({ error: 'invalid_grant' });
      expect((await micropubWith(t, token)).statusCode).toBe(401);
    });

    it('a code redeemed at the token endpoint and replayed at the code-verification POST revokes the grant too', async () => {
      const grant = await jsonGrant(t, jar);
      await expectWorking(t, grant.access_token);
      const replay = await t.app.inject({
        method: 'POST',
        url: '/indieweb/auth/',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ code: grant.code, client_id: CLIENT_ID }).toString(),
      });
      expect(replay.statusCode).toBe(400);
      expect(formBody(replay)).toEqual({ error: 'invalid_grant' });
      await expectEnded(t, grant);
    });

    it('a refresh racing the revocation of its grant leaves nothing usable (20 races)', async () => {
      for (let round = 0; round < 20; round++) {
        const grant = await jsonGrant(t, jar);
        const [refreshed] = await Promise.all([refresh(t, grant.refresh_token), revokeAtEndpoint(t, grant.access_token)]);
        await expectEnded(t, grant);
        if (refreshed.statusCode === 200) await expectEnded(t, refreshed.json() as { access_token: string; refresh_token: string });
        else expect(refreshed.json()).toEqual({ error: 'invalid_grant' });
      }
    });

    it('revoking one grant leaves another grant of the same app working', async () => {
      const ended = await jsonGrant(t, jar);
      const kept = await jsonGrant(t, jar);
      await revokeAtEndpoint(t, ended.access_token);
      await expectEnded(t, ended);
      await expectWorking(t, kept.access_token);
      expect((await refresh(t, kept.refresh_token)).statusCode).toBe(200);
    });
  });
}
