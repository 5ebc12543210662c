import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  callsOf,
  createSpyHandler,
  createViaJson,
  ENTRIES,
  INVALID_REQUEST,
  micropubGet,
  MICROPUB,
  mountedApp,
  postForm,
  postJson,
  standaloneApp,
  type MicropubTestApp,
} from '../helpers/micropub.js';

function expectAuthorizationError(response: LightMyRequestResponse): void {
  expect(response.statusCode).toBe(403);
  expect(response.headers['content-type']).toMatch(/^text\/plain/);
  expect(response.body).toBe('authorization error');
}

function expectAuthenticationError(response: LightMyRequestResponse): void {
  expect(response.statusCode).toBe(401);
  expect(response.headers['content-type']).toMatch(/^text\/plain/);
  expect(response.headers['cache-control']).toBe('no-store');
  expect(response.headers['www-authenticate']).toBe('Bearer');
  expect(response.body).toBe('authentication error');
}

describe('POST /indieweb/micropub/ scope enforcement', () => {
  let t: MicropubTestApp;
  let owner: string;
  let url: string;
  const spy = createSpyHandler();
  beforeAll(async () => {
    t = await mountedApp({ handler: spy.handler });
    owner = await t.token('create update delete undelete');
    url = await createViaJson(t.app, owner, { content: ['scoped'], 'mp-slug': ['scoped'] });
  });
  beforeEach(() => {
    spy.calls.length = 0;
  });
  afterAll(async () => {
    await t.close();
  });

  it.each(['create', 'post', 'profile create', 'post media'])('201 creates with scope %j', async (scope) => {
    const token = await t.token(scope);
    expect((await postForm(t.app, token, { content: 'x' })).statusCode).toBe(201);
    expect((await postJson(t.app, token, { type: ['h-entry'], properties: { content: ['x'] } })).statusCode).toBe(201);
  });

  it.each(['createXYZ', 'Create', 'draft', 'posts', 'update delete undelete media', ''])(
    '403 authorization error for a create with scope %j',
    async (scope) => {
      const token = await t.token(scope);
      expectAuthorizationError(await postForm(t.app, token, { content: 'x' }));
      expectAuthorizationError(await postJson(t.app, token, { type: ['h-entry'], properties: { content: ['x'] } }));
      expect(spy.calls).toEqual([]);
    },
  );

  it('403 authorization error (not 400) for a create without scope that submits uid', async () => {
    const token = await t.token('update');
    expectAuthorizationError(await postForm(t.app, token, { content: 'x', uid: 'u' }));
    expectAuthorizationError(
      await postJson(t.app, token, { type: ['h-entry'], properties: { photo: ['javascript:alert(1)'], author: ['a'] } }),
    );
  });

  it('403 authorization error for a draft-only token even with post-status=draft', async () => {
    expectAuthorizationError(await postForm(t.app, await t.token('draft'), { content: 'x', 'post-status': 'draft' }));
  });

  it.each([
    ['update', { replace: { content: ['x'] } }],
    ['delete', {}],
    ['undelete', {}],
  ])('403 authorization error for action=%s without its scope', async (action, extra) => {
    const others = ['create', 'update', 'delete', 'undelete', 'media', 'post', `${action}s`].filter((name) => name !== action).join(' ');
    const token = await t.token(others);
    expectAuthorizationError(await postJson(t.app, token, { action, url, ...extra }));
    if (action !== 'update') expectAuthorizationError(await postForm(t.app, token, { action, url }));
    expect(spy.calls).toEqual([]);
  });

  it.each([
    ['update', 'a form-encoded body', (token: string) => postForm(t.app, token, { action: 'update', url })],
    ['update', 'a uid replacement', (token: string) => postJson(t.app, token, { action: 'update', url, replace: { uid: ['x'] } })],
    ['update', 'no operations', (token: string) => postJson(t.app, token, { action: 'update', url })],
    [
      'update',
      'a javascript: photo',
      (token: string) => postJson(t.app, token, { action: 'update', url, add: { photo: ['javascript:alert(1)'] } }),
    ],
    ['delete', 'a cross-host url', (token: string) => postForm(t.app, token, { action: 'delete', url: 'https://evil.example/x' })],
    ['delete', 'an unknown url', (token: string) => postJson(t.app, token, { action: 'delete', url: `${ENTRIES}unknown` })],
    ['undelete', 'an empty url', (token: string) => postForm(t.app, token, { action: 'undelete', url: '' })],
    ['undelete', 'a missing url', (token: string) => postJson(t.app, token, { action: 'undelete' })],
  ])('403 authorization error before dispatch for action=%s with %s', async (_action, _label, send) => {
    expectAuthorizationError(await send(await t.token('create')));
    expect(spy.calls).toEqual([]);
  });

  it('204 update, delete and undelete with exactly their scopes', async () => {
    expect((await postJson(t.app, await t.token('update'), { action: 'update', url, replace: { content: ['updated'] } })).statusCode).toBe(
      204,
    );
    expect((await postForm(t.app, await t.token('delete'), { action: 'delete', url })).statusCode).toBe(204);
    expect((await postForm(t.app, await t.token('undelete'), { action: 'undelete', url })).statusCode).toBe(204);
    expect(spy.calls.map((call) => call.operation)).toEqual(['updateEntry', 'deleteEntry', 'undeleteEntry']);
  });
});

