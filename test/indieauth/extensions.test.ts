import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, CookieJar, type TestApp } from '../helpers/app.js';
import { freePort } from '../helpers/global-setup.js';
import { addAlice, CLIENT_ID, decide, formBody, getAuthorization, authorizationParams, ME, obtainCode, postToken, REDIRECT_URI, S256_CHALLENGE, VERIFIER } from '../helpers/indieauth.js';

const JSON_ACCEPT = { accept: 'application/json' };

async function jsonToken(t: TestApp, fields: Record<string, string>) {
  return postToken(t, fields, JSON_ACCEPT);
}

describe('IndieAuth server metadata', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
    await addAlice(t);
  });
  afterAll(async () => {
    await t.close();
  });

  it('200 at /.well-known/oauth-authorization-server and /indieweb/metadata with every endpoint', async () => {
    for (const url of ['/.well-known/oauth-authorization-server', '/indieweb/metadata']) {
      const response = await t.app.inject({ method: 'GET', url });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({
        issuer: 'http://indiestack.test/',
        authorization_endpoint: 'http://indiestack.test/indieweb/auth/',
        token_endpoint: 'http://indiestack.test/indieweb/token/',
        token_endpoint_auth_methods_supported: ['none'],
        introspection_endpoint: 'http://indiestack.test/indieweb/token/introspect',
        revocation_endpoint: 'http://indiestack.test/indieweb/token/revoke',
        revocation_endpoint_auth_methods_supported: ['none'],
        userinfo_endpoint: 'http://indiestack.test/indieweb/userinfo',
        code_challenge_methods_supported: ['S256', 'plain'],
        scopes_supported: ['create', 'update', 'delete', 'undelete', 'media', 'profile', 'email'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        response_types_supported: ['code'],
        response_modes_supported: ['query'],
        authorization_response_iss_parameter_supported: true,
      });
    }
  });

  it('is advertised by the public profile page (Link header and <link>) and the iss of redirects equals the issuer', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/indieweb/profile/alice/' });
    expect(page.headers.link).toBe('<http://indiestack.test/.well-known/oauth-authorization-server>; rel="indieauth-metadata"');
    expect(page.body).toContain('<link rel="indieauth-metadata" href="http://indiestack.test/.well-known/oauth-authorization-server">');
    const jar = await addAlice(t);
    const consent = await getAuthorization(t, jar, authorizationParams());
    const redirect = await decide(t, jar, consent, 'approve');
    expect(new URL(redirect.headers.location as string).searchParams.get('iss')).toBe('http://indiestack.test/');
  });

  it.each(['token', 'id_token', ''])('400 invalid_request for response_type %j; code and absent are fine', async (responseType) => {
    const jar = await addAlice(t);
    expect((await getAuthorization(t, jar, authorizationParams({ response_type: responseType }))).statusCode).toBe(400);
    expect((await getAuthorization(t, jar, authorizationParams({ response_type: undefined }))).statusCode).toBe(200);
  });
});

