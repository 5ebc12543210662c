import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, CookieJar, form, hiddenField, type TestApp } from '../helpers/app.js';
import {
  addAlice,
  authorizationParams,
  authorizationUrl,
  CLIENT_ID,
  decide,
  formBody,
  getAuthorization,
  ME,
  obtainCode,
  PASSWORD,
  REDIRECT_URI,
  S256_CHALLENGE,
  VERIFIER,
} from '../helpers/indieauth.js';

async function countCodes(t: TestApp): Promise<number> {
  const result = await sql<{ n: number | string }>`select count(*) as n from indieweb_auth_code`.execute(t.database.db);
  return Number(result.rows[0]?.n);
}

describe('GET /indieweb/auth/', () => {
  let t: TestApp;
  let jar: CookieJar;
  beforeAll(async () => {
    t = await buildTestApp();
    jar = await addAlice(t);
  });
  afterAll(async () => {
    await t.close();
  });

  it.each(['client_id', 'redirect_uri', 'state', 'me'])('404 with an empty body when %s is missing', async (name) => {
    const response = await getAuthorization(t, jar, authorizationParams({ [name]: undefined }));
    expect(response.statusCode).toBe(404);
    expect(response.body).toBe('');
  });

  it.each([
    ['with a fragment', 'https://app.example/#x'],
    ['with userinfo', 'https://user:pw@app.example/'],
    ['with another scheme', 'ftp://app.example/'],
    ['that is not a URL', 'app'],
    ['that is relative', '/app'],
    ['with a javascript: scheme', 'javascript:alert(1)'],
  ])('400 text "invalid client_id" for a client_id %s', async (_label, clientId) => {
    const response = await getAuthorization(t, jar, authorizationParams({ client_id: clientId }));
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(response.body).toBe('invalid client_id');
  });

  it.each([
    ['with a fragment', 'https://app.example/callback#x'],
    ['with userinfo', 'https://u@app.example/callback'],
    ['with another scheme', 'custom-app://callback'],
    ['that is not a URL', 'callback'],
  ])('400 text naming the invalid redirect_uri for one %s', async (_label, redirectUri) => {
    const response = await getAuthorization(t, jar, authorizationParams({ redirect_uri: redirectUri }));
    expect(response.statusCode).toBe(400);
    expect(response.body).toBe('invalid redirect_uri');
  });

  it.each([
    ['42 characters', 'a'.repeat(42)],
    ['129 characters', 'a'.repeat(129)],
    ['a character outside the set', `${'a'.repeat(42)}+`],
    ['an empty value', ''],
  ])('400 invalid_request for a code_challenge of %s', async (_label, challenge) => {
    const response = await getAuthorization(t, jar, authorizationParams({ code_challenge: challenge, code_challenge_method: 'S256' }));
    expect(response.statusCode).toBe(400);
    expect(response.body).toBe('invalid_request');
  });

  it.each(['s256', 'SHA256', 'none', ''])('400 invalid_request for code_challenge_method %j', async (method) => {
    const response = await getAuthorization(t, jar, authorizationParams({ code_challenge: S256_CHALLENGE, code_challenge_method: method }));
    expect(response.statusCode).toBe(400);
    expect(response.body).toBe('invalid_request');
  });

  it('404 wins over a malformed client_id when a required parameter is missing', async () => {
    const response = await getAuthorization(t, jar, authorizationParams({ client_id: 'nope', state: undefined }));
    expect(response.statusCode).toBe(404);
  });

  it('302 to the login page when not signed in, then back into the flow with every parameter intact', async () => {
    const fresh = new CookieJar();
    const params = authorizationParams({ code_challenge: S256_CHALLENGE, code_challenge_method: 'S256', scope: 'create  media create' });
    const start = await getAuthorization(t, fresh, params);
    expect(start.statusCode).toBe(302);
    const login = new URL(start.headers.location as string);
    expect(`${login.origin}${login.pathname}`).toBe('http://indiestack.test/indieweb/login/');
    const returnTo = login.searchParams.get('return_to')!;
    const carried = new URL(returnTo, 'http://indiestack.test');
    expect(carried.pathname).toBe('/indieweb/auth/');
    for (const name of ['client_id', 'redirect_uri', 'state', 'me', 'code_challenge', 'code_challenge_method']) {
      expect(carried.searchParams.get(name)).toBe(params[name]);
    }
    expect(carried.searchParams.get('scope')).toBe('create media');

    const page = await t.app.inject({ method: 'GET', url: `${login.pathname}${login.search}`, headers: { cookie: fresh.header() } });
    fresh.storeFrom(page);
    const signedIn = await t.app.inject({
      method: 'POST',
      url: '/indieweb/login/',
      headers: { cookie: fresh.header(), 'content-type': 'application/x-www-form-urlencoded' },
      payload: form({
        _csrf: hiddenField(page.body, '_csrf'),
        return_to: hiddenField(page.body, 'return_to'),
        username: 'alice',
        password: PASSWORD,
      }),
    });
    expect(signedIn.statusCode).toBe(303);
    fresh.storeFrom(signedIn);
    const back = new URL(signedIn.headers.location as string);
    const consent = await t.app.inject({ method: 'GET', url: `${back.pathname}${back.search}`, headers: { cookie: fresh.header() } });
    expect(consent.statusCode).toBe(200);
    expect(hiddenField(consent.body, 'code_challenge')).toBe(S256_CHALLENGE);
    expect(hiddenField(consent.body, 'state')).toBe('state-123');
  });

  describe('the consent screen', () => {
    it('200 shows client_id, redirect_uri, me and the normalized scope, and cannot be framed', async () => {
      const response = await getAuthorization(t, jar, authorizationParams({ scope: ' update\tcreate update  media create ' }));
      expect(response.statusCode).toBe(200);
      expect(response.body).toContain(`<code>${CLIENT_ID}</code>`);
      expect(response.body).toContain(`<code>${REDIRECT_URI}</code>`);
      expect(response.body).toContain(`<code>${ME}</code>`);
      const listed = [...response.body.matchAll(/<li><code>([^<]+)<\/code>/g)].map((m) => m[1]);
      expect(listed).toEqual(['update', 'create', 'media']);
      expect(hiddenField(response.body, 'scope')).toBe('update create media');
      expect(response.headers['x-frame-options']).toBe('DENY');
      expect(response.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(response.headers['content-security-policy']).toContain("form-action 'self' https://app.example");
      expect(response.body).not.toContain('class="warning"');
    });

    it('400 plain text, no consent, for a redirect_uri on another host than the client_id that the (unreachable) client does not publish', async () => {
      const response = await getAuthorization(t, jar, authorizationParams({ redirect_uri: 'https://elsewhere.example/cb' }));
      expect(response.statusCode).toBe(400);
      expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(response.body).toMatch(/^invalid redirect_uri/);
      expect(response.body).not.toContain('Approve');
    });

    it('says so for an empty scope (sign-in only)', async () => {
      const response = await getAuthorization(t, jar, authorizationParams({ scope: undefined }));
      expect(response.body).toContain('Sign-in only');
    });

    it('403 says so and offers no approval when me is not one of the account profile URLs', async () => {
      const before = await countCodes(t);
      const response = await getAuthorization(t, jar, authorizationParams({ me: 'https://mallory.example/' }));
      expect(response.statusCode).toBe(403);
      expect(response.body).toContain('Not your profile');
      expect(response.body).not.toContain('value="approve"');
      const forced = await decide(t, jar, response, 'approve');
      expect(forced.statusCode).toBe(403);
      expect(forced.headers.location).toBeUndefined();
      expect(await countCodes(t)).toBe(before);
    });

    it('escapes every user-supplied value', async () => {
      const response = await getAuthorization(
        t,
        jar,
        authorizationParams({ state: '"><script>alert(1)</script>', scope: '<img src=x onerror=alert(1)>' }),
      );
      expect(response.statusCode).toBe(200);
      expect(response.body).not.toContain('<script>alert(1)</script>');
      expect(response.body).not.toContain('<img src=x');
      expect(response.body).toContain('&lt;img');
    });
  });
});

describe('POST /indieweb/auth/consent/', () => {
  let t: TestApp;
  let jar: CookieJar;
  beforeAll(async () => {
    t = await buildTestApp();
    jar = await addAlice(t, { me: ['https://Alice.example'] });
  });
  afterAll(async () => {
    await t.close();
  });

  it('302 to redirect_uri with code, state, me and iss merged into the existing query with a single "?"', async () => {
    const page = await getAuthorization(t, jar, authorizationParams({ redirect_uri: 'https://app.example/callback?from=app&x=1' }));
    const response = await decide(t, jar, page, 'approve');
    expect(response.statusCode).toBe(302);
    const location = response.headers.location as string;
    expect(location.startsWith('https://app.example/callback?from=app&x=1&')).toBe(true);
    expect(location.split('?')).toHaveLength(2);
    const url = new URL(location);
    expect(url.searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get('state')).toBe('state-123');
    // the stored me is the account's own spelling
    expect(url.searchParams.get('me')).toBe('https://Alice.example/');
    expect(url.searchParams.get('iss')).toBe('http://indiestack.test/');
  });

  it('302 replaces code, state, me or iss already in the redirect_uri, so the client finds only ours', async () => {
    const page = await getAuthorization(
      t,
      jar,
      authorizationParams({ redirect_uri: 'https://app.example/callback?code=old&state=old&keep=1&me=x&iss=y' }),
    );
    const response = await decide(t, jar, page, 'approve');
    expect(response.statusCode).toBe(302);
    const location = response.headers.location as string;
    expect(location.startsWith('https://app.example/callback?keep=1&code=')).toBe(true);
    const url = new URL(location);
    expect(url.searchParams.getAll('code')).toHaveLength(1);
    expect(url.searchParams.get('code')).not.toBe('old');
    expect(url.searchParams.getAll('state')).toEqual(['state-123']);
    expect(url.searchParams.getAll('me')).toEqual(['https://Alice.example/']);
    expect(url.searchParams.getAll('iss')).toEqual(['http://indiestack.test/']);
  });

  it('302 to redirect_uri with error=access_denied, state and iss on denial, merged the same way', async () => {
    const before = await countCodes(t);
    const page = await getAuthorization(t, jar, authorizationParams({ redirect_uri: 'https://app.example/callback?from=app' }));
    const response = await decide(t, jar, page, 'deny');
    expect(response.statusCode).toBe(302);
    expect(response.headers.location).toBe(
      'https://app.example/callback?from=app&error=access_denied&state=state-123&iss=http%3A%2F%2Findiestack.test%2F',
    );
    expect(await countCodes(t)).toBe(before);
  });

  it('stores the normalized scope and the PKCE values, and only a hash of the code', async () => {
    const page = await getAuthorization(t, jar, authorizationParams({ scope: 'media  create media', code_challenge: S256_CHALLENGE }));
    const response = await decide(t, jar, page, 'approve');
    const code = new URL(response.headers.location as string).searchParams.get('code')!;
    const rows = await t.database.db.selectFrom('indieweb_auth_code').selectAll().where('code_challenge', '=', S256_CHALLENGE).execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      scope: 'media create',
      code_challenge_method: 'plain',
      client_id: CLIENT_ID,
      redirect_uri: REDIRECT_URI,
    });
    expect(JSON.stringify(rows)).not.toContain(code);
  });

  it('403 and no code without a valid CSRF token', async () => {
    const before = await countCodes(t);
    const page = await getAuthorization(t, jar, authorizationParams());
    const response = await decide(t, jar, page, 'approve', { _csrf: 'forged.value' });
    expect(response.statusCode).toBe(403);
    expect(response.body).toContain('The form expired');
    expect(await countCodes(t)).toBe(before);
  });

  it('re-checks the parameters: a tampered client_id is 400 and issues nothing', async () => {
    const before = await countCodes(t);
    const page = await getAuthorization(t, jar, authorizationParams());
    const response = await decide(t, jar, page, 'approve', { client_id: 'https://app.example/#frag' });
    expect(response.statusCode).toBe(400);
    expect(response.body).toBe('invalid client_id');
    expect(await countCodes(t)).toBe(before);
  });

  it('400 invalid_request for a decision other than approve or deny', async () => {
    const page = await getAuthorization(t, jar, authorizationParams());
    const response = await decide(t, jar, page, 'approve', { decision: 'maybe' });
    expect(response.statusCode).toBe(400);
  });

  it('303 to the login page when the session is gone, keeping the request', async () => {
    const page = await getAuthorization(t, jar, authorizationParams());
    const stranger = new CookieJar();
    const response = await decide(t, stranger, page, 'approve');
    expect(response.statusCode).toBe(303);
    const login = new URL(response.headers.location as string);
    expect(login.pathname).toBe('/indieweb/login/');
    expect(login.searchParams.get('return_to')).toContain('/indieweb/auth/?client_id=');
  });

  it('405 with Allow for GET', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/indieweb/auth/consent/' });
    expect(response.statusCode).toBe(405);
    expect(response.headers.allow).toBe('POST');
  });
});