describe('GET /indieweb/micropub/ scope enforcement', () => {
  let t: MicropubTestApp;
  let url: string;
  const spy = createSpyHandler();
  beforeAll(async () => {
    t = await mountedApp({ handler: spy.handler });
    url = await createViaJson(t.app, await t.token('create'), { content: ['x'] });
  });
  beforeEach(() => {
    spy.calls.length = 0;
  });
  afterAll(async () => {
    await t.close();
  });

  it.each(['create delete undelete media', 'updates', 'draft', ''])(
    '403 authorization error for q=source (single and list) with scope %j',
    async (scope) => {
      const token = await t.token(scope);
      expectAuthorizationError(await micropubGet(t.app, token, { q: 'source', url }));
      expectAuthorizationError(await micropubGet(t.app, token, { q: 'source' }));
      expect(spy.calls).toEqual([]);
    },
  );

  it('403 authorization error before dispatch for q=source with an empty url or a malformed limit', async () => {
    const token = await t.token('create');
    expectAuthorizationError(await micropubGet(t.app, token, { q: 'source', url: '' }));
    expectAuthorizationError(await micropubGet(t.app, token, { q: 'source', limit: '-1' }));
  });

  it('200 q=source (single and list) with the update scope', async () => {
    const token = await t.token('update');
    expect((await micropubGet(t.app, token, { q: 'source', url })).statusCode).toBe(200);
    expect((await micropubGet(t.app, token, { q: 'source' })).statusCode).toBe(200);
  });

  it.each([
    ['without q', {}],
    ['q=config', { q: 'config' }],
    ['q=syndicate-to', { q: 'syndicate-to' }],
  ])('200 %s with a token that has no scope at all', async (_label, query) => {
    expect((await micropubGet(t.app, await t.token(''), query)).statusCode).toBe(200);
  });

  it.each(['category', 'channel', 'media-endpoint', 'post-types'])('200 q=%s with a token that has no scope at all', async (q) => {
    expect((await micropubGet(t.app, await t.token(''), { q })).statusCode).toBe(200);
  });
});

