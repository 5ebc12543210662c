import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserService } from '../../src/accounts/user-service.js';
import { loadConfig } from '../../src/config/env.js';
import { createManualClock } from '../../src/core/clock.js';
import { registerBodyParsers } from '../../src/web/body-parsers.js';
import { defaultErrorHandler } from '../../src/web/error-handler.js';
import { createServer } from '../../src/app/server.js';
import { replyToBearerError } from '../../src/indieauth/bearer.js';
import type { DialectName } from '../../src/storage/connect.js';
import { TEST_SECRET } from '../helpers/app.js';
import { DIALECTS, openTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { CLIENT_ID, formBody, ME, PASSWORD } from '../helpers/indieauth.js';
import { testUsers } from '../helpers/users.js';

const OTHER_CLIENT = 'https://other.example/';
const BOB = 'https://bob.example/';
const TEXT = 'text/plain; charset=utf-8';
const DAY = 86_400;

interface ProbeApp {
  readonly app: FastifyInstance;
  readonly database: TestDatabase;
  readonly clock: ReturnType<typeof createManualClock>;
  readonly users: UserService;
  readonly aliceId: string;
  readonly bobId: string;
  /** Issues a token for alice (or the given user) straight through the token service. */
  issue(options?: {
    scope?: string;
    clientId?: string;
    expiresIn?: number | null;
    userId?: string;
    me?: string;
  }): Promise<{ token: string; id: string }>;
  close(): Promise<void>;
}

/**
 * A standalone server with one extra route, `/probe` (GET and POST), guarded
 * by `app.indieweb.indieauth.bearer`: it authenticates, then asserts the
 * scope named by `?scope=` when given. It lives in its own context with our
 * body parsers, as a Micropub route would.
 */
async function buildProbeApp(options: { dialect?: DialectName; env?: Record<string, string> } = {}): Promise<ProbeApp> {
  const database = await openTestDatabase(options.dialect ?? 'sqlite');
  const config = loadConfig({
    env: { INDIEWEB_BASE_URL: 'http://indiestack.test', INDIEWEB_SECRET: TEST_SECRET, INDIEWEB_DATABASE_URL: database.url, ...options.env },
  });
  const clock = createManualClock(new Date());
  const { app } = await createServer({ config, database, clock, logger: false });
  await app.register(async (child) => {
    await registerBodyParsers(child);
    child.setErrorHandler(defaultErrorHandler);
    const probe = async (request: FastifyRequest, reply: FastifyReply) => {
      const { bearer } = app.indieweb.indieauth;
      try {
        const auth = await bearer.authenticate(request);
        const required = (request.query as Record<string, unknown>).scope;
        if (typeof required === 'string') bearer.assertScope(auth, required);
        return reply.code(200).send({ userId: auth.user.id, me: auth.token.me, clientId: auth.token.clientId, scope: auth.scope });
      } catch (error) {
        const answered = replyToBearerError(error, reply);
        if (answered !== null) return answered;
        throw error;
      }
    };
    child.get('/probe', probe);
    child.post('/probe', probe);
  });
  await app.ready();
  const users = app.indieweb.users;
  if (users === null) throw new Error('standalone accounts expected');
  const cheap = testUsers({ database, clock });
  const alice = await cheap.addUser({ name: 'alice', me: [ME], password: PASSWORD });
  const bob = await cheap.addUser({ name: 'bob', me: [BOB], password: PASSWORD });
  return {
    app,
    database,
    clock,
    users,
    aliceId: alice.id,
    bobId: bob.id,
    async issue(issue = {}) {
      const userId = issue.userId ?? alice.id;
      const issued = await app.indieweb.tokens.issue({
        userId,
        clientId: issue.clientId ?? CLIENT_ID,
        me: issue.me ?? (userId === bob.id ? BOB : ME),
        scope: issue.scope ?? 'create update',
        expiresIn: issue.expiresIn === undefined ? DAY : issue.expiresIn,
      });
      return { token: issued.token, id: issued.record.id };
    },
    async close() {
      await app.close();
      await database.dispose();
    },
  };
}

const TARGETS = [
  ['GET /indieweb/token/', '/indieweb/token/'],
  ['GET /probe', '/probe'],
] as const;

function get(p: ProbeApp, url: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return p.app.inject({ method: 'GET', url, headers });
}

function withBearer(p: ProbeApp, url: string, token: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return get(p, url, { authorization: `Bearer ${token}`, ...headers });
}

function postProbe(p: ProbeApp, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return p.app.inject({
    method: 'POST',
    url: '/probe',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: new URLSearchParams(fields).toString(),
  });
}

function expect401(response: LightMyRequestResponse): void {
  expect(response.statusCode).toBe(401);
  expect(response.body).toBe('authentication error');
  expect(response.headers['content-type']).toBe(TEXT);
  expect(response.headers['cache-control']).toBe('no-store');
  expect(response.headers['www-authenticate']).toBe('Bearer');
}

function expect403(response: LightMyRequestResponse, body: 'invalid_client' | 'authorization error'): void {
  expect(response.statusCode).toBe(403);
  expect(response.body).toBe(body);
  expect(response.headers['content-type']).toBe(TEXT);
}

/** 200 through either target, for the token's user. */
function expectAccepted(response: LightMyRequestResponse, me = ME): void {
  expect(response.statusCode, response.body).toBe(200);
  if (response.headers['content-type']?.toString().startsWith('application/json')) expect((response.json() as { me: string }).me).toBe(me);
  else expect(formBody(response).me).toBe(me);
}

async function lastUsedAt(p: ProbeApp, id: string): Promise<string | null | undefined> {
  return (await p.app.indieweb.tokens.list()).find((token) => token.id === id)?.lastUsedAt;
}

describe('bearer guard (app.indieweb.indieauth.bearer)', () => {
  for (const dialect of DIALECTS) {
    describe(`401 and 403 answers on ${dialect}`, () => {
      let p: ProbeApp;
      beforeAll(async () => {
        p = await buildProbeApp({ dialect, env: { INDIEWEB_ALLOWED_CLIENT_IDS: CLIENT_ID } });
      });
      afterAll(async () => {
        await p.close();
      });

      it.each(TARGETS)('200 for a valid token through %s', async (_name, url) => {
        const { token } = await p.issue();
        expectAccepted(await withBearer(p, url, token));
      });

      it('200 form-encoded me, client_id and scope at GET /indieweb/token/', async () => {
        const { token } = await p.issue({ scope: 'create  media create' });
        const response = await withBearer(p, '/indieweb/token/', token);
        expect(response.statusCode).toBe(200);
        expect(response.headers['content-type']).toBe('application/x-www-form-urlencoded; charset=utf-8');
        expect(response.headers['cache-control']).toBe('no-store');
        expect(formBody(response)).toEqual({ me: ME, client_id: CLIENT_ID, scope: 'create media' });
      });

      it.each(TARGETS)('401 authentication error without a token through %s', async (_name, url) => {
        expect401(await get(p, url));
      });

      it.each(TARGETS)('401 authentication error for an unknown token through %s', async (_name, url) => {
        const { token } = await p.issue();
        expect401(await withBearer(p, url, `${token}x`));
        expect401(await withBearer(p, url, 'not-a-token'));
      });

      it.each(TARGETS)('401 authentication error for a revoked token through %s', async (_name, url) => {
        const { token, id } = await p.issue();
        expectAccepted(await withBearer(p, url, token));
        await p.app.indieweb.tokens.revoke(id);
        expect401(await withBearer(p, url, token));
      });

      it.each(TARGETS)('401 authentication error once the token reaches expires_at through %s', async (_name, url) => {
        const { token } = await p.issue({ expiresIn: 60 });
        p.clock.advance(59);
        expectAccepted(await withBearer(p, url, token));
        p.clock.advance(1);
        expect401(await withBearer(p, url, token));
      });

      it.each(TARGETS)('401 authentication error when the owner account is disabled through %s', async (_name, url) => {
        const { token } = await p.issue({ userId: p.bobId });
        expectAccepted(await withBearer(p, url, token), BOB);
        await p.users.setActive('bob', false);
        try {
          expect401(await withBearer(p, url, token));
        } finally {
          await p.users.setActive('bob', true);
        }
        expectAccepted(await withBearer(p, url, token), BOB);
      });

      it.each(TARGETS)(
        '403 invalid_client when INDIEWEB_ALLOWED_CLIENT_IDS excludes the stored client_id through %s',
        async (_name, url) => {
          const { token } = await p.issue({ clientId: OTHER_CLIENT });
          expect403(await withBearer(p, url, token), 'invalid_client');
        },
      );

      it('403 authorization error when the token lacks the required scope', async () => {
        const { token } = await p.issue({ scope: 'createXYZ' });
        expect403(await withBearer(p, '/probe?scope=create', token), 'authorization error');
      });
    });
  }

  describe('where the token comes from', () => {
    let p: ProbeApp;
    beforeAll(async () => {
      p = await buildProbeApp();
    });
    afterAll(async () => {
      await p.close();
    });

    it.each(TARGETS)('200 for the Authorization header with the scheme in any case and extra blanks through %s', async (_name, url) => {
      const { token } = await p.issue();
      for (const value of [`Bearer ${token}`, `bearer ${token}`, `BEARER ${token}`, `BeArEr \t${token} `]) {
        expectAccepted(await get(p, url, { authorization: value }));
      }
    });

    it.each(TARGETS)('401 authentication error for a malformed Authorization header through %s', async (_name, url) => {
      const { token } = await p.issue();
      for (const value of [token, `Basic ${token}`, 'Bearer', 'Bearer ', `Bearer ${token} extra`, `Bearer${token}`, `Token ${token}`]) {
        expect401(await get(p, url, { authorization: value }));
      }
    });

    it('200 for a POST body field Authorization=Bearer <token>, the scheme in any case', async () => {
      const { token } = await p.issue();
      expectAccepted(await postProbe(p, { Authorization: `Bearer ${token}` }));
      expectAccepted(await postProbe(p, { Authorization: `bearer ${token}` }));
    });

    it('200 for an access_token form field', async () => {
      const { token } = await p.issue();
      expectAccepted(await postProbe(p, { access_token: token, h: 'entry' }));
    });

    it('401 authentication error for a body field Authorization without the Bearer scheme, or an empty access_token', async () => {
      const { token } = await p.issue();
      expect401(await postProbe(p, { Authorization: token }));
      expect401(await postProbe(p, { access_token: '' }));
    });

    it('401 authentication error for a POST with no token anywhere', async () => {
      expect401(await postProbe(p, { h: 'entry', content: 'hello' }));
    });

    it('401 authentication error for an unknown token in the body', async () => {
      expect401(await postProbe(p, { access_token: 'not-a-token' }));
      expect401(await postProbe(p, { Authorization: 'Bearer not-a-token' }));
    });

    it('200 when the header and the body carry the same token', async () => {
      const { token } = await p.issue();
      expectAccepted(await postProbe(p, { access_token: token }, { authorization: `Bearer ${token}` }));
      expectAccepted(await postProbe(p, { Authorization: `Bearer ${token}` }, { authorization: `Bearer ${token}` }));
      expectAccepted(await postProbe(p, { Authorization: `Bearer ${token}`, access_token: token }, { authorization: `bearer ${token}` }));
    });

    it('400 invalid_request when the header and the body carry different tokens', async () => {
      const first = await p.issue();
      const second = await p.issue();
      for (const [header, body] of [
        [first.token, { access_token: second.token }],
        [first.token, { Authorization: `Bearer ${second.token}` }],
        [first.token, { access_token: 'not-a-token' }],
        ['not-a-token', { access_token: first.token }],
      ] as const) {
        const response = await postProbe(p, body, { authorization: `Bearer ${header}` });
        expect(response.statusCode).toBe(400);
        expect(response.body).toBe('invalid_request');
        expect(response.headers['content-type']).toBe(TEXT);
      }
    });

    it('200 with a token stored before expiry support (expires_at null) a year later', async () => {
      const { token, id } = await p.issue({ expiresIn: null });
      const stored = await p.database.db.selectFrom('indieweb_token').select('expires_at').where('id', '=', id).executeTakeFirstOrThrow();
      expect(stored.expires_at).toBeNull();
      p.clock.advance(365 * DAY);
      for (const [, url] of TARGETS) expectAccepted(await withBearer(p, url, token));
    });

    it('200 for a stored client_id that is not structurally valid (stored values are not re-validated)', async () => {
      const token = 'legacy-token-with-an-odd-client-id-0000000000';
      const now = p.clock.now().toISOString();
      await p.database.db
        .insertInto('indieweb_token')
        .values({
          id: 'legacy-odd-client',
          token_hash: createHash('sha256').update(token).digest('base64url'),
          user_id: p.aliceId,
          client_id: 'ftp://legacy.example/app#x',
          me: ME,
          scope: 'create',
          created_at: now,
          expires_at: null,
        })
        .execute();
      const response = await withBearer(p, '/indieweb/token/', token);
      expect(response.statusCode).toBe(200);
      expect(formBody(response)).toEqual({ me: ME, client_id: 'ftp://legacy.example/app#x', scope: 'create' });
      expect((await withBearer(p, '/probe?scope=create', token)).statusCode).toBe(200);
    });
  });

  describe('X-Forwarded-Authorization', () => {
    it.each(TARGETS)(
      '401 authentication error for X-Forwarded-Authorization alone when the proxy is not trusted, through %s',
      async (_name, url) => {
        const p = await buildProbeApp();
        try {
          const { token } = await p.issue();
          expect401(await get(p, url, { 'x-forwarded-authorization': `Bearer ${token}` }));
        } finally {
          await p.close();
        }
      },
    );

    describe('behind a trusted proxy (INDIEWEB_TRUST_PROXY=true)', () => {
      let p: ProbeApp;
      beforeAll(async () => {
        p = await buildProbeApp({ env: { INDIEWEB_TRUST_PROXY: 'true' } });
      });
      afterAll(async () => {
        await p.close();
      });

      it.each(TARGETS)('200 for X-Forwarded-Authorization when Authorization is absent, through %s', async (_name, url) => {
        const { token } = await p.issue();
        expectAccepted(await get(p, url, { 'x-forwarded-authorization': `Bearer ${token}` }));
      });

      it.each(TARGETS)(
        '401 authentication error when Authorization is present and unknown, whatever X-Forwarded-Authorization holds, through %s',
        async (_name, url) => {
          const { token } = await p.issue();
          expect401(await get(p, url, { authorization: 'Bearer not-a-token', 'x-forwarded-authorization': `Bearer ${token}` }));
        },
      );

      it.each(TARGETS)('200 when Authorization is valid and X-Forwarded-Authorization is not, through %s', async (_name, url) => {
        const { token } = await p.issue();
        expectAccepted(await get(p, url, { authorization: `Bearer ${token}`, 'x-forwarded-authorization': 'Bearer not-a-token' }));
      });

      it('401 authentication error for a malformed X-Forwarded-Authorization', async () => {
        const { token } = await p.issue();
        expect401(await get(p, '/probe', { 'x-forwarded-authorization': `Basic ${token}` }));
      });
    });
  });

  describe('client policy on every request', () => {
    let dir: string;
    const flag = '__indiestackBearerTestAllow';
    const globals = globalThis as unknown as Record<string, unknown>;
    const modules: Record<string, string> = {
      prefix: "export default (id) => id.startsWith('https://app.example');\n",
      throws: "export default () => { throw new Error('validator failed'); };\n",
      truthy: "export default () => 'yes';\n",
      named: "export const allowClient = async (id) => id === 'https://app.example/';\n",
      toggled: `export default () => globalThis.${flag} === true;\n`,
    };
    const modulePath = (name: string) => path.join(dir, `${name}.mjs`);
    beforeAll(() => {
      dir = mkdtempSync(path.join(os.tmpdir(), 'indiestack-bearer-validator-'));
      for (const [name, source] of Object.entries(modules)) writeFileSync(modulePath(name), source);
    });
    afterAll(() => {
      rmSync(dir, { recursive: true, force: true });
      delete globals[flag];
    });

    it.each(TARGETS)(
      '200 for a client the validator module accepts, 403 invalid_client for one it refuses, through %s',
      async (_name, url) => {
        const p = await buildProbeApp({ env: { INDIEWEB_CLIENT_ID_VALIDATOR: modulePath('prefix') } });
        try {
          expectAccepted(await withBearer(p, url, (await p.issue()).token));
          expect403(await withBearer(p, url, (await p.issue({ clientId: OTHER_CLIENT })).token), 'invalid_client');
        } finally {
          await p.close();
        }
      },
    );

    it('200 and 403 invalid_client with a named export (module#export)', async () => {
      const p = await buildProbeApp({ env: { INDIEWEB_CLIENT_ID_VALIDATOR: `${modulePath('named')}#allowClient` } });
      try {
        expectAccepted(await withBearer(p, '/probe', (await p.issue()).token));
        expect403(await withBearer(p, '/probe', (await p.issue({ clientId: 'https://app.example/other' })).token), 'invalid_client');
      } finally {
        await p.close();
      }
    });

    it.each(TARGETS)(
      '403 invalid_client for every token when the validator cannot be loaded (fail closed), through %s',
      async (_name, url) => {
        const p = await buildProbeApp({ env: { INDIEWEB_CLIENT_ID_VALIDATOR: modulePath('missing') } });
        try {
          expect403(await withBearer(p, url, (await p.issue()).token), 'invalid_client');
          expect403(await withBearer(p, url, (await p.issue({ clientId: OTHER_CLIENT, scope: 'create' })).token), 'invalid_client');
        } finally {
          await p.close();
        }
      },
    );

    it('403 invalid_client when the module has no such export (fail closed)', async () => {
      const p = await buildProbeApp({ env: { INDIEWEB_CLIENT_ID_VALIDATOR: `${modulePath('named')}#noSuchExport` } });
      try {
        expect403(await withBearer(p, '/probe', (await p.issue()).token), 'invalid_client');
      } finally {
        await p.close();
      }
    });

    it('403 invalid_client when the validator throws or returns something other than true', async () => {
      for (const name of ['throws', 'truthy']) {
        const p = await buildProbeApp({ env: { INDIEWEB_CLIENT_ID_VALIDATOR: modulePath(name) } });
        try {
          expect403(await withBearer(p, '/probe', (await p.issue()).token), 'invalid_client');
        } finally {
          await p.close();
        }
      }
    });

    it('200, then 403 invalid_client, then 200 as the validator changes its answer for the same token', async () => {
      const p = await buildProbeApp({ env: { INDIEWEB_CLIENT_ID_VALIDATOR: modulePath('toggled') } });
      try {
        const { token } = await p.issue();
        globals[flag] = true;
        expectAccepted(await withBearer(p, '/probe', token));
        globals[flag] = false;
        expect403(await withBearer(p, '/probe', token), 'invalid_client');
        globals[flag] = true;
        expectAccepted(await withBearer(p, '/probe', token));
      } finally {
        delete globals[flag];
        await p.close();
      }
    });

    it('401 authentication error, not 403, for an unknown token when the client policy refuses everything', async () => {
      const p = await buildProbeApp({ env: { INDIEWEB_CLIENT_ID_VALIDATOR: modulePath('missing') } });
      try {
        expect401(await withBearer(p, '/probe', 'not-a-token'));
      } finally {
        await p.close();
      }
    });
  });

  describe('scope', () => {
    let p: ProbeApp;
    beforeAll(async () => {
      p = await buildProbeApp();
    });
    afterAll(async () => {
      await p.close();
    });

    it.each([
      ['createXYZ', 'create'],
      ['Create', 'create'],
      ['xcreate', 'create'],
      ['create-post', 'create'],
      ['draft', 'create'],
      ['post', 'update'],
      ['create update', 'media'],
      ['', 'create'],
    ])('403 authorization error when the token scope "%s" is asked for %s', async (scope, required) => {
      const { token } = await p.issue({ scope });
      expect403(await withBearer(p, `/probe?scope=${required}`, token), 'authorization error');
    });

    it.each([
      ['create', 'create'],
      ['post', 'create'],
      ['draft create', 'create'],
      ['update  media', 'media'],
      ['createXYZ create', 'create'],
      ['create foo:bar', 'foo:bar'],
    ])('200 when the token scope "%s" is asked for %s', async (scope, required) => {
      const { token } = await p.issue({ scope });
      const response = await withBearer(p, `/probe?scope=${encodeURIComponent(required)}`, token);
      expect(response.statusCode, response.body).toBe(200);
    });

    it('200 and unknown scopes kept as they were stored', async () => {
      const { token } = await p.issue({ scope: 'create foo:bar x-custom draft' });
      const response = await withBearer(p, '/indieweb/token/', token);
      expect(response.statusCode).toBe(200);
      expect(formBody(response).scope).toBe('create foo:bar x-custom draft');
      expect((await withBearer(p, '/probe', token)).json()).toMatchObject({ scope: 'create foo:bar x-custom draft' });
    });

    it('403 authorization error only after authentication: an unknown token with a scope request is 401', async () => {
      expect401(await withBearer(p, '/probe?scope=create', 'not-a-token'));
    });
  });

  describe('last use', () => {
    let p: ProbeApp;
    beforeAll(async () => {
      p = await buildProbeApp();
    });
    afterAll(async () => {
      await p.close();
    });

    it.each(TARGETS)('200 records the time of a successful request as lastUsedAt, through %s', async (_name, url) => {
      const { token, id } = await p.issue();
      expect(await lastUsedAt(p, id)).toBeNull();
      p.clock.advance(5);
      const at = p.clock.now().toISOString();
      expectAccepted(await withBearer(p, url, token));
      expect(await lastUsedAt(p, id)).toBe(at);
    });

    it('200 updates lastUsedAt at most once a minute', async () => {
      const { token, id } = await p.issue();
      const first = p.clock.now().toISOString();
      expectAccepted(await withBearer(p, '/probe', token));
      p.clock.advance(59);
      expectAccepted(await withBearer(p, '/probe', token));
      expect(await lastUsedAt(p, id)).toBe(first);
      p.clock.advance(1);
      const later = p.clock.now().toISOString();
      expectAccepted(await withBearer(p, '/probe', token));
      expect(await lastUsedAt(p, id)).toBe(later);
    });

    it('401 leaves lastUsedAt untouched for a revoked or expired token', async () => {
      const revoked = await p.issue();
      await p.app.indieweb.tokens.revoke(revoked.id);
      expect401(await withBearer(p, '/probe', revoked.token));
      expect(await lastUsedAt(p, revoked.id)).toBeNull();
      const expiring = await p.issue({ expiresIn: 10 });
      p.clock.advance(10);
      expect401(await withBearer(p, '/probe', expiring.token));
      expect(await lastUsedAt(p, expiring.id)).toBeNull();
    });
  });
});
