/**
 * Shape limits of request bodies, checked before any handler: JSON nesting
 * depth, keys per object, items per array, name length, form parameter
 * count; 401 before 400 on the resource routes; hostile names
 * (`__proto__`, `constructor`, `prototype`) stay ordinary names; a failed
 * in-memory update changes nothing.
 * @see issue 15 finding 2 and deliver 2, fuzz/FINDINGS.md 2 and 6
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryHandler } from '../../src/content/handlers/memory.js';
import type { HostUser } from '../../src/contracts/accounts.js';
import {
  BASE_URL,
  HOST,
  INVALID_REQUEST,
  MICROPUB,
  micropubGet,
  postForm,
  postJson,
  type MicropubTestApp,
  standaloneApp,
} from '../helpers/micropub.js';
import { multipart } from '../helpers/media.js';

/** `[[[…value…]]]` nested `depth` arrays deep, as JSON text (built without recursion). */
const deepArrays = (depth: number) => `${'['.repeat(depth)}"x"${']'.repeat(depth)}`;
/** `{"a":{"a":…}}` nested `depth` objects deep, as JSON text. */
const deepObjects = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

let t: MicropubTestApp;
let token: string;
beforeAll(async () => {
  t = await standaloneApp();
  token = await t.token();
});
afterAll(async () => {
  await t.close();
});

async function source(url: string): Promise<Record<string, unknown>> {
  const response = await micropubGet(t.app, token, { q: 'source', url });
  expect(response.statusCode).toBe(200);
  return response.json<{ properties: Record<string, unknown> }>().properties;
}

async function create(properties: Record<string, unknown>): Promise<string> {
  const response = await postJson(t.app, token, { type: ['h-entry'], properties });
  expect(response.statusCode).toBe(201);
  return response.headers.location as string;
}

describe('JSON nesting depth (INDIEWEB_MAX_JSON_DEPTH, default 32)', () => {
  it('400 invalid_request for a create whose content is 10,000 arrays or objects deep, before any handler; the server goes on', async () => {
    for (const value of [deepArrays(10_000), deepObjects(10_000), deepArrays(100_000)]) {
      const response = await postJson(t.app, token, `{"type":["h-entry"],"properties":{"content":[${value}]}}`, { raw: true });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual(INVALID_REQUEST);
    }
    const list = await micropubGet(t.app, token, { q: 'source' });
    expect(list.statusCode).toBe(200);
  });

  it('401 first without a token: a body over a shape limit behaves like an unreadable JSON body', async () => {
    const response = await postJson(t.app, null, `{"type":["h-entry"],"properties":{"content":[${deepArrays(10_000)}]}}`, { raw: true });
    expect(response.statusCode).toBe(401);
    expect(response.body).toBe('authentication error');
  });

  it('400 for an update that replaces or adds a value 10,000 deep; the entry is unchanged and reads still work (fuzz finding 6)', async () => {
    const url = await create({ content: ['before'] });
    for (const operation of ['replace', 'add']) {
      const response = await postJson(
        t.app,
        token,
        `{"action":"update","url":"${url}","${operation}":{"content":[${deepArrays(10_000)}]}}`,
        { raw: true },
      );
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual(INVALID_REQUEST);
    }
    expect(await source(url)).toEqual({ content: ['before'] });
    expect((await micropubGet(t.app, token, { q: 'source', filter: 'before' })).statusCode).toBe(200);
  });

  it('201 for mf2 nested as deep as real clients send (an h-cite with an h-card inside, inside an array)', async () => {
    const url = await create({
      'in-reply-to': [
        {
          type: ['h-cite'],
          properties: {
            url: ['https://example.com/post'],
            author: [{ type: ['h-card'], properties: { name: ['A'], url: ['https://a.example/'] } }],
          },
        },
      ],
      content: [{ html: '<p>hi</p>', value: 'hi' }],
    });
    expect((await source(url))['in-reply-to']).toHaveLength(1);
  });
});

describe('keys, items and name length in JSON bodies', () => {
  it('400 for more than 200 properties (INDIEWEB_MAX_PROPERTIES), 201 for 200', async () => {
    const properties = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, index) => [`p${index}`, ['v']]));
    expect((await postJson(t.app, token, { type: ['h-entry'], properties: properties(201) })).statusCode).toBe(400);
    expect((await postJson(t.app, token, { type: ['h-entry'], properties: properties(200) })).statusCode).toBe(201);
  });

  it('400 for more than 1000 values of one property (INDIEWEB_MAX_PROPERTY_VALUES), 201 for 1000', async () => {
    const values = (n: number) => Array.from({ length: n }, (_, index) => `c${index}`);
    const tooMany = await postJson(t.app, token, { type: ['h-entry'], properties: { category: values(1001) } });
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json()).toEqual(INVALID_REQUEST);
    expect((await postJson(t.app, token, { type: ['h-entry'], properties: { category: values(1000) } })).statusCode).toBe(201);
  });

  it('400 for a key over 256 bytes (INDIEWEB_MAX_FIELD_NAME_BYTES)', async () => {
    const response = await postJson(t.app, token, { type: ['h-entry'], properties: { ['k'.repeat(257)]: ['v'] } });
    expect(response.statusCode).toBe(400);
  });
});

