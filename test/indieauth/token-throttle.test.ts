/**
 * Issue 23 #6, the token endpoint: failed code and refresh-token redemptions
 * can be throttled per client address (429 with Retry-After and a JSON OAuth
 * error). SPEC.md says no rate limiting is implemented, and conformance suites
 * send many failing requests from one address, so it is off unless
 * INDIEWEB_TOKEN_FREE_FAILURES is set (docs/security.md "Throttles").
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, form, type CookieJar, type TestApp } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';
import { addAlice, CLIENT_ID, formBody, obtainCode, REDIRECT_URI, S256_CHALLENGE, VERIFIER } from '../helpers/indieauth.js';

const BOGUS_CODE = 'a-code-that-was-never-issued';

function post(
  t: TestApp,
  url: string,
  address: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return t.app.inject({
    method: 'POST',
    url,
    remoteAddress: address,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: form(fields),
  });
}

const redeemCode = (t: TestApp, address: string, code: string) =>
  post(t, '/indieweb/token/', address, { code, client_id: CLIENT_ID, redirect_uri: REDIRECT_URI });
const refreshWith = (t: TestApp, address: string, refreshToken: string) =>
  post(
    t,
    '/indieweb/token/',
    address,
    { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: CLIENT_ID },
    { accept: 'application/json' },
  );
const verifyCode = (t: TestApp, address: string, code: string) =>
  post(t, '/indieweb/auth/', address, { code, client_id: CLIENT_ID, redirect_uri: REDIRECT_URI });

function expectInvalidGrant(response: LightMyRequestResponse): void {
  expect(response.statusCode).toBe(400);
  expect(response.headers['retry-after']).toBeUndefined();
  const body = response.headers['content-type']?.toString().startsWith('application/json') ? response.json() : formBody(response);
  expect(body).toEqual({ error: 'invalid_grant' });
}

function expectThrottled(response: LightMyRequestResponse, seconds: number): void {
  expect(response.statusCode).toBe(429);
  expect(response.headers['retry-after']).toBe(String(seconds));
  expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(response.headers['cache-control']).toBe('no-store');
  expect(response.json()).toEqual({
    error: 'temporarily_unavailable',
    error_description: `too many failed attempts from this address; retry after ${seconds} seconds`,
  });
}

describe.each(DIALECTS)('POST /indieweb/token/ throttle off by default (%s)', (dialect) => {
  let t: TestApp;
  let jar: CookieJar;
  beforeAll(async () => {
    t = await buildTestApp({ dialect });
    jar = await addAlice(t);
  });
  afterAll(async () => {
    await t.close();
  });

  it('400 invalid_grant for 60 failing code, refresh and verification requests from one address, never 429; a good code still redeems', async () => {
    for (let i = 0; i < 20; i++) {
      expectInvalidGrant(await redeemCode(t, '127.0.0.1', `${BOGUS_CODE}-${i}`));
      expectInvalidGrant(await refreshWith(t, '127.0.0.1', `bogus-refresh-${i}`));
      expectInvalidGrant(await verifyCode(t, '127.0.0.1', `${BOGUS_CODE}-${i}`));
    }
    const code = await obtainCode(t, jar);
    expect((await redeemCode(t, '127.0.0.1', code)).statusCode).toBe(201);
  });
});

describe.each(DIALECTS)('POST /indieweb/token/ with INDIEWEB_TOKEN_FREE_FAILURES=3 (%s)', (dialect) => {
  let t: TestApp;
  let jar: CookieJar;
  beforeAll(async () => {
    t = await buildTestApp({ dialect, env: { INDIEWEB_TOKEN_FREE_FAILURES: '3' } });
    jar = await addAlice(t);
  });
  afterAll(async () => {
    await t.close();
  });

  it('429 on the 4th failing code from one address, a good code waits too and is not used up; another address is unaffected', async () => {
    const code = await obtainCode(t, jar);
    for (let i = 0; i < 3; i++) expectInvalidGrant(await redeemCode(t, '198.51.100.1', `${BOGUS_CODE}-${i}`));
    expectThrottled(await redeemCode(t, '198.51.100.1', BOGUS_CODE), 1);
    expectThrottled(await redeemCode(t, '198.51.100.1', code), 1);
    expectInvalidGrant(await redeemCode(t, '198.51.100.2', BOGUS_CODE));
    t.clock.advance(1);
    const issued = await redeemCode(t, '198.51.100.1', code);
    expect(issued.statusCode).toBe(201);
    expect(formBody(issued).access_token).toMatch(/.{20,}/);
  });

  it('the refresh grant and code verification count against the same address', async () => {
    for (let i = 0; i < 2; i++) expectInvalidGrant(await refreshWith(t, '198.51.100.3', `bogus-refresh-${i}`));
    expectInvalidGrant(await verifyCode(t, '198.51.100.3', BOGUS_CODE));
    expectThrottled(await refreshWith(t, '198.51.100.3', 'bogus-refresh'), 1);
    expectThrottled(await redeemCode(t, '198.51.100.3', BOGUS_CODE), 1);
    expectThrottled(await verifyCode(t, '198.51.100.3', BOGUS_CODE), 1);
  });

  it('a good refresh token is refused while the address waits and works after', async () => {
    const code = await obtainCode(t, jar, { code_challenge: S256_CHALLENGE, code_challenge_method: 'S256' });
    const grant = await post(
      t,
      '/indieweb/token/',
      '198.51.100.4',
      { grant_type: 'authorization_code', code, client_id: CLIENT_ID, redirect_uri: REDIRECT_URI, code_verifier: VERIFIER },
      { accept: 'application/json' },
    );
    expect(grant.statusCode).toBe(200);
    const refreshToken = (grant.json() as { refresh_token: string }).refresh_token;
    for (let i = 0; i < 3; i++) expectInvalidGrant(await refreshWith(t, '198.51.100.4', `bogus-refresh-${i}`));
    expectThrottled(await refreshWith(t, '198.51.100.4', refreshToken), 1);
    t.clock.advance(1);
    expect((await refreshWith(t, '198.51.100.4', refreshToken)).statusCode).toBe(200);
  });

  it('requests refused for other reasons (missing code, unsupported grant type) are not counted', async () => {
    for (let i = 0; i < 10; i++) {
      const missing = await post(t, '/indieweb/token/', '198.51.100.5', { client_id: CLIENT_ID });
      expect(missing.statusCode).toBe(400);
      expect(formBody(missing)).toEqual({ error: 'invalid_request' });
      const unsupported = await post(t, '/indieweb/token/', '198.51.100.5', { grant_type: 'password', client_id: CLIENT_ID });
      expect(unsupported.statusCode).toBe(400);
    }
    expectInvalidGrant(await redeemCode(t, '198.51.100.5', BOGUS_CODE));
  });
});
