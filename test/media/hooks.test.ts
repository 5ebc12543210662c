/**
 * Media listing, metadata and delete through the handler hooks: the
 * built-in handler on both backends, a handler without hooks (501), a
 * handler with its own hooks, and the URL policy (kind `media`).
 * @see SPEC.md "Media endpoint", "Optional URL policy", "Errors" (Micropub and media)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HandlerValueError } from '../../src/contracts/handler-errors.js';
import type { HostUser } from '../../src/contracts/accounts.js';
import type { MicropubHandler } from '../../src/contracts/micropub-handler.js';
import type { MediaObject, Page, PageRequest } from '../../src/contracts/micropub-types.js';
import type { UrlPolicyKind } from '../../src/contracts/policies.js';
import { createMemoryHandler } from '../../src/content/handlers/memory.js';
import {
  BACKENDS,
  BASE_URL,
  FILES,
  INVALID_REQUEST,
  keyOf,
  type MediaApp,
  MEDIA,
  mediaGet,
  mediaPostForm,
  mountedMediaApp,
  NOT_IMPLEMENTED,
  filePart,
  postMultipart,
  randomPng,
  type S3Fixture,
  standaloneMediaApp,
  startS3,
  upload,
} from '../helpers/media.js';

let s3: S3Fixture;
beforeAll(async () => {
  s3 = await startS3();
});
afterAll(async () => {
  await s3.close();
});

function mediaObject(url: string, name: string, type: string): MediaObject {
  return { properties: { url: [url], name: [name], 'media-type': [type] } };
}

async function uploaded(t: MediaApp, token: string, content: Buffer, filename: string, type: string): Promise<string> {
  const response = await upload(t.app, token, content, filename, type);
  if (response.statusCode !== 201) throw new Error(`upload answered ${response.statusCode}: ${response.body}`);
  return response.headers.location as string;
}

/** Whether the stored file is still reachable where its URL points. */
async function isServed(t: MediaApp, url: string): Promise<number> {
  if (t.backend.kind === 'local') return (await t.app.inject({ method: 'GET', url: new URL(url).pathname })).statusCode;
  return (await fetch(url)).status;
}

// both built-in handlers with media hooks: the in-memory one and the database one (issue 18)
const BUILT_IN = BACKENDS.flatMap((backend) => (['memory', 'database'] as const).map((handler) => [backend, handler] as const));

