import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/databases.js';
import { buildTestApp, CookieJar, hiddenField } from '../helpers/app.js';
import {
  addAlice,
  CLIENT_ID,
  formBody,
  ME,
  obtainCode,
  PASSWORD,
  postToken,
  REDIRECT_URI,
  S256_CHALLENGE,
  VERIFIER,
} from '../helpers/indieauth.js';

for (const dialect of DIALECTS) {
  describe(`code exchange under concurrency on ${dialect}`, () => {
    it('ten parallel exchanges of one code yield exactly one token', async () => {
      const t = await buildTestApp({ dialect });
      try {
        const jar = await addAlice(t);
        const code = await obtainCode(t, jar, { code_challenge: S256_CHALLENGE, code_challenge_method: 'S256' });
        const responses = await Promise.all(
          Array.from({ length: 10 }, () =>
            postToken(t, {
              grant_type: 'authorization_code',
              code,
              client_id: CLIENT_ID,
              redirect_uri: REDIRECT_URI,
              code_verifier: VERIFIER,
            }),
          ),
        );
        const statuses = responses.map((r) => r.statusCode).sort();
        expect(statuses).toEqual([201, 400, 400, 400, 400, 400, 400, 400, 400, 400]);
        for (const response of responses.filter((r) => r.statusCode === 400))
          expect(formBody(response)).toEqual({ error: 'invalid_grant' });
        const count = await sql<{ n: number | string }>`select count(*) as n from indieweb_token`.execute(t.database.db);
        expect(Number(count.rows[0]?.n)).toBe(1);
      } finally {
        await t.close();
      }
    });
  });
}

describe('the whole IndieAuth flow over real HTTP, through the HTML forms', () => {
  it('signs in, approves, exchanges the code and uses the token', async () => {
    const t = await buildTestApp();
    try {
      await addAlice(t);
      const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
      const jar = new CookieJar();
      const get = async (url: string) => {
        const response = await fetch(url.startsWith('http://indiestack.test') ? url.replace('http://indiestack.test', address) : url, {
          redirect: 'manual',
          headers: { cookie: jar.header() },
        });
        jar.store(response.headers.getSetCookie());
        return response;
      };
      const post = async (url: string, fields: Record<string, string>) => {
        const response = await fetch(`${address}${url}`, {
          method: 'POST',
          redirect: 'manual',
          headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams(fields),
        });
        jar.store(response.headers.getSetCookie());
        return response;
      };

      const query = new URLSearchParams({
        response_type: 'code',
        client_id: CLIENT_ID,
        redirect_uri: REDIRECT_URI,
        state: 'xyz',
        me: ME,
        scope: 'create media',
        code_challenge: S256_CHALLENGE,
        code_challenge_method: 'S256',
      });
      const start = await get(`${address}/indieweb/auth/?${query.toString()}`);
      expect(start.status).toBe(302);
      const loginPage = await get(start.headers.get('location')!);
      const loginHtml = await loginPage.text();
      const signedIn = await post('/indieweb/login/', {
        _csrf: hiddenField(loginHtml, '_csrf'),
        return_to: hiddenField(loginHtml, 'return_to'),
        username: 'alice',
        password: PASSWORD,
      });
      expect(signedIn.status).toBe(303);
      const consent = await get(signedIn.headers.get('location')!);
      expect(consent.status).toBe(200);
      const consentHtml = await consent.text();
      expect(consentHtml).toContain('Sign in to app.example');
      const fields: Record<string, string> = { decision: 'approve' };
      for (const name of ['_csrf', 'client_id', 'redirect_uri', 'state', 'me', 'scope', 'code_challenge', 'code_challenge_method'])
        fields[name] = hiddenField(consentHtml, name);
      const approved = await post('/indieweb/auth/consent/', fields);
      expect(approved.status).toBe(302);
      const callback = new URL(approved.headers.get('location')!);
      expect(`${callback.origin}${callback.pathname}`).toBe(REDIRECT_URI);
      expect(callback.searchParams.get('state')).toBe('xyz');
      expect(callback.searchParams.get('iss')).toBe('http://indiestack.test/');

      const token = await fetch(`${address}/indieweb/token/`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code: callback.searchParams.get('code')!,
          client_id: CLIENT_ID,
          redirect_uri: REDIRECT_URI,
          code_verifier: VERIFIER,
        }),
      });
      expect(token.status).toBe(200);
      const issued = (await token.json()) as Record<string, unknown>;
      expect(issued).toMatchObject({ token_type: 'Bearer', scope: 'create media', me: ME, expires_in: 86400 });

      const verified = await fetch(`${address}/indieweb/token/`, { headers: { authorization: `Bearer ${String(issued.access_token)}` } });
      expect(verified.status).toBe(200);
      expect(Object.fromEntries(new URLSearchParams(await verified.text()))).toEqual({
        me: ME,
        client_id: CLIENT_ID,
        scope: 'create media',
      });
    } finally {
      await t.close();
    }
  });
});
