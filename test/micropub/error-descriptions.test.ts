/**
 * Micropub and media 400s say why (issue 21 item 5): `error` stays
 * `invalid_request`, `error_description` carries a reason written for the
 * client — never a handler's message, never long client input.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HandlerValueError } from '../../src/contracts/handler-errors.js';
import { MAX_DESCRIPTION_LENGTH } from '../../src/core/errors.js';
import { FILES, mediaGet, mediaPostForm, standaloneMediaApp, upload, type MediaApp } from '../helpers/media.js';
import {
  createSpyHandler,
  ENTRIES,
  HOST,
  MICROPUB,
  micropubGet,
  mountedApp,
  postForm,
  postJson,
  type MicropubTestApp,
} from '../helpers/micropub.js';

function described(response: { statusCode: number; json: () => unknown }, status: number, description: string): void {
  expect(response.statusCode).toBe(status);
  expect(response.json()).toEqual({ error: 'invalid_request', error_description: description });
}

describe('POST and GET /indieweb/micropub/: error_description of 400 invalid_request', () => {
  let t: MicropubTestApp;
  let token: string;
  beforeAll(async () => {
    const spy = createSpyHandler({
      createEntry: async (entry) => {
        if (entry.properties.content?.[0] === 'refuse me') throw new HandlerValueError('slug taken: secret detail');
        throw new Error('not reached in these tests');
      },
    });
    t = await mountedApp({ handler: spy.handler });
    token = await t.token('create update delete');
  });
  afterAll(async () => {
    await t.close();
  });

  it('400 a JSON body that is not an object', async () => {
    described(await postJson(t.app, token, [1]), 400, 'the JSON body must be an object');
  });

  it('400 JSON that cannot be parsed', async () => {
    described(await postJson(t.app, token, '{"type":', { raw: true }), 400, 'request body is not valid UTF-8 JSON');
  });

  it('400 a create that submits uid', async () => {
    described(await postForm(t.app, token, { content: 'x', uid: 'mine' }), 400, 'uid is managed by the server');
  });

  it('400 a create with a javascript: photo', async () => {
    described(
      await postJson(t.app, token, { type: ['h-entry'], properties: { photo: ['javascript:alert(1)'] } }),
      400,
      'photo must hold absolute http(s) URLs',
    );
  });

  it('400 an action without url', async () => {
    described(await postForm(t.app, token, { action: 'delete' }), 400, 'url is required');
  });

  it('400 a form-encoded update', async () => {
    described(await postForm(t.app, token, { action: 'update', url: `${ENTRIES}x` }), 400, 'update must be sent as JSON');
  });

  it('400 an update whose replace value is not an array', async () => {
    described(
      await postJson(t.app, token, { action: 'update', url: `${ENTRIES}x`, replace: { content: 'x' } }),
      400,
      'replace.content must be an array',
    );
  });

  it('400 an action on another host', async () => {
    described(await postForm(t.app, token, { action: 'delete', url: 'https://elsewhere.example/entry' }), 400, 'url is on another host');
  });

  it('400 q=source for an unknown entry', async () => {
    described(await micropubGet(t.app, token, { q: 'source', url: `${ENTRIES}nothing-here` }), 400, 'no such entry');
  });

  it('400 a malformed limit', async () => {
    described(await micropubGet(t.app, token, { q: 'category', limit: '-1' }), 400, 'limit must be a non-negative integer');
  });

  it('400 a handler value error: names the operation, never the handler’s message', async () => {
    const response = await postForm(t.app, token, { content: 'refuse me' });
    described(response, 400, 'the content handler refused create_entry');
    expect(response.body).not.toContain('secret detail');
  });

  it('400 an unknown action: long client input is cut, control characters dropped', async () => {
    const response = await postForm(t.app, token, { action: `frob\u0007${'x'.repeat(500)}`, url: `${ENTRIES}x` });
    expect(response.statusCode).toBe(400);
    const { error, error_description: description } = response.json<{ error: string; error_description: string }>();
    expect(error).toBe('invalid_request');
    expect(description).toMatch(/^unknown action frobx+…$/);
    expect(description.length).toBeLessThanOrEqual(60);
    expect(description.length).toBeLessThanOrEqual(MAX_DESCRIPTION_LENGTH);
  });

  it('401 and 403 keep SPEC.md’s exact bodies', async () => {
    const missing = await t.app.inject({ method: 'GET', url: `${MICROPUB}?q=config`, headers: { host: HOST } });
    expect(missing.statusCode).toBe(401);
    expect(missing.body).toBe('authentication error');
    const scoped = await micropubGet(t.app, await t.token('update'), {}, {});
    expect(scoped.statusCode).toBe(200);
    const refused = await postForm(t.app, await t.token('update'), { content: 'x' });
    expect(refused.statusCode).toBe(403);
    expect(refused.body).toBe('authorization error');
  });
});

describe('/indieweb/media/: error_description of invalid_request', () => {
  let t: MediaApp;
  let token: string;
  beforeAll(async () => {
    t = await standaloneMediaApp('local', null);
    token = await t.token('media');
  });
  afterAll(async () => {
    await t.close();
  });

  it('400 a delete without url', async () => {
    described(await mediaPostForm(t.app, token, { action: 'delete' }), 400, 'url is required');
  });

  it('400 a POST that is neither an upload nor action=delete', async () => {
    described(await mediaPostForm(t.app, token, { action: 'frob' }), 400, 'not a multipart upload and not action=delete');
  });

  it('400 metadata of unknown media', async () => {
    described(
      await mediaGet(t.app, token, { q: 'source', url: 'http://indiestack.test/indieweb/media/nothing.png' }),
      400,
      'no such media',
    );
  });

  it('415 a type outside the allow-list', async () => {
    described(await upload(t.app, token, FILES.pdf, 'paper.pdf', 'application/pdf'), 415, 'application/pdf is not allowed');
  });
});