describe.each(BUILT_IN)('GET and POST /indieweb/media/ with the built-in handler (%s storage, %s handler)', (backend, handler) => {
  let t: MediaApp;
  let token: string;
  let sunset: string;
  let beach: string;
  let song: string;
  let bob: HostUser;
  let bobsFile: string;
  beforeAll(async () => {
    t = await standaloneMediaApp(backend, s3, { INDIEWEB_MICROPUB_HANDLER: handler });
    token = await t.token('media');
    sunset = await uploaded(t, token, randomPng(), 'sunset.png', 'image/png');
    t.clock.advance(1);
    beach = await uploaded(t, token, FILES.jpeg, 'beach.jpg', 'image/jpeg');
    t.clock.advance(1);
    song = await uploaded(t, token, FILES.mp3, 'song.mp3', 'audio/mpeg');
    t.clock.advance(1);
    bob = await t.addUser('bob');
    bobsFile = await uploaded(t, await t.token('media', bob), randomPng(), 'bobs-sunset.png', 'image/png');
  });
  afterAll(async () => {
    await t.close();
  });

  it("200 q=source lists the user's media newest first with paging and total", async () => {
    const response = await mediaGet(t.app, token, { q: 'source' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    const body = response.json() as { items: MediaObject[]; paging: { limit: number | null; offset: number; total?: number } };
    expect(body.items).toEqual([
      mediaObject(song, 'song.mp3', 'audio/mpeg'),
      mediaObject(beach, 'beach.jpg', 'image/jpeg'),
      mediaObject(sunset, 'sunset.png', 'image/png'),
    ]);
    expect(body.paging.offset).toBe(0);
    expect(body.paging.total).toBe(3);
    // Paging object: limit is an integer or null
    expect(body.paging.limit === null || (Number.isInteger(body.paging.limit) && body.paging.limit >= 3)).toBe(true);
  });

  it('200 q=source with limit and offset pages through the list, total unchanged', async () => {
    const first = await mediaGet(t.app, token, { q: 'source', limit: '2', offset: '0' });
    expect(first.json()).toEqual({
      items: [mediaObject(song, 'song.mp3', 'audio/mpeg'), mediaObject(beach, 'beach.jpg', 'image/jpeg')],
      paging: { limit: 2, offset: 0, total: 3 },
    });
    const second = await mediaGet(t.app, token, { q: 'source', limit: '2', offset: '2' });
    expect(second.json()).toEqual({ items: [mediaObject(sunset, 'sunset.png', 'image/png')], paging: { limit: 2, offset: 2, total: 3 } });
    const past = await mediaGet(t.app, token, { q: 'source', limit: '2', offset: '5' });
    expect(past.json()).toEqual({ items: [], paging: { limit: 2, offset: 5, total: 3 } });
    const none = await mediaGet(t.app, token, { q: 'source', limit: '0' });
    expect(none.json()).toEqual({ items: [], paging: { limit: 0, offset: 0, total: 3 } });
  });

  it('200 q=source with filter narrows the list (case-insensitive substring) before paging', async () => {
    const byName = await mediaGet(t.app, token, { q: 'source', filter: 'SUNSET' });
    expect(byName.json()).toMatchObject({ items: [mediaObject(sunset, 'sunset.png', 'image/png')], paging: { offset: 0, total: 1 } });
    const byType = await mediaGet(t.app, token, { q: 'source', filter: 'image/', limit: '1', offset: '1' });
    expect(byType.json()).toEqual({ items: [mediaObject(sunset, 'sunset.png', 'image/png')], paging: { limit: 1, offset: 1, total: 2 } });
    const nothing = await mediaGet(t.app, token, { q: 'source', filter: 'no such thing' });
    expect(nothing.json()).toMatchObject({ items: [], paging: { total: 0 } });
  });

  it("200 q=source never lists another user's media", async () => {
    const mine = await mediaGet(t.app, token, { q: 'source' });
    expect(JSON.stringify(mine.json())).not.toContain(bobsFile);
    const bobs = await mediaGet(t.app, await t.token('media', bob), { q: 'source' });
    expect(bobs.json()).toMatchObject({ items: [mediaObject(bobsFile, 'bobs-sunset.png', 'image/png')], paging: { total: 1 } });
  });

  it('200 q=source&url= answers the media object {properties: {url, name, media-type}}', async () => {
    const response = await mediaGet(t.app, token, { q: 'source', url: beach });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual(mediaObject(beach, 'beach.jpg', 'image/jpeg'));
  });

  it("400 invalid_request for q=source&url= naming another user's media", async () => {
    const response = await mediaGet(t.app, token, { q: 'source', url: bobsFile });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(INVALID_REQUEST);
  });

  it.each([
    ['empty', ''],
    ['unknown', `${BASE_URL}/indieweb/media/AAAAAAAAAAAAAAAAAAAAAAAA.png`],
    ['not a URL', 'sunset.png'],
  ])('400 invalid_request for q=source with an %s url', async (_label, url) => {
    const response = await mediaGet(t.app, token, { q: 'source', url });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(INVALID_REQUEST);
  });

  it.each([
    ['limit', '-1'],
    ['limit', '1.5'],
    ['limit', 'ten'],
    ['limit', ''],
    ['offset', '-1'],
    ['offset', '0.5'],
    ['offset', 'x'],
  ])('400 invalid_request for q=source with %s=%j', async (name, value) => {
    const response = await mediaGet(t.app, token, { q: 'source', [name]: value });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(INVALID_REQUEST);
  });

  it('401 authentication error for q=source without a token', async () => {
    const response = await mediaGet(t.app, null, { q: 'source' });
    expect(response.statusCode).toBe(401);
    expect(response.body).toBe('authentication error');
  });

  it.each([
    ['list', { q: 'source' }],
    ['metadata', { q: 'source', url: 'SUNSET' }],
  ])('403 authorization error for the %s query without media scope', async (_label, query) => {
    const resolved = Object.fromEntries(Object.entries(query).map(([name, value]) => [name, value === 'SUNSET' ? sunset : value]));
    const response = await mediaGet(t.app, await t.token('create update delete'), resolved);
    expect(response.statusCode).toBe(403);
    expect(response.body).toBe('authorization error');
  });

  it('403 authorization error for action=delete without media scope, and the file stays', async () => {
    const response = await mediaPostForm(t.app, await t.token('create update delete'), { action: 'delete', url: sunset });
    expect(response.statusCode).toBe(403);
    expect(response.body).toBe('authorization error');
    expect(await isServed(t, sunset)).toBe(200);
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['unknown', `${BASE_URL}/indieweb/media/AAAAAAAAAAAAAAAAAAAAAAAA.png`],
  ])('400 invalid_request for action=delete with a %s url', async (_label, url) => {
    const response = await mediaPostForm(t.app, token, url === undefined ? { action: 'delete' } : { action: 'delete', url });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(INVALID_REQUEST);
  });

  it("400 invalid_request for action=delete naming another user's media, which stays stored", async () => {
    const rows = await t.rows();
    const response = await mediaPostForm(t.app, token, { action: 'delete', url: bobsFile });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(INVALID_REQUEST);
    expect(await t.rows()).toBe(rows);
    expect(await t.stored()).toContain(keyOf(bobsFile));
    expect(await isServed(t, bobsFile)).toBe(200);
  });

  it('204 with an empty body for action=delete (form); the file, its object and its row are gone', async () => {
    const url = await uploaded(t, token, randomPng(), 'doomed.png', 'image/png');
    expect(await isServed(t, url)).toBe(200);
    const rows = await t.rows();
    const response = await mediaPostForm(t.app, token, { action: 'delete', url });
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    expect(await t.rows()).toBe(rows - 1);
    expect(await t.stored()).not.toContain(keyOf(url));
    expect(await isServed(t, url)).toBe(404);
    expect((await mediaGet(t.app, token, { q: 'source', url })).statusCode).toBe(400);
    expect(JSON.stringify((await mediaGet(t.app, token, { q: 'source' })).json())).not.toContain(url);
  });

  it('204 for action=delete sent as JSON', async () => {
    const url = await uploaded(t, token, randomPng(), 'doomed.png', 'image/png');
    const response = await t.app.inject({
      method: 'POST',
      url: MEDIA,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ action: 'delete', url }),
    });
    expect(response.statusCode).toBe(204);
    expect(await t.stored()).not.toContain(keyOf(url));
  });

  it('204 for action=delete sent as multipart without a file (FormData); 403 without media scope', async () => {
    const url = await uploaded(t, token, randomPng(), 'formdata.png', 'image/png');
    const fields = [
      { name: 'action', value: 'delete' },
      { name: 'url', value: url },
    ];
    const noScope = await postMultipart(t.app, await t.token('create delete'), fields);
    expect(noScope.statusCode).toBe(403);
    expect(await t.stored()).toContain(keyOf(url));
    const response = await postMultipart(t.app, token, fields);
    expect(response.statusCode).toBe(204);
    expect(await t.stored()).not.toContain(keyOf(url));
  });

  it('400 invalid_request for action=delete that also carries a file, before or after the action field; nothing stored or deleted', async () => {
    const url = await uploaded(t, token, randomPng(), 'keeper.png', 'image/png');
    const rows = await t.rows();
    for (const parts of [
      [{ name: 'action', value: 'delete' }, { name: 'url', value: url }, filePart(randomPng())],
      [filePart(randomPng()), { name: 'action', value: 'delete' }, { name: 'url', value: url }],
    ]) {
      const response = await postMultipart(t.app, token, parts);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual(INVALID_REQUEST);
    }
    expect(await t.rows()).toBe(rows);
    expect(await t.stored()).toContain(keyOf(url));
  });

  it('unparseable JSON: 401 without a token, 403 without media scope, 400 with both', async () => {
    const post = (authorization: Record<string, string>) =>
      t.app.inject({
        method: 'POST',
        url: MEDIA,
        headers: { ...authorization, 'content-type': 'application/json' },
        payload: '{"action":"delete",',
      });
    const anonymous = await post({});
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.body).toBe('authentication error');
    const noScope = await post({ authorization: `Bearer ${await t.token('create')}` });
    expect(noScope.statusCode).toBe(403);
    expect(noScope.body).toBe('authorization error');
    const allowed = await post({ authorization: `Bearer ${token}` });
    expect(allowed.statusCode).toBe(400);
    expect(allowed.json()).toEqual(INVALID_REQUEST);
  });

  it('400 invalid_request for action=delete of media already deleted', async () => {
    const url = await uploaded(t, token, randomPng(), 'twice.png', 'image/png');
    expect((await mediaPostForm(t.app, token, { action: 'delete', url })).statusCode).toBe(204);
    const again = await mediaPostForm(t.app, token, { action: 'delete', url });
    expect(again.statusCode).toBe(400);
    expect(again.json()).toEqual(INVALID_REQUEST);
  });

  it('400 invalid_request for a POST form with another action', async () => {
    const response = await mediaPostForm(t.app, token, { action: 'undelete', url: sunset });
    expect(response.statusCode).toBe(400);
    expect(await isServed(t, sunset)).toBe(200);
  });
});

