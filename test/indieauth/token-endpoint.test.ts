import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/env.js';
import { ConfigError } from '../../src/core/errors.js';
import { createServer } from '../../src/app/server.js';
import { buildTestApp, form, TEST_SECRET, type CookieJar, type TestApp } from '../helpers/app.js';
import {
  addAlice,
  authorizationParams,
  CLIENT_ID,
  formBody,
  getAuthorization,
  ME,
  obtainCode,
  postToken,
  REDIRECT_URI,
  S256_CHALLENGE,
  VERIFIER,
} from '../helpers/indieauth.js';

const FORM_TYPE = 'application/x-www-form-urlencoded; charset=utf-8';
const OTHER_CLIENT = 'https://other.example/';
const OTHER_REDIRECT = 'https://other.example/callback';

const sha256 = (value: string) => createHash('sha256').update(value).digest('base64url');

async function countRows(t: TestApp, table: 'indieweb_token' | 'indieweb_auth_code'): Promise<number> {
  const row = await t.database.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

function redeem(
  t: TestApp,
  code: string,
  extra: Record<string, string> = {},
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return postToken(t, { code, client_id: CLIENT_ID, ...extra }, headers);
}

function postTokenTo(app: FastifyInstance, fields: Record<string, string>): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url: '/indieweb/token/',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: form(fields),
  });
}

/** GET /indieweb/token/ (token verification) with the token as Bearer. */
function verifyToken(t: TestApp, token: string): Promise<LightMyRequestResponse> {
  return t.app.inject({ method: 'GET', url: '/indieweb/token/', headers: { authorization: `Bearer ${token}` } });
}

/** A form-encoded `error=<code>` answer with an explicit content type, never cached. */
function expectTokenError(response: LightMyRequestResponse, status: number, code: string): void {
  expect(response.statusCode).toBe(status);
  expect(response.headers['content-type']).toBe(FORM_TYPE);
  expect(response.headers['cache-control']).toBe('no-store');
  expect(formBody(response)).toEqual({ error: code });
}

function expectIssued(response: LightMyRequestResponse): Record<string, string> {
  expect(response.statusCode, response.body).toBe(201);
  expect(response.headers['content-type']).toBe(FORM_TYPE);
  return formBody(response);
}

/** A second server on the same database and clock, configured differently (a changed policy after approval). */
async function sameDatabaseServer(t: TestApp, env: Record<string, string>): Promise<FastifyInstance> {
  const config = loadConfig({
    env: { INDIEWEB_BASE_URL: 'http://indiestack.test', INDIEWEB_SECRET: TEST_SECRET, INDIEWEB_DATABASE_URL: t.database.url, ...env },
  });
  const { app } = await createServer({ config, database: t.database, clock: t.clock, logger: false });
  await app.ready();
  return app;
}

