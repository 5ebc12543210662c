import { createHash } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { CookieJar, form, hiddenField, type TestApp } from './app.js';
import { sessionFor, testUsers } from './users.js';

export const CLIENT_ID = 'https://app.example/';
export const REDIRECT_URI = 'https://app.example/callback';
export const ME = 'https://alice.example/';
export const PASSWORD = 'alice password 1';
/** A valid PKCE verifier (43+ characters) and its S256 challenge. */
export const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
export const S256_CHALLENGE = createHash('sha256').update(VERIFIER).digest('base64url');

/** Adds alice (profile https://alice.example/) and returns her signed-in cookie jar. */
export async function addAlice(t: TestApp, extra: { me?: string[] } = {}): Promise<CookieJar> {
  const users = testUsers(t);
  const alice = (await users.findByName('alice')) ?? (await users.addUser({ name: 'alice', me: extra.me ?? [ME], password: PASSWORD }));
  return sessionFor(t, alice, PASSWORD);
}

export function authorizationParams(overrides: Record<string, string | undefined> = {}): Record<string, string> {
  const params: Record<string, string | undefined> = {
    response_type: 'code',
    client_id: CLIENT_ID,
    redirect_uri: REDIRECT_URI,
    state: 'state-123',
    me: ME,
    scope: 'create update',
    ...overrides,
  };
  return Object.fromEntries(Object.entries(params).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

export function authorizationUrl(params: Record<string, string>): string {
  return `/indieweb/auth/?${new URLSearchParams(params).toString()}`;
}

/** GET /indieweb/auth/ as the signed-in browser of `jar`. */
export async function getAuthorization(t: TestApp, jar: CookieJar, params: Record<string, string>): Promise<LightMyRequestResponse> {
  const response = await t.app.inject({ method: 'GET', url: authorizationUrl(params), headers: { cookie: jar.header() } });
  jar.storeFrom(response);
  return response;
}

/** Posts the consent form of a consent page with the decision; returns the redirect response. */
export async function decide(
  t: TestApp,
  jar: CookieJar,
  consentPage: LightMyRequestResponse,
  decision: 'approve' | 'deny',
  override: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  const fields: Record<string, string> = { decision };
  for (const name of ['_csrf', 'client_id', 'redirect_uri', 'state', 'me', 'scope', 'code_challenge', 'code_challenge_method']) {
    try {
      fields[name] = hiddenField(consentPage.body, name);
    } catch {
      // optional fields are absent when not requested
    }
  }
  const response = await t.app.inject({
    method: 'POST',
    url: '/indieweb/auth/consent/',
    headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
    payload: form({ ...fields, ...override }),
  });
  jar.storeFrom(response);
  return response;
}

/** Runs the front channel to the end and returns the code from the redirect. */
export async function obtainCode(t: TestApp, jar: CookieJar, overrides: Record<string, string | undefined> = {}): Promise<string> {
  const page = await getAuthorization(t, jar, authorizationParams(overrides));
  if (page.statusCode !== 200) throw new Error(`consent page answered ${page.statusCode}: ${page.body}`);
  const redirect = await decide(t, jar, page, 'approve');
  const location = redirect.headers.location;
  if (redirect.statusCode !== 302 || typeof location !== 'string') throw new Error(`approval answered ${redirect.statusCode}`);
  const code = new URL(location).searchParams.get('code');
  if (code === null) throw new Error('no code in redirect');
  return code;
}

/** POST /indieweb/token/ with form fields. */
export function postToken(
  t: TestApp,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return t.app.inject({
    method: 'POST',
    url: '/indieweb/token/',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: form(fields),
  });
}

export function formBody(response: LightMyRequestResponse): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(response.body));
}