describe('/indieweb/micropub/ authentication', () => {
  let t: MicropubTestApp;
  beforeAll(async () => {
    t = await standaloneApp();
  });
  afterAll(async () => {
    await t.close();
  });

  const requests = {
    'GET without q': (token: string | null, headers: Record<string, string> = {}) => micropubGet(t.app, token, {}, headers),
    'GET q=config': (token: string | null, headers: Record<string, string> = {}) => micropubGet(t.app, token, { q: 'config' }, headers),
    'GET q=source': (token: string | null, headers: Record<string, string> = {}) => micropubGet(t.app, token, { q: 'source' }, headers),
    'POST create': (token: string | null, headers: Record<string, string> = {}) => postForm(t.app, token, { content: 'x' }, headers),
    'POST action=delete': (token: string | null, headers: Record<string, string> = {}) =>
      postForm(t.app, token, { action: 'delete', url: `${ENTRIES}x` }, headers),
  };
  const names = Object.keys(requests) as (keyof typeof requests)[];

  it.each(names)('401 authentication error for %s without a token', async (name) => {
    expectAuthenticationError(await requests[name](null));
  });

  it.each(names)('401 authentication error for %s with an unknown token', async (name) => {
    expectAuthenticationError(await requests[name]('not-a-real-token'));
  });

  it.each(names)('401 authentication error for %s with a malformed Authorization header', async (name) => {
    const token = await t.token();
    expectAuthenticationError(await requests[name](null, { authorization: `Basic ${token}` }));
    expectAuthenticationError(await requests[name](null, { authorization: 'Bearer' }));
  });

  it.each(names)('401 authentication error for %s with an expired token', async (name) => {
    const token = await t.token('create update delete undelete', 60);
    expect((await micropubGet(t.app, token)).statusCode).toBe(200);
    t.clock.advance(61);
    expectAuthenticationError(await requests[name](token));
  });

  it.each(names)('401 authentication error for %s with a revoked token', async (name) => {
    const token = await t.token();
    const record = (await t.app.indieweb.tokens.findByToken(token))!;
    await t.app.indieweb.tokens.revoke(record.id);
    expectAuthenticationError(await requests[name](token));
  });

  it('401 authentication error once the owner account is inactive, 200 again when active', async () => {
    const token = await t.token();
    await t.app.indieweb.users!.setActive('alice', false);
    try {
      for (const name of names) expectAuthenticationError(await requests[name](token));
    } finally {
      await t.app.indieweb.users!.setActive('alice', true);
    }
    expect((await micropubGet(t.app, token)).statusCode).toBe(200);
  });

  it('200 for a token without expiry (legacy or personal)', async () => {
    const token = await t.token('create', null);
    t.clock.advance(10 * 365 * 86400);
    expect((await micropubGet(t.app, token)).statusCode).toBe(200);
  });

  it('200 with the token in a lowercase bearer header', async () => {
    const token = await t.token();
    expect(
      (await t.app.inject({ method: 'GET', url: MICROPUB, headers: { host: 'indiestack.test', authorization: `bearer ${token}` } }))
        .statusCode,
    ).toBe(200);
  });
});

describe('/indieweb/micropub/ client policy', () => {
  it('403 invalid_client when INDIEWEB_ALLOWED_CLIENT_IDS does not list the stored client_id', async () => {
    const t = await standaloneApp({ INDIEWEB_ALLOWED_CLIENT_IDS: 'https://other-app.example/' });
    try {
      const token = await t.token();
      for (const response of [
        await micropubGet(t.app, token),
        await micropubGet(t.app, token, { q: 'config' }),
        await postForm(t.app, token, { content: 'x' }),
      ]) {
        expect(response.statusCode).toBe(403);
        expect(response.body).toBe('invalid_client');
      }
    } finally {
      await t.close();
    }
  });

  it('403 invalid_client when the client validator cannot be imported (fail closed)', async () => {
    const t = await standaloneApp({ INDIEWEB_CLIENT_ID_VALIDATOR: '/nonexistent/indiestack-validator.mjs#allow' });
    try {
      const response = await micropubGet(t.app, await t.token());
      expect(response.statusCode).toBe(403);
      expect(response.body).toBe('invalid_client');
    } finally {
      await t.close();
    }
  });
});

describe('POST /indieweb/micropub/ body checks before scope', () => {
  it('400 invalid_request for an unparseable JSON action with a token lacking the scope', async () => {
    const spy = createSpyHandler();
    const t = await mountedApp({ handler: spy.handler });
    try {
      const token = await t.token('');
      const response = await postJson(t.app, token, '{"action":"delete",', { raw: true });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual(INVALID_REQUEST);
      expect(callsOf(spy.calls, 'deleteEntry')).toEqual([]);
    } finally {
      await t.close();
    }
  });
});