describe('GET and POST /indieweb/media/ with a handler without media hooks', () => {
  let t: MediaApp;
  beforeAll(async () => {
    const { listMedia: _l, getMedia: _g, deleteMedia: _d, ...handler } = createMemoryHandler({ baseUrl: BASE_URL });
    t = await mountedMediaApp('local', null, { handler });
  });
  afterAll(async () => {
    await t.close();
  });

  const operations: [string, (t: MediaApp, token: string | null) => ReturnType<typeof mediaGet>][] = [
    ['q=source list', (t, token) => mediaGet(t.app, token, { q: 'source' })],
    [
      'q=source&url= metadata',
      (t, token) => mediaGet(t.app, token, { q: 'source', url: `${BASE_URL}/indieweb/media/AAAAAAAAAAAAAAAAAAAAAAAA.png` }),
    ],
    [
      'action=delete',
      (t, token) => mediaPostForm(t.app, token, { action: 'delete', url: `${BASE_URL}/indieweb/media/AAAAAAAAAAAAAAAAAAAAAAAA.png` }),
    ],
  ];

  it.each(operations)('501 for %s after the token and scope checks', async (_label, send) => {
    const response = await send(t, await t.token('media'));
    expect(response.statusCode).toBe(501);
  });

  it.each(operations)('501 not_implemented (body) for %s', async (_label, send) => {
    const response = await send(t, await t.token('media'));
    expect(response.statusCode).toBe(501);
    expect(response.json()).toEqual(NOT_IMPLEMENTED);
  });

  it.each(operations)('401 authentication error for %s without a token (before 501)', async (_label, send) => {
    const response = await send(t, null);
    expect(response.statusCode).toBe(401);
    expect(response.body).toBe('authentication error');
  });

  it.each(operations)('403 authorization error for %s without media scope (before 501)', async (_label, send) => {
    const response = await send(t, await t.token('create update delete'));
    expect(response.statusCode).toBe(403);
    expect(response.body).toBe('authorization error');
  });

  it('201 for an upload: storing does not need the hooks', async () => {
    const response = await upload(t.app, await t.token('media'), randomPng());
    expect(response.statusCode).toBe(201);
    expect(await t.rows()).toBe(1);
  });
});