describe('form bodies', () => {
  it('400 for more than 1000 parameters (INDIEWEB_MAX_FORM_FIELDS), 401 first without a token; 201 for a form within it', async () => {
    const many = `h=entry&${Array.from({ length: 1000 }, (_, index) => `category[]=c${index}`).join('&')}`;
    const tooMany = await postForm(t.app, token, many);
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json()).toEqual(INVALID_REQUEST);
    expect((await postForm(t.app, null, many)).statusCode).toBe(401);
    expect(
      (await postForm(t.app, token, `h=entry&content=hi&${Array.from({ length: 900 }, (_, index) => `category[]=c${index}`).join('&')}`))
        .statusCode,
    ).toBe(201);
  });

  it('400 for a parameter name over 256 bytes', async () => {
    expect((await postForm(t.app, token, `h=entry&${'n'.repeat(300)}=v`)).statusCode).toBe(400);
  });

  it('400 on the token endpoint too (no 500) for a form over the parameter limit', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/indieweb/token/',
      headers: { host: HOST, 'content-type': 'application/x-www-form-urlencoded' },
      payload: Array.from({ length: 1001 }, (_, index) => `p${index}=v`).join('&'),
    });
    expect(response.statusCode).toBe(400);
  });
});

describe('hostile names never reach a prototype nor another request', () => {
  const HOSTILE = ['__proto__', 'constructor', 'prototype'];

  function expectHostileProperties(properties: Record<string, unknown>): void {
    for (const name of HOSTILE) expect(Object.hasOwn(properties, name)).toBe(true);
    expect(properties.__proto__).toEqual(['a']);
    expect(Object.getPrototypeOf(properties)).toBe(Object.prototype);
  }

  async function expectCleanNeighbour(): Promise<void> {
    // a later request of another shape sees nothing of them
    const url = await create({ content: ['plain'] });
    expect(await source(url)).toEqual({ content: ['plain'] });
    expect(({} as Record<string, unknown>).a).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('a');
  }

  it('JSON keys: a create stores them as ordinary properties; "__proto__" holding an action is still a create', async () => {
    const response = await postJson(
      t.app,
      token,
      '{"type":["h-entry"],"properties":{"__proto__":["a"],"constructor":["b"],"prototype":["c"],"content":["x"]}}',
      { raw: true },
    );
    expect(response.statusCode).toBe(201);
    expectHostileProperties(await source(response.headers.location as string));
    const disguised = await postJson(
      t.app,
      token,
      `{"__proto__":{"action":"delete","url":"${response.headers.location as string}"},"properties":{"content":["still a create"]}}`,
      { raw: true },
    );
    expect(disguised.statusCode).toBe(201);
    expect((await micropubGet(t.app, token, { q: 'source', url: response.headers.location as string })).statusCode).toBe(200);
    await expectCleanNeighbour();
  });

  it('form field names', async () => {
    const response = await postForm(t.app, token, 'h=entry&__proto__=a&constructor=b&prototype=c&content=x');
    expect(response.statusCode).toBe(201);
    expectHostileProperties(await source(response.headers.location as string));
    const arrays = await postForm(t.app, token, 'h=entry&__proto__[]=a&constructor[]=b&prototype[]=c');
    expect(arrays.statusCode).toBe(201);
    expectHostileProperties(await source(arrays.headers.location as string));
    await expectCleanNeighbour();
  });

  it('multipart field names (repeated, so the collected value is an array)', async () => {
    const { body, contentType } = multipart([
      { name: 'h', value: 'entry' },
      { name: '__proto__', value: 'a' },
      { name: 'constructor', value: 'b' },
      { name: 'constructor', value: 'b2' },
      { name: 'prototype', value: 'c' },
    ]);
    const response = await t.app.inject({
      method: 'POST',
      url: MICROPUB,
      headers: { host: HOST, 'content-type': contentType, authorization: `Bearer ${token}` },
      payload: body,
    });
    expect(response.statusCode).toBe(201);
    const properties = await source(response.headers.location as string);
    expectHostileProperties(properties);
    expect(properties.constructor).toEqual(['b', 'b2']);
    await expectCleanNeighbour();
  });

  it('update operations: replace, add and delete of __proto__/constructor', async () => {
    const url = await create({ content: ['x'] });
    const replaced = await postJson(
      t.app,
      token,
      `{"action":"update","url":"${url}","replace":{"__proto__":["a"],"prototype":["c"]},"add":{"constructor":["b"]}}`,
      { raw: true },
    );
    expect(replaced.statusCode).toBe(204);
    expectHostileProperties(await source(url));
    const deleted = await postJson(t.app, token, { action: 'update', url, delete: ['__proto__', 'constructor', 'prototype'] });
    expect(deleted.statusCode).toBe(204);
    expect(await source(url)).toEqual({ content: ['x'] });
    await expectCleanNeighbour();
  });
});

describe('the in-memory handler keeps no part of a failed update (fuzz finding 6)', () => {
  it('an update whose value cannot be copied fails and leaves the entry and the list as they were', async () => {
    const handler = createMemoryHandler({ baseUrl: BASE_URL });
    const user = { id: 'u1', me: ['https://alice.example/'] } as unknown as HostUser;
    const entry = await handler.createEntry({ type: ['h-entry'], properties: { content: ['before'] } }, user);
    // built without recursion: deeper than any call stack
    let deep: unknown = 'x';
    for (let level = 0; level < 200_000; level++) deep = [deep];
    await expect(handler.updateEntry(entry.url, { replace: { content: [deep] } }, user)).rejects.toThrow();
    expect((await handler.getEntry(entry.url, user))?.properties).toEqual({ content: ['before'] });
    const page = await handler.listEntries!(user, { limit: 10, offset: 0, filter: null });
    expect(page.items).toHaveLength(1);
  });
});
