import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, CookieJar, type TestApp } from '../helpers/app.js';
import { freePort } from '../helpers/global-setup.js';
import {
  addAlice,
  CLIENT_ID,
  decide,
  formBody,
  getAuthorization,
  authorizationParams,
  ME,
  obtainCode,
  postToken,
  REDIRECT_URI,
  S256_CHALLENGE,
  VERIFIER,
} from '../helpers/indieauth.js';

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
    t = await buildTestApp({
      env: { INDIEWEB_INTROSPECTION_SECRET: 'resource-server-secret-of-enough-length', INDIEWEB_REFRESH_TOKEN_EXPIRES_IN: '3600' },
    });
    jar = await addAlice(t);
    const user = (await t.app.indieweb.users!.findByName('alice'))!;
    await t.app.indieweb.profiles.update(
      { id: user.id, name: 'alice', me: user.me, isActive: true },
      { name: ['Alice'], url: [ME], photo: ['https://alice.example/me.jpg'], email: ['alice@alice.example'] },
    );
  });
  afterAll(async () => {
    await t.close();
  });

  const verify = (token: string) => t.app.inject({ method: 'GET', url: '/indieweb/token/', headers: { authorization: `Bearer ${token}` } });
  const micropub = (token: string) =>
    t.app.inject({ method: 'GET', url: '/indieweb/micropub/?q=config', headers: { authorization: `Bearer ${token}` } });

  async function grant(scope = 'create update') {
    const code = await obtainCode(t, jar, { scope, code_challenge: S256_CHALLENGE, code_challenge_method: 'S256' });
    const response = await jsonToken(t, {
      grant_type: 'authorization_code',
      code,
      client_id: CLIENT_ID,
      redirect_uri: REDIRECT_URI,
      code_verifier: VERIFIER,
    });
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
    const narrow = await jsonToken(t, {
      grant_type: 'refresh_token',
      refresh_token: first.refresh_token,
      client_id: CLIENT_ID,
      scope: 'media',
    });
    expect(narrow.json()).toMatchObject({ scope: 'media' });
    const wide = await jsonToken(t, {
      grant_type: 'refresh_token',
      refresh_token: (narrow.json() as { refresh_token: string }).refresh_token,
      client_id: CLIENT_ID,
      scope: 'media delete',
    });
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
    const response = await jsonToken(t, {
      grant_type: 'authorization_code',
      code,
      client_id: CLIENT_ID,
      redirect_uri: REDIRECT_URI,
      code_verifier: VERIFIER,
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ scope: '' });
    expect(response.json()).not.toHaveProperty('refresh_token');
  });

  it('400 invalid_grant for an unknown or expired refresh token, or one of another client', async () => {
    const first = await grant();
    expect((await jsonToken(t, { grant_type: 'refresh_token', refresh_token: 'nope', client_id: CLIENT_ID })).json()).toEqual({
      error: 'invalid_grant',
    });
    expect(
      (await jsonToken(t, { grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: 'https://other.example/' })).json(),
    ).toEqual({ error: 'invalid_grant' });
    t.clock.advance(3601);
    expect((await jsonToken(t, { grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: CLIENT_ID })).json()).toEqual({
      error: 'invalid_grant',
    });
  });

  it('200 from the revocation endpoint whether or not the token was valid; the token is then refused on Micropub and media', async () => {
    const issued = await grant();
    for (const token of [issued.access_token, 'not-a-token']) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/indieweb/token/revoke',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: `token=${token}`,
      });
      expect(response.statusCode).toBe(200);
    }
    expect((await micropub(issued.access_token)).statusCode).toBe(401);
    const media = await t.app.inject({
      method: 'GET',
      url: '/indieweb/media/?q=source',
      headers: { authorization: `Bearer ${issued.access_token}` },
    });
    expect(media.statusCode).toBe(401);
  });

  it('400 invalid_request (JSON) from the revocation endpoint without a token; action=revoke without one is 400 too', async () => {
    for (const payload of ['', 'token=']) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/indieweb/token/revoke',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload,
      });
      expect(response.statusCode).toBe(400);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(response.json()).toEqual({ error: 'invalid_request' });
    }
    expect((await postToken(t, { action: 'revoke' })).statusCode).toBe(400);
  });

  it('revoking a refresh token revokes its grant; action=revoke on the token endpoint works for older clients', async () => {
    const issued = await grant();
    await t.app.inject({
      method: 'POST',
      url: '/indieweb/token/revoke',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `token=${issued.refresh_token}`,
    });
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
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          ...(caller === undefined ? {} : { authorization: `Bearer ${caller}` }),
        },
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
      const { token: bobToken } = await t.app.indieweb.tokens.issue({
        userId: bob.id,
        clientId: CLIENT_ID,
        me: 'https://bob.example/',
        scope: 'create',
        expiresIn: 3600,
      });
      expect((await introspect(bobToken, issued.access_token)).json()).toEqual({ active: false });
      await t.app.inject({
        method: 'POST',
        url: '/indieweb/token/revoke',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: `token=${issued.access_token}`,
      });
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

    it('a resource server may authenticate with client_secret_basic (RFC 7662 2.1); a wrong or malformed one is 401 invalid_client with a Basic challenge', async () => {
      const issued = await grant();
      const basic = (credentials: string) =>
        t.app.inject({
          method: 'POST',
          url: '/indieweb/token/introspect',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            authorization: `Basic ${Buffer.from(credentials).toString('base64')}`,
          },
          payload: `token=${encodeURIComponent(issued.access_token)}`,
        });
      const accepted = await basic('https%3A%2F%2Fresource.example%2F:resource-server-secret-of-enough-length');
      expect(accepted.statusCode).toBe(200);
      expect(accepted.json()).toMatchObject({ active: true, me: ME, client_id: CLIENT_ID });
      for (const credentials of ['rs:wrong-secret', 'no-colon', 'rs:%zz']) {
        const refused = await basic(credentials);
        expect(refused.statusCode).toBe(401);
        expect(refused.headers['www-authenticate']).toBe('Basic realm="indiestack"');
        expect(refused.json()).toEqual({ error: 'invalid_client' });
      }
    });

    it('400 invalid_request (JSON) without a token, or with two', async () => {
      const secret = {
        authorization: 'Bearer resource-server-secret-of-enough-length',
        'content-type': 'application/x-www-form-urlencoded',
      };
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
      const info = await t.app.inject({
        method: 'GET',
        url: '/indieweb/userinfo',
        headers: { authorization: `Bearer ${withEmail.access_token}` },
      });
      expect(info.json()).toEqual(withEmail.profile);
    });

    it('403 insufficient_scope from userinfo without the profile scope; 401 invalid_token for a bad token, 401 without one', async () => {
      const issued = await grant('create');
      const noScope = await t.app.inject({
        method: 'GET',
        url: '/indieweb/userinfo',
        headers: { authorization: `Bearer ${issued.access_token}` },
      });
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
  const SECRET = 'resource-server-secret-of-enough-length';
  let t: TestApp;
  let jar: CookieJar;
  let base: string;
  let as: oauth.AuthorizationServer;
  const options = { [oauth.allowInsecureRequests]: true };
  const client: oauth.Client = { client_id: CLIENT_ID };

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await buildTestApp({ env: { INDIEWEB_BASE_URL: base, INDIEWEB_INTROSPECTION_SECRET: SECRET } });
    jar = await addAlice(t, { me: [`${base}/`] });
    await t.app.listen({ host: '127.0.0.1', port });
    const issuer = new URL(`${base}/`);
    as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { ...options, algorithm: 'oauth2' }));
  });
  afterAll(async () => {
    await t.close();
  });

  /** The front channel as the user's browser runs it; returns the redirect back to the client. */
  async function authorize(decision: 'approve' | 'deny', state: string, challenge: string): Promise<URL> {
    const consent = await getAuthorization(
      t,
      jar,
      authorizationParams({ me: `${base}/`, code_challenge: challenge, code_challenge_method: 'S256', scope: 'create profile', state }),
    );
    const redirect = await decide(t, jar, consent, decision);
    expect(redirect.statusCode).toBe(302);
    return new URL(redirect.headers.location as string);
  }

  it('the metadata tells a careful client what it needs (RFC 8414): public clients, query responses, iss on responses', () => {
    expect(as.issuer).toBe(`${base}/`);
    expect(as.token_endpoint_auth_methods_supported).toEqual(['none']);
    expect(as.revocation_endpoint_auth_methods_supported).toEqual(['none']);
    expect(as.response_modes_supported).toEqual(['query']);
    expect(as.authorization_response_iss_parameter_supported).toBe(true);
  });

  it('discovers the server from its metadata and completes code + PKCE S256, refresh, introspection and revocation', async () => {
    const verifier = oauth.generateRandomCodeVerifier();
    const callback = oauth.validateAuthResponse(
      as,
      client,
      await authorize('approve', 'interop', await oauth.calculatePKCECodeChallenge(verifier)),
      'interop',
    );
    const tokenResponse = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), callback, REDIRECT_URI, verifier, options);
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, tokenResponse);
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.scope).toBe('create profile');
    expect(typeof tokens.refresh_token).toBe('string');

    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, options),
    );
    expect(refreshed.access_token).not.toBe(tokens.access_token);

    // introspection (RFC 7662): a resource server authenticates as a confidential client with the introspection secret
    const resourceServer: oauth.Client = { client_id: 'https://resource.example/' };
    const introspect = async (token: string, secret = SECRET) =>
      oauth.processIntrospectionResponse(
        as,
        resourceServer,
        await oauth.introspectionRequest(as, resourceServer, oauth.ClientSecretBasic(secret), token, options),
      );
    expect(await introspect(refreshed.access_token)).toMatchObject({
      active: true,
      scope: 'create profile',
      client_id: CLIENT_ID,
      me: `${base}/`,
    });
    await expect(introspect(refreshed.access_token, 'not-the-secret')).rejects.toBeInstanceOf(oauth.WWWAuthenticateChallengeError);
    // RFC 7662 2.3 with RFC 6750: a rejected caller is a 401 challenge the library reports as such
    const anonymous = oauth
      .introspectionRequest(as, client, oauth.None(), refreshed.access_token, options)
      .then((response) => oauth.processIntrospectionResponse(as, client, response));
    await expect(anonymous).rejects.toBeInstanceOf(oauth.WWWAuthenticateChallengeError);

    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, oauth.None(), refreshed.access_token, options));
    const after = await fetch(`${base}/indieweb/micropub/`, { headers: { authorization: `Bearer ${refreshed.access_token}` } });
    expect(after.status).toBe(401);
    expect(await introspect(refreshed.access_token)).toEqual({ active: false });
    // revoking the access token revoked its grant: the refresh token is refused with invalid_grant (RFC 6749 5.2)
    const refused = oauth
      .refreshTokenGrantRequest(as, client, oauth.None(), refreshed.refresh_token!, options)
      .then((response) => oauth.processRefreshTokenResponse(as, client, response));
    await expect(refused).rejects.toMatchObject({ name: 'ResponseBodyError', error: 'invalid_grant', status: 400 });
  });

  it('reports a denial as access_denied, not as an invalid response (issue 17: iss on the error redirect, RFC 9207)', async () => {
    const verifier = oauth.generateRandomCodeVerifier();
    const location = await authorize('deny', 'interop-deny', await oauth.calculatePKCECodeChallenge(verifier));
    expect(location.searchParams.get('iss')).toBe(as.issuer);
    let caught: unknown;
    try {
      oauth.validateAuthResponse(as, client, location, 'interop-deny');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(oauth.AuthorizationResponseError);
    expect((caught as oauth.AuthorizationResponseError).error).toBe('access_denied');
  });

  it('a denial with the wrong state is still caught by the library (the iss does not weaken the state check)', async () => {
    const location = await authorize('deny', 'interop-deny-2', await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier()));
    expect(() => oauth.validateAuthResponse(as, client, location, 'another-state')).toThrow(/state/);
  });
});