describe('GET and POST /indieweb/media/ with a handler that has its own media hooks', () => {
  let t: MediaApp;
  const calls: { operation: string; args: unknown[] }[] = [];
  let behaviour: 'ok' | 'value-error' | 'crash' = 'ok';
  const known = 'https://cdn.example/media/known.png';
  const act = <T>(value: T): T => {
    if (behaviour === 'value-error') throw new HandlerValueError('secret detail');
    if (behaviour === 'crash') throw new Error('secret crash');
    return value;
  };
  beforeAll(async () => {
    const handler: MicropubHandler = {
      ...createMemoryHandler({ baseUrl: BASE_URL }),
      async listMedia(user: HostUser, page: PageRequest): Promise<Page<MediaObject>> {
        calls.push({ operation: 'listMedia', args: [user.name, page] });
        return act({ items: [mediaObject(known, 'known.png', 'image/png')] });
      },
      async getMedia(url: string, user: HostUser): Promise<MediaObject | null> {
        calls.push({ operation: 'getMedia', args: [url, user.name] });
        return act(url === known ? mediaObject(known, 'known.png', 'image/png') : null);
      },
      async deleteMedia(url: string, user: HostUser): Promise<void> {
        calls.push({ operation: 'deleteMedia', args: [url, user.name] });
        act(undefined);
      },
    };
    t = await mountedMediaApp('local', null, { handler });
  });
  afterAll(async () => {
    await t.close();
  });

  it('200 q=source passes limit, offset and filter through as submitted, and leaves total out when the hook reports none', async () => {
    calls.length = 0;
    behaviour = 'ok';
    const response = await mediaGet(t.app, await t.token('media'), { q: 'source', limit: '5', offset: '2', filter: 'Sun Set' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ items: [mediaObject(known, 'known.png', 'image/png')], paging: { limit: 5, offset: 2 } });
    expect(calls).toEqual([{ operation: 'listMedia', args: ['alice', { limit: 5, offset: 2, filter: 'Sun Set' }] }]);
  });

  it('200 q=source&url= passes the url unchanged to the hook', async () => {
    calls.length = 0;
    behaviour = 'ok';
    const response = await mediaGet(t.app, await t.token('media'), { q: 'source', url: known });
    expect(response.json()).toEqual(mediaObject(known, 'known.png', 'image/png'));
    expect(calls).toEqual([{ operation: 'getMedia', args: [known, 'alice'] }]);
  });

  it('400 invalid_request when the metadata hook finds nothing', async () => {
    behaviour = 'ok';
    const response = await mediaGet(t.app, await t.token('media'), { q: 'source', url: 'https://cdn.example/other.png' });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(INVALID_REQUEST);
  });

  it('204 for action=delete, the url passed unchanged to the hook', async () => {
    calls.length = 0;
    behaviour = 'ok';
    const response = await mediaPostForm(t.app, await t.token('media'), { action: 'delete', url: known });
    expect(response.statusCode).toBe(204);
    expect(calls).toEqual([{ operation: 'deleteMedia', args: [known, 'alice'] }]);
  });

  it.each([
    ['list', (t: MediaApp, token: string) => mediaGet(t.app, token, { q: 'source' })],
    ['metadata', (t: MediaApp, token: string) => mediaGet(t.app, token, { q: 'source', url: known })],
    ['delete', (t: MediaApp, token: string) => mediaPostForm(t.app, token, { action: 'delete', url: known })],
  ])('400 invalid_request without the message when the %s hook raises a value error', async (_label, send) => {
    behaviour = 'value-error';
    const response = await send(t, await t.token('media'));
    behaviour = 'ok';
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(INVALID_REQUEST);
    expect(response.body).not.toContain('secret');
  });

  it.each([
    ['list', (t: MediaApp, token: string) => mediaGet(t.app, token, { q: 'source' })],
    ['metadata', (t: MediaApp, token: string) => mediaGet(t.app, token, { q: 'source', url: known })],
    ['delete', (t: MediaApp, token: string) => mediaPostForm(t.app, token, { action: 'delete', url: known })],
  ])('500 with an empty body when the %s hook crashes', async (_label, send) => {
    behaviour = 'crash';
    const response = await send(t, await t.token('media'));
    behaviour = 'ok';
    expect(response.statusCode).toBe(500);
    expect(response.body).toBe('');
  });
});