describe('POST /indieweb/auth/ (code verification)', () => {
  let t: TestApp;
  let jar: CookieJar;
  beforeAll(async () => {
    t = await buildTestApp();
    jar = await addAlice(t);
  });
  afterAll(async () => {
    await t.close();
  });

  const verify = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
    t.app.inject({
      method: 'POST',
      url: '/indieweb/auth/',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      payload: form(fields),
    });

  it('200 form-encoded me for a valid code and client_id; the code is then used up', async () => {
    const code = await obtainCode(t, jar, { scope: undefined });
    const response = await verify({ code, client_id: CLIENT_ID });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/x-www-form-urlencoded; charset=utf-8');
    expect(formBody(response)).toEqual({ me: ME });
    const again = await verify({ code, client_id: CLIENT_ID });
    expect(again.statusCode).toBe(400);
    expect(formBody(again)).toEqual({ error: 'invalid_grant' });
  });

  it('200 JSON {me} when the client prefers JSON', async () => {
    const code = await obtainCode(t, jar);
    const response = await verify({ code, client_id: CLIENT_ID, redirect_uri: REDIRECT_URI }, { accept: 'application/json' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ me: ME });
  });

  it('400 invalid_grant for an unknown code', async () => {
    const response = await verify({ code: 'not-a-code', client_id: CLIENT_ID });
    expect(response.statusCode).toBe(400);
    expect(formBody(response)).toEqual({ error: 'invalid_grant' });
  });

  it('400 invalid_grant for an expired code', async () => {
    const code = await obtainCode(t, jar);
    t.clock.advance(600);
    const response = await verify({ code, client_id: CLIENT_ID });
    expect(formBody(response)).toEqual({ error: 'invalid_grant' });
  });

  it('400 invalid_grant when the client_id does not match the code', async () => {
    const code = await obtainCode(t, jar);
    const response = await verify({ code, client_id: 'https://other.example/' });
    expect(formBody(response)).toEqual({ error: 'invalid_grant' });
  });

  it('400 invalid_grant for a PKCE code with a wrong verifier, 200 with the right one', async () => {
    const code = await obtainCode(t, jar, { code_challenge: S256_CHALLENGE, code_challenge_method: 'S256' });
    expect(formBody(await verify({ code, client_id: CLIENT_ID, code_verifier: `${VERIFIER.slice(0, -1)}x` }))).toEqual({
      error: 'invalid_grant',
    });
    expect(formBody(await verify({ code, client_id: CLIENT_ID, code_verifier: VERIFIER }))).toEqual({ me: ME });
  });

  it('400 invalid_request when code or client_id is missing', async () => {
    expect(formBody(await verify({ client_id: CLIENT_ID }))).toEqual({ error: 'invalid_request' });
    expect(formBody(await verify({ code: 'x' }))).toEqual({ error: 'invalid_request' });
  });
});