describe('revocation, introspection, refresh tokens, profile', () => {
  let t: TestApp;
  let jar: CookieJar;
  beforeAll(async () => {
    t = await buildTestApp({ env: { INDIEWEB_INTROSPECTION_SECRET: 'resource-server-secret-of-enough-length', INDIEWEB_REFRESH_TOKEN_EXPIRES_IN: '3600' } });
    jar = await addAlice(t);
    const user = (await t.app.indieweb.users!.findByName('alice'))!;
    await t.app.indieweb.profiles.update({ id: user.id, name: 'alice', me: user.me, isActive: true }, { name: ['Alice'], url: [ME], photo: ['https://alice.example/me.jpg'], email: ['alice@alice.example'] });
  });
  afterAll(async () => {
    await t.close();
  });

  const verify = (token: string) => t.app.inject({ method: 'GET', url: '/indieweb/token/', headers: { authorization: `Bearer ${token}` } });
  const micropub = (token: string) => t.app.inject({ method: 'GET', url: '/indieweb/micropub/?q=config', headers: { authorization: `Bearer ${token}` } });

  async function grant(scope = 'create update') {
    const code = await obtainCode(t, jar, { scope, code_challenge: S256_CHALLENGE, code_challenge_method: 'S256' });
    const response = await jsonToken(t, { grant_type: 'authorization_code', code, client_id: CLIENT_ID, redirect_uri: REDIRECT_URI, code_verifier: VERIFIER });
    expect(response.statusCode).toBe(200);
    return response.json() as { access_token: string; refresh_token: string; scope: string; profile?: Record<string, string> };
  }

  it('200 JSON with a refresh token for a client that names the grant type and prefers JSON; none in the SPEC form answer', async () => {
    const issued = await grant();
    expect(issued.refresh_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const code = await obtainCode(t, jar);
    const form = await postToken(t, { grant_type: 'authorization_code', code, client_id: CLIENT_ID, redirect_uri: REDIRECT_URI });
    expect(Object.keys(formBody(form)).sort()).toEqual(['access_token', 'expires_in', 'me', 'scope']);
  });

  it('refreshing rotates: a new access and refresh token, the old refresh token then replayed revokes the whole grant', async () => {
    const first = await grant();
    const refreshed = await jsonToken(t, { grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: CLIENT_ID });
    expect(refreshed.statusCode).toBe(200);
    const second = refreshed.json() as { access_token: string; refresh_token: string; scope: string; token_type: string };
    expect(second).toMatchObject({ scope: 'create update', token_type: 'Bearer', me: ME });
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect((await micropub(second.access_token)).statusCode).toBe(200);

    const replay = await jsonToken(t, { grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: CLIENT_ID });
    expect(replay.statusCode).toBe(400);
    expect(replay.json()).toEqual({ error: 'invalid_grant' });
    expect((await micropub(first.access_token)).statusCode).toBe(401);
    expect((await micropub(second.access_token)).statusCode).toBe(401);
    const afterReplay = await jsonToken(t, { grant_type: 'refresh_token', refresh_token: second.refresh_token, client_id: CLIENT_ID });
    expect(afterReplay.statusCode).toBe(400);
  });

  it('a refresh may narrow the scope, never widen it', async () => {
    const first = await grant('create update media');
    const narrow = await jsonToken(t, { grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: CLIENT_ID, scope: 'media' });
    expect(narrow.json()).toMatchObject({ scope: 'media' });
    const wide = await jsonToken(t, { grant_type: 'refresh_token', refresh_token: (narrow.json() as { refresh_token: string }).refresh_token, client_id: CLIENT_ID, scope: 'media delete' });
    expect(wide.statusCode).toBe(400);
    expect(wide.json()).toEqual({ error: 'invalid_scope' });
  });

  it('the refresh grant answers JSON even to a client that does not ask for it', async () => {
    const first = await grant();
    const refreshed = await postToken(t, { grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: CLIENT_ID });
    expect(refreshed.statusCode).toBe(200);
    expect(refreshed.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(refreshed.json()).toMatchObject({ token_type: 'Bearer', scope: 'create update', me: ME });
    const refused = await postToken(t, { grant_type: 'refresh_token', refresh_token: 'nope', client_id: CLIENT_ID });
    expect(refused.statusCode).toBe(400);
    expect(refused.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(refused.json()).toEqual({ error: 'invalid_grant' });
  });

  it('400 invalid_scope for a refresh asking for an empty scope; the refresh token stays usable', async () => {
    const first = await grant();
    const empty = await jsonToken(t, { grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: CLIENT_ID, scope: '' });
    expect(empty.statusCode).toBe(400);
    expect(empty.json()).toEqual({ error: 'invalid_scope' });
    const again = await jsonToken(t, { grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: CLIENT_ID });
    expect(again.statusCode).toBe(200);
  });

  it('no refresh token for a code issued without scope', async () => {
    const code = await obtainCode(t, jar, { scope: undefined, code_challenge: S256_CHALLENGE, code_challenge_method: 'S256' });
    const response = await jsonToken(t, { grant_type: 'authorization_code', code, client_id: CLIENT_ID, redirect_uri: REDIRECT_URI, code_verifier: VERIFIER });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ scope: '' });
    expect(response.json()).not.toHaveProperty('refresh_token');
  });

  it('400 invalid_grant for an unknown or expired refresh token, or one of another client', async () => {
    const first = await grant();
    expect((await jsonToken(t, { grant_type: 'refresh_token', refresh_token: 'nope', client_id: CLIENT_ID })).json()).toEqual({ error: 'invalid_grant' });
    expect((await jsonToken(t, { grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: 'https://other.example/' })).json()).toEqual({ error: 'invalid_grant' });
    t.clock.advance(3601);
    expect((await jsonToken(t, { grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: CLIENT_ID })).json()).toEqual({ error: 'invalid_grant' });
  });

  it('200 from the revocation endpoint whether or not the token was valid; the token is then refused on Micropub and media', async () => {
    const issued = await grant();
    for (const token of [issued.access_token, 'not-a-token']) {
      const response = await t.app.inject({ method: 'POST', url: '/indieweb/token/revoke', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `token=${token}` });
      expect(response.statusCode).toBe(200);
    }
    expect((await micropub(issued.access_token)).statusCode).toBe(401);
    const media = await t.app.inject({ method: 'GET', url: '/indieweb/media/?q=source', headers: { authorization: `Bearer ${issued.access_token}` } });
    expect(media.statusCode).toBe(401);
  });

  it('400 invalid_request (JSON) from the revocation endpoint without a token; action=revoke without one is 400 too', async () => {
    for (const payload of ['', 'token=']) {
      const response = await t.app.inject({ method: 'POST', url: '/indieweb/token/revoke', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload });
      expect(response.statusCode).toBe(400);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(response.json()).toEqual({ error: 'invalid_request' });
    }
    expect((await postToken(t, { action: 'revoke' })).statusCode).toBe(400);
  });

  it('revoking a refresh token revokes its grant; action=revoke on the token endpoint works for older clients', async () => {
    const issued = await grant();
    await t.app.inject({ method: 'POST', url: '/indieweb/token/revoke', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `token=${issued.refresh_token}` });
    expect((await micropub(issued.access_token)).statusCode).toBe(401);
    const other = await grant();
    const legacy = await postToken(t, { action: 'revoke', token: other.access_token });
    expect(legacy.statusCode).toBe(200);
    expect((await verify(other.access_token)).statusCode).toBe(401);
  });

  describe('POST /indieweb/token/introspect', () => {
    const introspect = (caller: string | undefined, token: string) =>
      t.app.inject({
        method: 'POST',
        url: '/indieweb/token/introspect',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...(caller === undefined ? {} : { authorization: `Bearer ${caller}` }) },
        payload: `token=${encodeURIComponent(token)}`,
      });

    it('200 {active: true, me, client_id, scope, exp, iat} for the resource-server secret or a token of the same owner', async () => {
      const issued = await grant();
      const bySecret = await introspect('resource-server-secret-of-enough-length', issued.access_token);
      const body = bySecret.json() as Record<string, unknown>;
      expect(body).toMatchObject({ active: true, me: ME, client_id: CLIENT_ID, scope: 'create update' });
      expect(Number(body.exp) - Number(body.iat)).toBe(86_400);
      expect((await introspect(issued.access_token, issued.access_token)).json()).toMatchObject({ active: true });
    });

    it('200 {active: false} only, for unknown, revoked and expired tokens and for another owner', async () => {
      const issued = await grant();
      expect((await introspect('resource-server-secret-of-enough-length', 'unknown')).json()).toEqual({ active: false });
      const bob = await t.app.indieweb.users!.addUser({ name: 'bob', me: ['https://bob.example/'], password: 'bob password 1' });
      const { token: bobToken } = await t.app.indieweb.tokens.issue({ userId: bob.id, clientId: CLIENT_ID, me: 'https://bob.example/', scope: 'create', expiresIn: 3600 });
      expect((await introspect(bobToken, issued.access_token)).json()).toEqual({ active: false });
      await t.app.inject({ method: 'POST', url: '/indieweb/token/revoke', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `token=${issued.access_token}` });
      expect((await introspect('resource-server-secret-of-enough-length', issued.access_token)).json()).toEqual({ active: false });
    });

    it('401 JSON without an authorized caller; the header names invalid_token only when a credential was sent', async () => {
      const issued = await grant();
      const anonymous = await introspect(undefined, issued.access_token);
      expect(anonymous.statusCode).toBe(401);
      expect(anonymous.headers['www-authenticate']).toBe('Bearer');
      expect(anonymous.headers['content-type']).toBe('application/json; charset=utf-8');
      const wrong = await introspect('wrong-secret', issued.access_token);
      expect(wrong.statusCode).toBe(401);
      expect(wrong.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
      expect(wrong.json()).toEqual({ error: 'invalid_token' });
    });

    it('400 invalid_request (JSON) without a token, or with two', async () => {
      const secret = { authorization: 'Bearer resource-server-secret-of-enough-length', 'content-type': 'application/x-www-form-urlencoded' };
      for (const payload of ['', 'token=', 'token=a&token=b']) {
        const response = await t.app.inject({ method: 'POST', url: '/indieweb/token/introspect', headers: secret, payload });
        expect(response.statusCode).toBe(400);
        expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
        expect(response.json()).toEqual({ error: 'invalid_request' });
      }
    });
  });

  describe('profile and email scopes', () => {
    it('the JSON token answer carries profile (and email only with the email scope); userinfo answers the same', async () => {
      const withEmail = await grant('profile email');
      expect(withEmail.profile).toEqual({ name: 'Alice', url: ME, photo: 'https://alice.example/me.jpg', email: 'alice@alice.example' });
      const withoutEmail = await grant('profile');
      expect(withoutEmail.profile).toEqual({ name: 'Alice', url: ME, photo: 'https://alice.example/me.jpg' });
      expect((await grant('create')).profile).toBeUndefined();
      const info = await t.app.inject({ method: 'GET', url: '/indieweb/userinfo', headers: { authorization: `Bearer ${withEmail.access_token}` } });
      expect(info.json()).toEqual(withEmail.profile);
    });

    it('403 insufficient_scope from userinfo without the profile scope; 401 invalid_token for a bad token, 401 without one', async () => {
      const issued = await grant('create');
      const noScope = await t.app.inject({ method: 'GET', url: '/indieweb/userinfo', headers: { authorization: `Bearer ${issued.access_token}` } });
      expect(noScope.statusCode).toBe(403);
      expect(noScope.json()).toEqual({ error: 'insufficient_scope' });
      expect(noScope.headers['www-authenticate']).toBe('Bearer error="insufficient_scope", scope="profile"');
      const bad = await t.app.inject({ method: 'GET', url: '/indieweb/userinfo', headers: { authorization: 'Bearer not-a-token' } });
      expect(bad.statusCode).toBe(401);
      expect(bad.json()).toEqual({ error: 'invalid_token' });
      expect(bad.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
      const anonymous = await t.app.inject({ method: 'GET', url: '/indieweb/userinfo' });
      expect(anonymous.statusCode).toBe(401);
      expect(anonymous.headers['www-authenticate']).toBe('Bearer');
    });

    it('code verification answers profile in JSON for a profile-scoped code', async () => {
      const code = await obtainCode(t, jar, { scope: 'profile' });
      const response = await t.app.inject({
        method: 'POST',
        url: '/indieweb/auth/',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        payload: new URLSearchParams({ code, client_id: CLIENT_ID }).toString(),
      });
      expect(response.json()).toEqual({ me: ME, profile: { name: 'Alice', url: ME, photo: 'https://alice.example/me.jpg' } });
    });

    it('code verification refuses another grant_type (400 unsupported_grant_type) and leaves the code usable; authorization_code is fine', async () => {
      const code = await obtainCode(t, jar, { scope: 'profile' });
      const verify = (extra: Record<string, string>) =>
        t.app.inject({
          method: 'POST',
          url: '/indieweb/auth/',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: new URLSearchParams({ code, client_id: CLIENT_ID, ...extra }).toString(),
        });
      const bogus = await verify({ grant_type: 'bogus' });
      expect(bogus.statusCode).toBe(400);
      expect(formBody(bogus)).toEqual({ error: 'unsupported_grant_type' });
      const fine = await verify({ grant_type: 'authorization_code' });
      expect(fine.statusCode).toBe(200);
      expect(formBody(fine)).toEqual({ me: ME });
    });
  });
});

describe('interoperability with oauth4webapi', () => {
  it('discovers the server from its metadata and completes code + PKCE S256, refresh and revocation', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const t = await buildTestApp({ env: { INDIEWEB_BASE_URL: base } });
    try {
      const jar = await addAlice(t, { me: [`${base}/`] });
      await t.app.listen({ host: '127.0.0.1', port });
      const options = { [oauth.allowInsecureRequests]: true };
      const issuer = new URL(`${base}/`);
      const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { ...options, algorithm: 'oauth2' }));
      const client: oauth.Client = { client_id: CLIENT_ID };
      const verifier = oauth.generateRandomCodeVerifier();
      const challenge = await oauth.calculatePKCECodeChallenge(verifier);

      const consent = await getAuthorization(t, jar, authorizationParams({ me: `${base}/`, code_challenge: challenge, code_challenge_method: 'S256', scope: 'create profile', state: 'interop' }));
      const redirect = await decide(t, jar, consent, 'approve');
      const callback = oauth.validateAuthResponse(as, client, new URL(redirect.headers.location as string), 'interop');
      const tokenResponse = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), callback, REDIRECT_URI, verifier, options);
      const tokens = await oauth.processAuthorizationCodeResponse(as, client, tokenResponse);
      expect(tokens.token_type).toBe('bearer');
      expect(tokens.scope).toBe('create profile');
      expect(typeof tokens.refresh_token).toBe('string');

      const refreshed = await oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, options));
      expect(refreshed.access_token).not.toBe(tokens.access_token);

      await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, oauth.None(), refreshed.access_token, options));
      const after = await fetch(`${base}/indieweb/micropub/`, { headers: { authorization: `Bearer ${refreshed.access_token}` } });
      expect(after.status).toBe(401);
    } finally {
      await t.close();
    }
  });
});