describe.each(BACKENDS)('GET and POST /indieweb/media/ with a URL policy (%s storage)', (backend) => {
  let t: MediaApp;
  let token: string;
  const seen: { url: string; kind: UrlPolicyKind }[] = [];
  let verdict: () => unknown = () => true;
  beforeAll(async () => {
    t = await mountedMediaApp(backend, s3, {
      urlPolicy: async (url, kind) => {
        seen.push({ url, kind });
        return verdict() as boolean;
      },
    });
    token = await t.token('media');
  });
  afterAll(async () => {
    await t.close();
  });

  const allow = () => {
    seen.length = 0;
    verdict = () => true;
  };

  it('200 q=source&url= runs the policy with kind media when it returns true', async () => {
    allow();
    const url = await uploaded(t, token, randomPng(), 'a.png', 'image/png');
    expect(seen).toEqual([]);
    const response = await mediaGet(t.app, token, { q: 'source', url });
    expect(response.statusCode).toBe(200);
    expect(seen).toEqual([{ url, kind: 'media' }]);
  });

  it('204 action=delete runs the policy with kind media when it returns true', async () => {
    allow();
    const url = await uploaded(t, token, randomPng(), 'a.png', 'image/png');
    const response = await mediaPostForm(t.app, token, { action: 'delete', url });
    expect(response.statusCode).toBe(204);
    expect(seen).toEqual([{ url, kind: 'media' }]);
    expect(await t.stored()).not.toContain(keyOf(url));
  });

  it('200 q=source list does not consult the policy', async () => {
    allow();
    expect((await mediaGet(t.app, token, { q: 'source' })).statusCode).toBe(200);
    expect(seen).toEqual([]);
  });

  it.each([
    ['false', () => false],
    ['"true"', () => 'true'],
    ['1', () => 1],
    ['undefined', () => undefined],
    ['null', () => null],
  ])('400 invalid_request for q=source&url= and action=delete when the policy returns %s; nothing is deleted', async (_label, returns) => {
    allow();
    const url = await uploaded(t, token, randomPng(), 'kept.png', 'image/png');
    verdict = returns;
    const metadata = await mediaGet(t.app, token, { q: 'source', url });
    const deletion = await mediaPostForm(t.app, token, { action: 'delete', url });
    verdict = () => true;
    expect(metadata.statusCode).toBe(400);
    expect(metadata.json()).toEqual(INVALID_REQUEST);
    expect(deletion.statusCode).toBe(400);
    expect(deletion.json()).toEqual(INVALID_REQUEST);
    expect(seen).toEqual([
      { url, kind: 'media' },
      { url, kind: 'media' },
    ]);
    expect(await t.stored()).toContain(keyOf(url));
  });

  it('500 with an empty body for q=source&url= and action=delete when the policy throws; nothing is deleted', async () => {
    allow();
    const url = await uploaded(t, token, randomPng(), 'kept.png', 'image/png');
    verdict = () => {
      throw new Error('policy exploded');
    };
    const metadata = await mediaGet(t.app, token, { q: 'source', url });
    const deletion = await mediaPostForm(t.app, token, { action: 'delete', url });
    verdict = () => true;
    expect(metadata.statusCode).toBe(500);
    expect(metadata.body).toBe('');
    expect(deletion.statusCode).toBe(500);
    expect(deletion.body).toBe('');
    expect(await t.stored()).toContain(keyOf(url));
  });
});