describe('the authorization endpoint with a client policy', () => {
  it('400 invalid_client at GET and at the consent submission when the allow-list refuses the client', async () => {
    const t = await buildTestApp({ env: { INDIEWEB_ALLOWED_CLIENT_IDS: 'https://allowed.example/, https://app.example/' } });
    try {
      const jar = await addAlice(t);
      const refused = await getAuthorization(t, jar, authorizationParams({ client_id: 'https://other.example/' }));
      expect(refused.statusCode).toBe(400);
      expect(refused.body).toBe('invalid_client');

      const page = await getAuthorization(t, jar, authorizationParams());
      expect(page.statusCode).toBe(200);
      const tampered = await decide(t, jar, page, 'approve', { client_id: 'https://other.example/' });
      expect(tampered.statusCode).toBe(400);
      expect(tampered.body).toBe('invalid_client');
      expect(await countCodes(t)).toBe(0);
    } finally {
      await t.close();
    }
  });
});

describe('the authorization endpoint with a client validator module', () => {
  // the validator refuses while the flag is set: a client can be allowed at one step and refused at the next
  const dir = mkdtempSync(path.join(os.tmpdir(), 'indiestack-validator-'));
  const validator = path.join(dir, 'validator.mjs');
  writeFileSync(validator, 'export default (clientId) => !globalThis.__indiestackRefuse?.has(clientId);\n');
  const refusing = new Set<string>();
  (globalThis as { __indiestackRefuse?: Set<string> }).__indiestackRefuse = refusing;
  let t: TestApp;
  let jar: CookieJar;
  beforeAll(async () => {
    t = await buildTestApp({ env: { INDIEWEB_CLIENT_ID_VALIDATOR: validator } });
    jar = await addAlice(t);
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('400 invalid_client at GET, at the consent submission and at code verification once the validator refuses the client', async () => {
    refusing.clear();
    const page = await getAuthorization(t, jar, authorizationParams());
    expect(page.statusCode).toBe(200);
    const code = await obtainCode(t, jar);

    refusing.add(CLIENT_ID);
    const refused = await getAuthorization(t, jar, authorizationParams());
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toBe('invalid_client');
    const before = await countCodes(t);
    const consent = await decide(t, jar, page, 'approve');
    expect(consent.statusCode).toBe(400);
    expect(consent.body).toBe('invalid_client');
    expect(await countCodes(t)).toBe(before);
    const verification = await t.app.inject({
      method: 'POST',
      url: '/indieweb/auth/',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: form({ code, client_id: CLIENT_ID }),
    });
    expect(verification.statusCode).toBe(400);
    expect(formBody(verification)).toEqual({ error: 'invalid_client' });

    refusing.clear();
    const allowed = await t.app.inject({
      method: 'POST',
      url: '/indieweb/auth/',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: form({ code, client_id: CLIENT_ID }),
    });
    expect(formBody(allowed)).toEqual({ me: ME });
  });
});

describe('GET /indieweb/auth/ with bad input', () => {
  let t: TestApp;
  let jar: CookieJar;
  beforeAll(async () => {
    t = await buildTestApp();
    jar = await addAlice(t);
  });
  afterAll(async () => {
    await t.close();
  });

  it.each([
    ['a repeated state', `${authorizationUrl(authorizationParams())}&state=again`],
    ['a NUL byte in client_id', authorizationUrl(authorizationParams({ client_id: 'https://app.example/\u0000' }))],
    ['CR/LF in redirect_uri', authorizationUrl(authorizationParams({ redirect_uri: 'https://app.example/cb\r\nSet-Cookie: x=y' }))],
    ['invalid UTF-8 in me', `${authorizationUrl(authorizationParams({ me: undefined }))}&me=%FF%FE`],
  ])('4xx, never 500, for %s', async (_label, url) => {
    const response = await t.app.inject({ method: 'GET', url, headers: { cookie: jar.header() } });
    expect(response.statusCode).toBeGreaterThanOrEqual(400);
    expect(response.statusCode).toBeLessThan(500);
  });

  it('keeps CR/LF in state out of the Location header', async () => {
    const page = await getAuthorization(t, jar, authorizationParams({ state: 'a\r\nSet-Cookie: evil=1' }));
    expect(page.statusCode).toBe(200);
    const response = await decide(t, jar, page, 'deny');
    expect(response.statusCode).toBe(302);
    expect(response.headers.location).toBe(
      'https://app.example/callback?error=access_denied&state=a%0D%0ASet-Cookie%3A+evil%3D1&iss=http%3A%2F%2Findiestack.test%2F',
    );
    expect(response.headers['set-cookie'] ?? '').not.toContain('evil');
  });

  it('4xx for a 100 KB state and nothing stored', async () => {
    const response = await t.app.inject({
      method: 'GET',
      url: authorizationUrl(authorizationParams({ state: 'x'.repeat(100_000) })),
      headers: { cookie: jar.header() },
    });
    expect(response.statusCode).toBe(400);
    expect(response.body).toBe('invalid_request');
    expect(await countCodes(t)).toBe(0);
  });

  it('405 with Allow for PUT and DELETE', async () => {
    for (const method of ['PUT', 'DELETE'] as const) {
      const response = await t.app.inject({ method, url: '/indieweb/auth/' });
      expect(response.statusCode).toBe(405);
      expect(response.headers.allow).toBe('GET, HEAD, POST');
    }
  });
});