describe('POST /indieweb/token/', () => {
  let t: TestApp;
  let jar: CookieJar;
  beforeAll(async () => {
    t = await buildTestApp();
    jar = await addAlice(t);
  });
  afterAll(async () => {
    await t.close();
  });

  describe('success', () => {
    it('201 form-encoded with exactly access_token, scope, me and expires_in (86400 by default)', async () => {
      const code = await obtainCode(t, jar);
      const response = await redeem(t, code, { redirect_uri: REDIRECT_URI, me: ME, grant_type: 'authorization_code' });
      const body = expectIssued(response);
      expect(Object.keys(body).sort()).toEqual(['access_token', 'expires_in', 'me', 'scope']);
      expect(body.access_token).toMatch(/^[A-Za-z0-9_-]{43,}$/);
      expect(body.scope).toBe('create update');
      expect(body.me).toBe(ME);
      expect(body.expires_in).toBe('86400');
      expect(response.headers['cache-control']).toBe('no-store');
    });

    it('201 with the stored values when redirect_uri, me, scope and grant_type are omitted', async () => {
      const code = await obtainCode(t, jar, { scope: 'create  media create' });
      const body = expectIssued(await redeem(t, code));
      expect(body.me).toBe(ME);
      expect(body.scope).toBe('create media');
    });

    it('201 and the token verifies to the same me, client_id and scope', async () => {
      const code = await obtainCode(t, jar);
      const body = expectIssued(await redeem(t, code));
      const verified = await verifyToken(t, body.access_token ?? '');
      expect(verified.statusCode).toBe(200);
      expect(formBody(verified)).toEqual({ me: ME, client_id: CLIENT_ID, scope: 'create update' });
    });

    it('201 form when Accept is */*, application/*, form encoding, absent, or prefers form over JSON', async () => {
      for (const accept of [
        '*/*',
        'application/x-www-form-urlencoded',
        undefined,
        'application/json;q=0.5, application/x-www-form-urlencoded',
        'application/x-www-form-urlencoded, application/json',
        'application/*',
        'text/html',
      ]) {
        const code = await obtainCode(t, jar);
        const response = await redeem(t, code, {}, accept === undefined ? {} : { accept });
        const body = expectIssued(response);
        expect(body.token_type).toBeUndefined();
        expect(response.headers['cache-control']).toBe('no-store');
      }
    });

    it('200 JSON with token_type Bearer when the client prefers application/json', async () => {
      for (const accept of [
        'application/json',
        'application/json, */*;q=0.1',
        'application/x-www-form-urlencoded;q=0.2, application/json',
      ]) {
        const code = await obtainCode(t, jar);
        const response = await redeem(t, code, {}, { accept });
        expect(response.statusCode).toBe(200);
        expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
        expect(response.headers['cache-control']).toBe('no-store');
        const body = response.json() as Record<string, unknown>;
        expect(Object.keys(body).sort()).toEqual(['access_token', 'expires_in', 'me', 'scope', 'token_type']);
        expect(body).toMatchObject({ token_type: 'Bearer', me: ME, scope: 'create update', expires_in: 86400 });
        expect(typeof body.access_token).toBe('string');
      }
    });

    it('400 invalid_grant as JSON, with an explicit content type, when the client prefers application/json', async () => {
      const response = await redeem(t, 'no-such-code', {}, { accept: 'application/json' });
      expect(response.statusCode).toBe(400);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(response.headers['cache-control']).toBe('no-store');
      expect(response.json()).toEqual({ error: 'invalid_grant' });
    });

    it('201 for each exchange with a fresh full-lifetime token; earlier tokens of the same user and client stay valid until their own expiry', async () => {
      const before = await countRows(t, 'indieweb_token');
      const first = expectIssued(await redeem(t, await obtainCode(t, jar)));
      t.clock.advance(30);
      const second = expectIssued(await redeem(t, await obtainCode(t, jar)));
      expect(second.access_token).not.toBe(first.access_token);
      expect(second.expires_in).toBe('86400');
      expect(await countRows(t, 'indieweb_token')).toBe(before + 2);
      for (const token of [first.access_token, second.access_token]) {
        const verified = await verifyToken(t, token ?? '');
        expect(verified.statusCode).toBe(200);
        expect(formBody(verified).me).toBe(ME);
      }
      // the second exchange did not extend the first token: each keeps its own lifetime
      t.clock.advance(86_400 - 30);
      expect((await verifyToken(t, first.access_token ?? '')).statusCode).toBe(401);
      expect((await verifyToken(t, second.access_token ?? '')).statusCode).toBe(200);
    });

    it('201 and only the SHA-256 of the token and of the code are stored', async () => {
      const code = await obtainCode(t, jar);
      const body = expectIssued(await redeem(t, code));
      const token = body.access_token ?? '';
      const tokens = await t.database.db.selectFrom('indieweb_token').selectAll().execute();
      for (const row of tokens) expect(JSON.stringify(row)).not.toContain(token);
      expect(tokens.filter((row) => row.token_hash === sha256(token))).toHaveLength(1);
      const codes = await t.database.db.selectFrom('indieweb_auth_code').selectAll().execute();
      for (const row of codes) expect(JSON.stringify(row)).not.toContain(code);
      expect(codes.filter((row) => row.code_hash === sha256(code))).toHaveLength(1);
    });
  });

  describe('code', () => {
    it('400 invalid_request when code is missing or empty', async () => {
      expectTokenError(await postToken(t, { client_id: CLIENT_ID }), 400, 'invalid_request');
      expectTokenError(await postToken(t, { code: '', client_id: CLIENT_ID }), 400, 'invalid_request');
    });

    it('400 invalid_grant for an unknown code', async () => {
      expectTokenError(await redeem(t, 'not-a-code-we-issued'), 400, 'invalid_grant');
    });

    it('400 invalid_grant when the code is used a second time, and the token issued from it is revoked (RFC 6749 4.1.2)', async () => {
      const code = await obtainCode(t, jar);
      const first = expectIssued(await redeem(t, code));
      expect((await verifyToken(t, first.access_token ?? '')).statusCode).toBe(200);
      const before = await countRows(t, 'indieweb_token');
      expectTokenError(await redeem(t, code), 400, 'invalid_grant');
      expect(await countRows(t, 'indieweb_token')).toBe(before);
      expect((await verifyToken(t, first.access_token ?? '')).statusCode).toBe(401);
    });

    it('400 invalid_grant for one of two concurrent exchanges of the same code', async () => {
      const code = await obtainCode(t, jar);
      const before = await countRows(t, 'indieweb_token');
      const responses = await Promise.all([redeem(t, code), redeem(t, code)]);
      expect(responses.map((r) => r.statusCode).sort()).toEqual([201, 400]);
      expect(await countRows(t, 'indieweb_token')).toBe(before + 1);
      // the loser presented a used code: a replay, so the winner's token goes too
      const winner = formBody(responses.find((r) => r.statusCode === 201)!);
      expect((await verifyToken(t, winner.access_token ?? '')).statusCode).toBe(401);
    });

    it('201 for a code 599 s old, 400 invalid_grant for a code 600 s old (default lifetime)', async () => {
      const young = await obtainCode(t, jar);
      t.clock.advance(599);
      expectIssued(await redeem(t, young));
      const old = await obtainCode(t, jar);
      t.clock.advance(600);
      expectTokenError(await redeem(t, old), 400, 'invalid_grant');
    });

    it('201 without code_verifier for a legacy code stored without a challenge', async () => {
      const user = await t.database.db.selectFrom('indieweb_user').select('id').where('name', '=', 'alice').executeTakeFirstOrThrow();
      const code = 'legacy-code-issued-before-pkce-support-000000';
      const now = t.clock.now();
      await t.database.db
        .insertInto('indieweb_auth_code')
        .values({
          code_hash: sha256(code),
          user_id: user.id,
          client_id: CLIENT_ID,
          redirect_uri: REDIRECT_URI,
          me: ME,
          scope: 'create',
          code_challenge: null,
          code_challenge_method: null,
          created_at: now.toISOString(),
          expires_at: new Date(now.getTime() + 60_000).toISOString(),
        })
        .execute();
      const body = expectIssued(await redeem(t, code, { redirect_uri: REDIRECT_URI }));
      expect(body.scope).toBe('create');
    });

    it('400 invalid_grant when the code owner has been disabled since approval', async () => {
      const own = await buildTestApp();
      try {
        const ownJar = await addAlice(own);
        const code = await obtainCode(own, ownJar);
        await own.app.indieweb.users?.setActive('alice', false);
        expectTokenError(await redeem(own, code), 400, 'invalid_grant');
        expect(await countRows(own, 'indieweb_token')).toBe(0);
      } finally {
        await own.close();
      }
    });
  });

  describe('client_id', () => {
    it('400 invalid_request when client_id is missing or empty', async () => {
      const code = await obtainCode(t, jar);
      expectTokenError(await postToken(t, { code }), 400, 'invalid_request');
      expectTokenError(await postToken(t, { code, client_id: '' }), 400, 'invalid_request');
      expectIssued(await redeem(t, code));
    });

    it.each([
      ['a fragment', 'https://app.example/#frag'],
      ['userinfo', 'https://user:secret@app.example/'],
      ['an empty userinfo', 'https://@app.example/'],
      ['an ftp scheme', 'ftp://app.example/'],
      ['a javascript scheme', 'javascript:alert(1)'],
      ['a relative URL', '/client'],
      ['no URL at all', 'app.example'],
    ])('400 invalid_request when client_id has %s', async (_label, clientId) => {
      const code = await obtainCode(t, jar);
      expectTokenError(await postToken(t, { code, client_id: clientId }), 400, 'invalid_request');
      expectIssued(await redeem(t, code));
    });

    it('400 invalid_grant when client_id differs from the one the code was issued to', async () => {
      const code = await obtainCode(t, jar);
      expectTokenError(await postToken(t, { code, client_id: OTHER_CLIENT }), 400, 'invalid_grant');
      expectTokenError(await postToken(t, { code, client_id: 'https://app.example/other/' }), 400, 'invalid_grant');
    });
  });

  describe('redirect_uri', () => {
    it('201 when redirect_uri equals the stored one after lowercasing scheme and host only', async () => {
      const code = await obtainCode(t, jar);
      expectIssued(await redeem(t, code, { redirect_uri: 'HTTPS://APP.Example/callback' }));
    });

    it('201 when redirect_uri is omitted', async () => {
      const code = await obtainCode(t, jar);
      expectIssued(await redeem(t, code));
    });

    it.each([
      ['a different path', 'https://app.example/other'],
      ['a different path case', 'https://app.example/Callback'],
      ['a trailing slash', 'https://app.example/callback/'],
      ['an added query', 'https://app.example/callback?x=1'],
      ['a different host', 'https://evil.example/callback'],
      ['a different scheme', 'http://app.example/callback'],
    ])('400 invalid_grant when redirect_uri differs from the stored one by %s', async (_label, redirectUri) => {
      const code = await obtainCode(t, jar);
      expectTokenError(await redeem(t, code, { redirect_uri: redirectUri }), 400, 'invalid_grant');
    });

    it('400 invalid_grant when the query of redirect_uri differs from the stored query', async () => {
      const code = await obtainCode(t, jar, { redirect_uri: 'https://app.example/callback?a=1&b=2' });
      expectTokenError(await redeem(t, code, { redirect_uri: 'https://app.example/callback?b=2&a=1' }), 400, 'invalid_grant');
      expectIssued(await redeem(t, code, { redirect_uri: 'https://app.example/callback?a=1&b=2' }));
    });

    it.each([
      ['a fragment', `${REDIRECT_URI}#x`],
      ['userinfo', 'https://user@app.example/callback'],
      ['an ftp scheme', 'ftp://app.example/callback'],
      ['a javascript scheme', 'javascript:alert(1)'],
      ['an invalid URL', 'https://'],
      ['a relative URL', '/callback'],
    ])('400 invalid_grant when redirect_uri is malformed with %s', async (_label, redirectUri) => {
      const code = await obtainCode(t, jar);
      expectTokenError(await redeem(t, code, { redirect_uri: redirectUri }), 400, 'invalid_grant');
      expectIssued(await redeem(t, code));
    });
  });

  describe('me', () => {
    it('201 with the stored me when me is omitted', async () => {
      const code = await obtainCode(t, jar);
      expect(expectIssued(await redeem(t, code)).me).toBe(ME);
    });

    it.each([
      ['another profile', 'https://bob.example/'],
      ['another path', 'https://alice.example/other'],
      ['no URL', 'alice'],
    ])('400 invalid_grant when me is %s', async (_label, me) => {
      const code = await obtainCode(t, jar);
      const before = await countRows(t, 'indieweb_token');
      expectTokenError(await redeem(t, code, { me }), 400, 'invalid_grant');
      expect(await countRows(t, 'indieweb_token')).toBe(before);
      expectIssued(await redeem(t, code, { me: ME }));
    });
  });

  describe('scope', () => {
    it('201 with the stored normalized scope when scope is omitted', async () => {
      const code = await obtainCode(t, jar, { scope: 'update   create update draft' });
      expect(expectIssued(await redeem(t, code)).scope).toBe('update create draft');
    });

    it.each([
      ['the same names', 'create update'],
      ['duplicates', 'create create update update'],
      ['extra whitespace', '  create \t\n update  '],
      ['duplicates and extra whitespace', 'create  update\tcreate '],
    ])('201 when the submitted scope with %s normalizes to the stored scope', async (_label, scope) => {
      const code = await obtainCode(t, jar);
      expect(expectIssued(await redeem(t, code, { scope })).scope).toBe('create update');
    });

    it('400 invalid_grant when the submitted scope names the stored names in another order (normalization keeps first-seen order)', async () => {
      const code = await obtainCode(t, jar);
      expectTokenError(await redeem(t, code, { scope: 'update create' }), 400, 'invalid_grant');
    });

    it.each([
      ['broader than', 'create update delete'],
      ['narrower than', 'create'],
      ['a replacement of', 'media'],
      ['a different case of', 'Create update'],
    ])('400 invalid_grant when the submitted scope is %s the stored scope; no token, the code stays usable', async (_label, scope) => {
      const code = await obtainCode(t, jar);
      const before = await countRows(t, 'indieweb_token');
      expectTokenError(await redeem(t, code, { scope }), 400, 'invalid_grant');
      expect(await countRows(t, 'indieweb_token')).toBe(before);
      expect(expectIssued(await redeem(t, code)).scope).toBe('create update');
      expect(await countRows(t, 'indieweb_token')).toBe(before + 1);
    });

    it('400 invalid_grant when scope is added to a code issued without scope', async () => {
      const code = await obtainCode(t, jar, { scope: undefined });
      const before = await countRows(t, 'indieweb_token');
      expectTokenError(await redeem(t, code, { scope: 'create' }), 400, 'invalid_grant');
      expect(await countRows(t, 'indieweb_token')).toBe(before);
    });

    it('400 invalid_grant for an explicit empty scope on a code issued with scope', async () => {
      const code = await obtainCode(t, jar);
      const before = await countRows(t, 'indieweb_token');
      expectTokenError(await redeem(t, code, { scope: '' }), 400, 'invalid_grant');
      expectTokenError(await redeem(t, code, { scope: '   ' }), 400, 'invalid_grant');
      expect(await countRows(t, 'indieweb_token')).toBe(before);
    });

    it('201 with an empty scope for an explicit empty scope on a code issued without scope', async () => {
      const code = await obtainCode(t, jar, { scope: undefined });
      const body = expectIssued(await redeem(t, code, { scope: '' }));
      expect(body.scope).toBe('');
      const verified = await verifyToken(t, body.access_token ?? '');
      expect(formBody(verified).scope).toBe('');
    });

    it('201 with an empty scope when scope is omitted on a code issued without scope', async () => {
      const code = await obtainCode(t, jar, { scope: undefined });
      expect(expectIssued(await redeem(t, code)).scope).toBe('');
    });
  });

  describe('PKCE', () => {
    it('201 when code_verifier matches an S256 challenge', async () => {
      const code = await obtainCode(t, jar, { code_challenge: S256_CHALLENGE, code_challenge_method: 'S256' });
      expectIssued(await redeem(t, code, { code_verifier: VERIFIER }));
    });

    it('201 when code_verifier matches a plain challenge sent with method plain', async () => {
      const code = await obtainCode(t, jar, { code_challenge: VERIFIER, code_challenge_method: 'plain' });
      expectIssued(await redeem(t, code, { code_verifier: VERIFIER }));
    });

    it('201 when code_verifier equals a challenge sent without method (plain by default)', async () => {
      const code = await obtainCode(t, jar, { code_challenge: VERIFIER });
      expectIssued(await redeem(t, code, { code_verifier: VERIFIER }));
    });

    it('400 invalid_grant when a challenge sent without method is answered as if it were S256', async () => {
      const code = await obtainCode(t, jar, { code_challenge: S256_CHALLENGE });
      expectTokenError(await redeem(t, code, { code_verifier: VERIFIER }), 400, 'invalid_grant');
      expectIssued(await redeem(t, code, { code_verifier: S256_CHALLENGE }));
    });

    it('400 invalid_grant when code_verifier is missing and a challenge is stored; no token, the code stays usable', async () => {
      const code = await obtainCode(t, jar, { code_challenge: S256_CHALLENGE, code_challenge_method: 'S256' });
      const before = await countRows(t, 'indieweb_token');
      expectTokenError(await redeem(t, code), 400, 'invalid_grant');
      expectTokenError(await redeem(t, code, { code_verifier: '' }), 400, 'invalid_grant');
      expect(await countRows(t, 'indieweb_token')).toBe(before);
      expectIssued(await redeem(t, code, { code_verifier: VERIFIER }));
    });

    it('400 invalid_grant when code_verifier does not match the S256 challenge', async () => {
      const code = await obtainCode(t, jar, { code_challenge: S256_CHALLENGE, code_challenge_method: 'S256' });
      expectTokenError(await redeem(t, code, { code_verifier: 'x'.repeat(43) }), 400, 'invalid_grant');
      // the challenge itself is no verifier under S256 (no downgrade to plain)
      expectTokenError(await redeem(t, code, { code_verifier: S256_CHALLENGE }), 400, 'invalid_grant');
    });

    it('400 invalid_grant when code_verifier does not match the plain challenge', async () => {
      const code = await obtainCode(t, jar, { code_challenge: VERIFIER, code_challenge_method: 'plain' });
      expectTokenError(await redeem(t, code, { code_verifier: `${VERIFIER.slice(0, -1)}X` }), 400, 'invalid_grant');
      // nor is the S256 transform of the verifier under plain
      expectTokenError(await redeem(t, code, { code_verifier: S256_CHALLENGE }), 400, 'invalid_grant');
    });

    it('400 invalid_grant when code_verifier is sent for a code without challenge', async () => {
      const code = await obtainCode(t, jar);
      const before = await countRows(t, 'indieweb_token');
      expectTokenError(await redeem(t, code, { code_verifier: VERIFIER }), 400, 'invalid_grant');
      expect(await countRows(t, 'indieweb_token')).toBe(before);
      expectIssued(await redeem(t, code));
    });

    // each malformed verifier is the one whose S256 hash was sent as challenge, so only the syntax rule can refuse it
    // (the non-ASCII one is hashed both ways a server might encode it)
    it.each([
      ['42 characters', 'a'.repeat(42), 'utf8'],
      ['129 characters', 'a'.repeat(129), 'utf8'],
      ['a "+"', `${'a'.repeat(42)}+`, 'utf8'],
      ['a "/"', `${'a'.repeat(42)}/`, 'utf8'],
      ['a "="', `${'a'.repeat(42)}=`, 'utf8'],
      ['a space', `${'a'.repeat(21)} ${'a'.repeat(21)}`, 'utf8'],
      ['a non-ASCII letter (UTF-8 hash)', `${'a'.repeat(42)}é`, 'utf8'],
      ['a non-ASCII letter (Latin-1 hash)', `${'a'.repeat(42)}é`, 'latin1'],
    ] as const)('400 invalid_grant when code_verifier has %s', async (_label, verifier, encoding) => {
      const challenge = createHash('sha256').update(verifier, encoding).digest('base64url');
      const code = await obtainCode(t, jar, { code_challenge: challenge, code_challenge_method: 'S256' });
      expectTokenError(await redeem(t, code, { code_verifier: verifier }), 400, 'invalid_grant');
    });

    it('201 for verifiers of exactly 43 and 128 characters from the whole allowed alphabet', async () => {
      const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._~-';
      for (const verifier of [alphabet.slice(0, 43), (alphabet + alphabet).slice(0, 128)]) {
        const code = await obtainCode(t, jar, { code_challenge: sha256(verifier), code_challenge_method: 'S256' });
        expectIssued(await redeem(t, code, { code_verifier: verifier }));
      }
    });
  });

  describe('grant_type', () => {
    it('400 unsupported_grant_type for a grant_type other than authorization_code and refresh_token; the code stays usable', async () => {
      const code = await obtainCode(t, jar);
      // the refresh grant answers JSON (OAuth), whatever the client accepts
      const refresh = await redeem(t, code, { grant_type: 'refresh_token' });
      expect(refresh.statusCode).toBe(400);
      expect(refresh.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(refresh.json()).toEqual({ error: 'invalid_request' });
      for (const grantType of ['client_credentials', 'password', '']) {
        const response = await redeem(t, code, { grant_type: grantType });
        expect(response.statusCode).toBe(400);
        expect(response.headers['content-type']).toBe(FORM_TYPE);
        expect(formBody(response)).toEqual({ error: 'unsupported_grant_type' });
      }
      expectIssued(await redeem(t, code, { grant_type: 'authorization_code' }));
    });
  });

  describe('bad input', () => {
    it('400 invalid_request, never 500, for 100 KB parameter values; the code stays usable', async () => {
      const big = 'a'.repeat(100_000);
      const code = await obtainCode(t, jar);
      expectTokenError(await redeem(t, big), 400, 'invalid_request');
      expectTokenError(await postToken(t, { code, client_id: `${CLIENT_ID}${big}` }), 400, 'invalid_request');
      for (const [name, value] of [
        ['redirect_uri', `${REDIRECT_URI}${big}`],
        ['me', `${ME}${big}`],
        ['scope', `create update ${big}`],
        ['code_verifier', big],
        ['grant_type', big],
      ] as const) {
        expectTokenError(await redeem(t, code, { [name]: value }), 400, 'invalid_request');
      }
      expectIssued(await redeem(t, code));
    });

    it('400 invalid_grant (not invalid_request) for a 4096-character code: the length cap is 4096', async () => {
      expectTokenError(await redeem(t, 'a'.repeat(4096)), 400, 'invalid_grant');
      expectTokenError(await redeem(t, 'a'.repeat(4097)), 400, 'invalid_request');
    });

    it('400, never 500, for NUL bytes in parameters', async () => {
      const code = await obtainCode(t, jar);
      expectTokenError(await redeem(t, `${code}\u0000`), 400, 'invalid_grant');
      expectTokenError(await postToken(t, { code, client_id: `${CLIENT_ID}\u0000` }), 400, 'invalid_request');
      expectTokenError(await redeem(t, code, { redirect_uri: `${REDIRECT_URI}\u0000` }), 400, 'invalid_grant');
      expectTokenError(await redeem(t, code, { me: `${ME}\u0000` }), 400, 'invalid_grant');
      expectTokenError(await redeem(t, code, { scope: 'create\u0000update' }), 400, 'invalid_grant');
      expectTokenError(await redeem(t, code, { code_verifier: `${'a'.repeat(43)}\u0000` }), 400, 'invalid_grant');
      expectIssued(await redeem(t, code));
    });

    it('4xx, never 500, for invalid UTF-8 and broken percent escapes in the form body', async () => {
      const code = await obtainCode(t, jar);
      const payloads = [
        Buffer.from(`code=%FF%FE&client_id=${encodeURIComponent(CLIENT_ID)}`),
        Buffer.concat([Buffer.from('code='), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from(`&client_id=${encodeURIComponent(CLIENT_ID)}`)]),
        Buffer.concat([Buffer.from(`code=${code}&client_id=`), Buffer.from([0xff]), Buffer.from(encodeURIComponent(CLIENT_ID))]),
        Buffer.from(`code=${code}&client_id=${encodeURIComponent(CLIENT_ID)}&scope=create%FFupdate`),
        Buffer.from(`code=${code}&client_id=${encodeURIComponent(CLIENT_ID)}&me=%E0%A4%A&redirect_uri=%`),
      ];
      for (const payload of payloads) {
        const response = await t.app.inject({
          method: 'POST',
          url: '/indieweb/token/',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload,
        });
        expect(response.statusCode, payload.toString('latin1')).toBeGreaterThanOrEqual(400);
        expect(response.statusCode, payload.toString('latin1')).toBeLessThan(500);
        expect(response.headers['content-type']).toMatch(/^(application\/x-www-form-urlencoded|application\/json|text\/plain)/);
      }
      expectIssued(await redeem(t, code));
    });

    it.each(['code', 'client_id', 'redirect_uri', 'me', 'scope', 'code_verifier', 'grant_type'])(
      '400 invalid_request when %s is repeated; the code stays usable',
      async (name) => {
        const code = await obtainCode(t, jar);
        const fields = new URLSearchParams({ code, client_id: CLIENT_ID });
        const values: Record<string, [string, string]> = {
          code: [code, 'b'],
          client_id: [CLIENT_ID, CLIENT_ID],
          redirect_uri: [REDIRECT_URI, REDIRECT_URI],
          me: [ME, ME],
          scope: ['create update', 'create update'],
          code_verifier: [VERIFIER, VERIFIER],
          grant_type: ['authorization_code', 'authorization_code'],
        };
        fields.delete(name);
        for (const value of values[name] ?? []) fields.append(name, value);
        const response = await t.app.inject({
          method: 'POST',
          url: '/indieweb/token/',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: fields.toString(),
        });
        expectTokenError(response, 400, 'invalid_request');
        expectIssued(await redeem(t, code));
      },
    );

    it('4xx, never 500, for an unparseable JSON body, an unsupported content type and an empty body', async () => {
      const json = await t.app.inject({
        method: 'POST',
        url: '/indieweb/token/',
        headers: { 'content-type': 'application/json' },
        payload: '{"code":',
      });
      const xml = await t.app.inject({
        method: 'POST',
        url: '/indieweb/token/',
        headers: { 'content-type': 'text/xml' },
        payload: '<code/>',
      });
      const empty = await t.app.inject({
        method: 'POST',
        url: '/indieweb/token/',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: '',
      });
      const none = await t.app.inject({ method: 'POST', url: '/indieweb/token/' });
      for (const response of [json, xml, empty, none]) {
        expect(response.statusCode).toBeGreaterThanOrEqual(400);
        expect(response.statusCode).toBeLessThan(500);
        expect(response.headers['content-type']).toBeDefined();
      }
      expectTokenError(empty, 400, 'invalid_request');
    });

    it.each(['PUT', 'DELETE', 'PATCH'] as const)('405 with an Allow header for %s', async (method) => {
      const response = await t.app.inject({
        method,
        url: '/indieweb/token/',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'code=a',
      });
      expect(response.statusCode).toBe(405);
      expect(response.headers.allow).toBe('GET, HEAD, POST');
      expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
    });
  });
});

describe('POST /indieweb/token/ with configured lifetimes', () => {
  let t: TestApp;
  let jar: CookieJar;
  beforeAll(async () => {
    t = await buildTestApp({ env: { INDIEWEB_TOKEN_EXPIRES_IN: '3600', INDIEWEB_AUTH_CODE_EXPIRES_IN: '60' } });
    jar = await addAlice(t);
  });
  afterAll(async () => {
    await t.close();
  });

  it('201 with expires_in from INDIEWEB_TOKEN_EXPIRES_IN, and the token expires after that many seconds', async () => {
    const code = await obtainCode(t, jar);
    const body = expectIssued(await redeem(t, code));
    expect(body.expires_in).toBe('3600');
    const json = await redeem(t, await obtainCode(t, jar), {}, { accept: 'application/json' });
    expect((json.json() as Record<string, unknown>).expires_in).toBe(3600);
    t.clock.advance(3599);
    expect((await verifyToken(t, body.access_token ?? '')).statusCode).toBe(200);
    t.clock.advance(1);
    expect((await verifyToken(t, body.access_token ?? '')).statusCode).toBe(401);
  });

  it('201 for a code 59 s old, 400 invalid_grant for a code 60 s old under INDIEWEB_AUTH_CODE_EXPIRES_IN=60', async () => {
    const young = await obtainCode(t, jar);
    t.clock.advance(59);
    expectIssued(await redeem(t, young));
    const old = await obtainCode(t, jar);
    t.clock.advance(60);
    expectTokenError(await redeem(t, old), 400, 'invalid_grant');
  });
});

describe('POST /indieweb/token/ with very long lifetimes', () => {
  /**
   * The app, or null when the configuration refuses the value (also a correct answer:
   * what must not happen is a 500 or a token or code that is dead on arrival).
   */
  async function appOrConfigError(env: Record<string, string>): Promise<TestApp | null> {
    try {
      return await buildTestApp({ env });
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return null;
    }
  }

  it.each(['INDIEWEB_TOKEN_EXPIRES_IN', 'INDIEWEB_AUTH_CODE_EXPIRES_IN'])(
    'refuses a %s beyond ten years at start, so no token or code is born broken',
    async (name) => {
      for (const value of ['999999999999', '9999999999999', String(10 * 365 * 24 * 3600 + 1)]) {
        expect(await appOrConfigError({ [name]: value })).toBeNull();
      }
    },
  );

  it('201 and a usable token with a ten-year INDIEWEB_TOKEN_EXPIRES_IN', async () => {
    const value = String(10 * 365 * 24 * 3600);
    const t = await appOrConfigError({ INDIEWEB_TOKEN_EXPIRES_IN: value });
    expect(t).not.toBeNull();
    try {
      const jar = await addAlice(t!);
      const body = expectIssued(await redeem(t!, await obtainCode(t!, jar)));
      expect(body.expires_in).toBe(value);
      expect((await verifyToken(t!, body.access_token ?? '')).statusCode).toBe(200);
    } finally {
      await t!.close();
    }
  });
});

describe('POST /indieweb/token/ and the client policy', () => {
  let dir: string;
  let validatorPath: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'indiestack-validator-'));
    validatorPath = path.join(dir, 'validator.mjs');
    writeFileSync(validatorPath, "export default (id) => id.startsWith('https://app.example');\n");
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  describe('INDIEWEB_ALLOWED_CLIENT_IDS', () => {
    let t: TestApp;
    let jar: CookieJar;
    beforeAll(async () => {
      t = await buildTestApp({ env: { INDIEWEB_ALLOWED_CLIENT_IDS: CLIENT_ID } });
      jar = await addAlice(t);
    });
    afterAll(async () => {
      await t.close();
    });

    it('201 for a client in the list', async () => {
      const code = await obtainCode(t, jar);
      expectIssued(await redeem(t, code));
    });

    it('400 invalid_request for a client_id not in the list', async () => {
      const code = await obtainCode(t, jar);
      const before = await countRows(t, 'indieweb_token');
      expectTokenError(await postToken(t, { code, client_id: OTHER_CLIENT }), 400, 'invalid_request');
      expect(await countRows(t, 'indieweb_token')).toBe(before);
    });

    it('400 invalid_request when the list no longer holds the client the code was issued to; no token, the code stays usable', async () => {
      const code = await obtainCode(t, jar);
      const before = await countRows(t, 'indieweb_token');
      const restricted = await sameDatabaseServer(t, { INDIEWEB_ALLOWED_CLIENT_IDS: OTHER_CLIENT });
      try {
        expectTokenError(await postTokenTo(restricted, { code, client_id: CLIENT_ID }), 400, 'invalid_request');
      } finally {
        await restricted.close();
      }
      expect(await countRows(t, 'indieweb_token')).toBe(before);
      expectIssued(await redeem(t, code));
    });
  });

  describe('INDIEWEB_CLIENT_ID_VALIDATOR', () => {
    it('201 for a client the validator module accepts; 400 invalid_client at GET /auth/ for one it refuses', async () => {
      const t = await buildTestApp({ env: { INDIEWEB_CLIENT_ID_VALIDATOR: validatorPath } });
      try {
        const jar = await addAlice(t);
        const code = await obtainCode(t, jar);
        expectIssued(await redeem(t, code));
        const refused = await getAuthorization(t, jar, authorizationParams({ client_id: OTHER_CLIENT, redirect_uri: OTHER_REDIRECT }));
        expect(refused.statusCode).toBe(400);
        expect(refused.body).toBe('invalid_client');
      } finally {
        await t.close();
      }
    });

    it('400 invalid_request when the validator module refuses the client at the token endpoint', async () => {
      const t = await buildTestApp();
      const guarded = await sameDatabaseServer(t, { INDIEWEB_CLIENT_ID_VALIDATOR: validatorPath });
      try {
        const jar = await addAlice(t);
        const code = await obtainCode(t, jar, { client_id: OTHER_CLIENT, redirect_uri: OTHER_REDIRECT });
        expectTokenError(await postTokenTo(guarded, { code, client_id: OTHER_CLIENT }), 400, 'invalid_request');
        expect(await countRows(t, 'indieweb_token')).toBe(0);
        const allowed = await obtainCode(t, jar);
        expect((await postTokenTo(guarded, { code: allowed, client_id: CLIENT_ID })).statusCode).toBe(201);
      } finally {
        await guarded.close();
        await t.close();
      }
    });

    it('400 invalid_client at GET /auth/ and nothing issued when the validator cannot be loaded', async () => {
      const t = await buildTestApp({ env: { INDIEWEB_CLIENT_ID_VALIDATOR: path.join(dir, 'missing.mjs') } });
      try {
        const jar = await addAlice(t);
        const response = await getAuthorization(t, jar, authorizationParams());
        expect(response.statusCode).toBe(400);
        expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
        expect(response.body).toBe('invalid_client');
        expect(await countRows(t, 'indieweb_auth_code')).toBe(0);
        expect(await countRows(t, 'indieweb_token')).toBe(0);
      } finally {
        await t.close();
      }
    });

    it('400 invalid_request at the token endpoint when the validator cannot be loaded; no token', async () => {
      const t = await buildTestApp();
      const broken = await sameDatabaseServer(t, { INDIEWEB_CLIENT_ID_VALIDATOR: path.join(dir, 'missing.mjs') });
      try {
        const jar = await addAlice(t);
        const code = await obtainCode(t, jar);
        expectTokenError(await postTokenTo(broken, { code, client_id: CLIENT_ID }), 400, 'invalid_request');
        expect(await countRows(t, 'indieweb_token')).toBe(0);
        expectIssued(await redeem(t, code));
      } finally {
        await broken.close();
        await t.close();
      }
    });
  });
});
