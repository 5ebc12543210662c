/**
 * Grant test helpers: a full code flow that ends with an access token and a
 * refresh token, and the three things a grant's tokens are tried on.
 * @module
 */
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { CookieJar, TestApp } from './app.js';
import { CLIENT_ID, obtainCode, postToken, REDIRECT_URI, S256_CHALLENGE, VERIFIER } from './indieauth.js';

export interface JsonGrant {
  readonly access_token: string;
  readonly refresh_token: string;
  readonly scope: string;
}

/** Code + PKCE with `Accept: application/json`: the modern client's flow, which gets a refresh token too. */
export async function jsonGrant(t: TestApp, jar: CookieJar, scope = 'create update'): Promise<JsonGrant & { code: string }> {
  const code = await obtainCode(t, jar, { scope, code_challenge: S256_CHALLENGE, code_challenge_method: 'S256' });
  const response = await redeemJson(t, code);
  if (response.statusCode !== 200) throw new Error(`token endpoint answered ${response.statusCode}: ${response.body}`);
  const body = response.json() as JsonGrant;
  if (typeof body.refresh_token !== 'string') throw new Error('no refresh token');
  return { ...body, code };
}

/** Redeems a code as the JSON client of `jsonGrant` does. */
export function redeemJson(t: TestApp, code: string): Promise<LightMyRequestResponse> {
  return postToken(
    t,
    { grant_type: 'authorization_code', code, client_id: CLIENT_ID, redirect_uri: REDIRECT_URI, code_verifier: VERIFIER },
    { accept: 'application/json' },
  );
}

/** `grant_type=refresh_token` as the client would send it. */
export function refresh(t: TestApp, refreshToken: string): Promise<LightMyRequestResponse> {
  return postToken(t, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: CLIENT_ID }, { accept: 'application/json' });
}

/** A Micropub request with the token: 200 while it works, 401 once it does not. */
export function micropubWith(t: TestApp, token: string): Promise<LightMyRequestResponse> {
  return t.app.inject({ method: 'GET', url: '/indieweb/micropub/?q=config', headers: { authorization: `Bearer ${token}` } });
}

/** RFC 7009 revocation as a client sends it. */
export function revokeAtEndpoint(t: TestApp, token: string): Promise<LightMyRequestResponse> {
  return t.app.inject({
    method: 'POST',
    url: '/indieweb/token/revoke',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ token }).toString(),
  });
}

/** The access token works (twice: the second answer may come from the validation cache). */
export async function expectWorking(t: TestApp, token: string): Promise<void> {
  expect((await micropubWith(t, token)).statusCode).toBe(200);
  expect((await micropubWith(t, token)).statusCode).toBe(200);
}

/** The whole grant is over: its access token is refused and its refresh token gives invalid_grant. */
export async function expectEnded(t: TestApp, grant: { access_token: string; refresh_token: string }): Promise<void> {
  expect((await micropubWith(t, grant.access_token)).statusCode).toBe(401);
  const refused = await refresh(t, grant.refresh_token);
  expect(refused.statusCode).toBe(400);
  expect(refused.json()).toEqual({ error: 'invalid_grant' });
}
