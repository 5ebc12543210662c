import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HandlerValueError } from '../../src/contracts/handler-errors.js';
import type { MicropubHandler } from '../../src/contracts/micropub-handler.js';
import { createMemoryHandler } from '../../src/content/handlers/memory.js';
import {
  BASE_URL,
  callsOf,
  createSpyHandler,
  createViaJson,
  ENTRIES,
  entryPath,
  entryUrl,
  INVALID_REQUEST,
  micropubGet,
  mountedApp,
  postForm,
  standaloneApp,
  type MicropubTestApp,
} from '../helpers/micropub.js';

describe('GET /indieweb/micropub/?q=source&url=… (single entry)', () => {
  let t: MicropubTestApp;
  let token: string;
  let url: string;
  beforeAll(async () => {
    t = await standaloneApp();
    token = await t.token('create update');
    url = await createViaJson(t.app, token, { content: ['hello world'], category: ['indieweb', 'micropub'], 'mp-slug': ['hello'] });
  });
  afterAll(async () => {
    await t.close();
  });

  it('200 {type, properties} of the entry', async () => {
    expect(url).toBe(entryUrl('hello'));
    const response = await micropubGet(t.app, token, { q: 'source', url });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.json()).toEqual({
      type: ['h-entry'],
      properties: { content: ['hello world'], category: ['indieweb', 'micropub'], 'mp-slug': ['hello'] },
    });
  });

  it('200 {properties} with only the requested properties[] and without type', async () => {
    const response = await micropubGet(t.app, token, { q: 'source', url, 'properties[]': ['content', 'category'] });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ properties: { content: ['hello world'], category: ['indieweb', 'micropub'] } });
  });

  it('200 {properties} for a single properties[] value', async () => {
    const response = await micropubGet(t.app, token, { q: 'source', url, 'properties[]': 'category' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ properties: { category: ['indieweb', 'micropub'] } });
  });

  it('200 omits requested properties the entry does not have, silently', async () => {
    const response = await micropubGet(t.app, token, { q: 'source', url, 'properties[]': ['content', 'photo', 'nope'] });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ properties: { content: ['hello world'] } });
  });

  it('200 {properties: {}} when no requested property exists', async () => {
    const response = await micropubGet(t.app, token, { q: 'source', url, 'properties[]': 'photo' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ properties: {} });
  });

  it('200 for a relative URL, which the built-in handler resolves', async () => {
    const response = await micropubGet(t.app, token, { q: 'source', url: entryPath('hello') });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ properties: { content: ['hello world'] } });
  });

  it('400 invalid_request for an empty url', async () => {
    const response = await micropubGet(t.app, token, { q: 'source', url: '' });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(INVALID_REQUEST);
  });

  it.each([
    ['an unknown entry', `${ENTRIES}nope`],
    ['another site', 'https://elsewhere.example/hello'],
    ['a non-URL', 'hello world'],
  ])('400 invalid_request for %s', async (_label, unknown) => {
    const response = await micropubGet(t.app, token, { q: 'source', url: unknown });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(INVALID_REQUEST);
  });

  it('400 invalid_request for the URL of a deleted entry', async () => {
    const gone = await createViaJson(t.app, await t.token('create'), { content: ['to be deleted'] });
    const del = await postForm(t.app, await t.token('delete'), { action: 'delete', url: gone });
    expect(del.statusCode).toBe(204);
    expect((await micropubGet(t.app, token, { q: 'source', url: gone })).statusCode).toBe(400);
  });
});

describe('GET /indieweb/micropub/?q=source&url=… (handler boundary)', () => {
  it('200 passes the url to get_entry exactly as submitted', async () => {
    const { handler, calls } = createSpyHandler({
      getEntry: async (url) => ({ url: `${BASE_URL}/x`, type: ['h-entry'], properties: { content: [url] } }),
    });
    const t = await mountedApp({ handler });
    try {
      const token = await t.token('update');
      for (const submitted of [
        '/indieweb/entries/x',
        'indieweb/entries/x?a=1&b=%20',
        'HTTP://Indiestack.TEST/indieweb/entries/x/',
        'https://elsewhere.example/x#frag',
      ]) {
        const response = await micropubGet(t.app, token, { q: 'source', url: submitted });
        expect(response.statusCode).toBe(200);
        expect(response.json()).toEqual({ type: ['h-entry'], properties: { content: [submitted] } });
      }
      expect(callsOf(calls, 'getEntry').map((call) => call.args[0])).toEqual([
        '/indieweb/entries/x',
        'indieweb/entries/x?a=1&b=%20',
        'HTTP://Indiestack.TEST/indieweb/entries/x/',
        'https://elsewhere.example/x#frag',
      ]);
      expect((callsOf(calls, 'getEntry')[0]!.args[1] as { id: string }).id).toBe(t.user.id);
    } finally {
      await t.close();
    }
  });

  it('400 invalid_request without the message when get_entry raises a value error', async () => {
    const { handler } = createSpyHandler({
      getEntry: async () => {
        throw new HandlerValueError('secret detail from the handler');
      },
    });
    const t = await mountedApp({ handler });
    try {
      const response = await micropubGet(t.app, await t.token('update'), { q: 'source', url: `${ENTRIES}x` });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual(INVALID_REQUEST);
      expect(response.body).not.toContain('secret detail');
    } finally {
      await t.close();
    }
  });

  it('500 with an empty body when get_entry raises another error', async () => {
    const { handler } = createSpyHandler({
      getEntry: async () => {
        throw new Error('database down: secret detail');
      },
    });
    const t = await mountedApp({ handler });
    try {
      const response = await micropubGet(t.app, await t.token('update'), { q: 'source', url: `${ENTRIES}x` });
      expect(response.statusCode).toBe(500);
      expect(response.body).toBe('');
    } finally {
      await t.close();
    }
  });
});

describe('GET /indieweb/micropub/?q=source (list mode)', () => {
  let t: MicropubTestApp;
  let token: string;
  const urls: string[] = [];
  beforeAll(async () => {
    t = await standaloneApp();
    token = await t.token('create update');
    for (let n = 1; n <= 25; n++) {
      const properties: Record<string, unknown[]> = { content: [`post number ${n}`], 'mp-slug': [`post-${n}`] };
      if (n === 7) properties.category = ['Special'];
      urls.push(await createViaJson(t.app, token, properties));
    }
  });
  afterAll(async () => {
    await t.close();
  });

  it('200 with 20 items and paging {limit: 20, offset: 0, total: 25} when limit is omitted', async () => {
    const response = await micropubGet(t.app, token, { q: 'source' });
    expect(response.statusCode).toBe(200);
    const body = response.json() as { items: unknown[]; paging: unknown };
    expect(body.items).toHaveLength(20);
    expect(body.paging).toEqual({ limit: 20, offset: 0, total: 25 });
  });

  it('200 items are {type, properties} and gain a url property', async () => {
    const body = (await micropubGet(t.app, token, { q: 'source', limit: '25' })).json() as {
      items: { type: string[]; properties: Record<string, unknown[]> }[];
    };
    expect(body.items).toHaveLength(25);
    for (const item of body.items) {
      expect(Object.keys(item).sort()).toEqual(['properties', 'type']);
      expect(item.type).toEqual(['h-entry']);
      expect(item.properties.url).toHaveLength(1);
    }
    expect(body.items.map((item) => item.properties.url![0]).sort()).toEqual([...urls].sort());
    const seven = body.items.find((item) => item.properties.url![0] === entryUrl('post-7'));
    // and a published date: when it was stored, for an entry that came without one (the admin's Posts page shows it)
    expect(seven).toEqual({
      type: ['h-entry'],
      properties: {
        content: ['post number 7'],
        'mp-slug': ['post-7'],
        category: ['Special'],
        url: [entryUrl('post-7')],
        published: [expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/)],
      },
    });
  });

  it('200 honours offset and limit', async () => {
    const all = (await micropubGet(t.app, token, { q: 'source', limit: '25' })).json() as { items: unknown[] };
    const response = await micropubGet(t.app, token, { q: 'source', offset: '20', limit: '10' });
    expect(response.statusCode).toBe(200);
    const body = response.json() as { items: unknown[]; paging: unknown };
    expect(body.paging).toEqual({ limit: 10, offset: 20, total: 25 });
    expect(body.items).toEqual(all.items.slice(20));
    const middle = (await micropubGet(t.app, token, { q: 'source', offset: '3', limit: '2' })).json() as {
      items: unknown[];
      paging: unknown;
    };
    expect(middle.items).toEqual(all.items.slice(3, 5));
    expect(middle.paging).toEqual({ limit: 2, offset: 3, total: 25 });
  });

  it('200 applies filter, then offset, then limit (SPEC list parameters)', async () => {
    const all = (await micropubGet(t.app, token, { q: 'source', limit: '25' })).json() as {
      items: { properties: { content: string[] } }[];
    };
    // "post number 1" is in 11 entries (1 and 10–19): filtered first, a page of 3 from the third of them
    const matching = all.items.filter((item) => item.properties.content[0]!.includes('post number 1'));
    expect(matching).toHaveLength(11);
    const body = (await micropubGet(t.app, token, { q: 'source', filter: 'Post Number 1', offset: '2', limit: '3' })).json() as {
      items: unknown[];
      paging: unknown;
    };
    expect(body.items).toEqual(matching.slice(2, 5));
    expect(body.paging).toEqual({ limit: 3, offset: 2, total: 11 });
  });

  it('200 with offset 0 by default when only limit is sent', async () => {
    const body = (await micropubGet(t.app, token, { q: 'source', limit: '5' })).json() as { items: unknown[]; paging: unknown };
    expect(body.items).toHaveLength(5);
    expect(body.paging).toEqual({ limit: 5, offset: 0, total: 25 });
  });

  it('200 matches filter case-insensitively against the JSON of each item', async () => {
    const body = (await micropubGet(t.app, token, { q: 'source', filter: 'SPECIAL' })).json() as {
      items: { properties: Record<string, unknown[]> }[];
      paging: unknown;
    };
    expect(body.items.map((item) => item.properties.url)).toEqual([[entryUrl('post-7')]]);
    expect(body.paging).toEqual({ limit: 20, offset: 0, total: 1 });
    // the added url is part of the matched JSON
    const byUrl = (await micropubGet(t.app, token, { q: 'source', filter: `${entryPath('post-12')}"` })).json() as {
      items: { properties: Record<string, unknown[]> }[];
    };
    expect(byUrl.items.map((item) => item.properties.content)).toEqual([['post number 12']]);
    expect(((await micropubGet(t.app, token, { q: 'source', filter: 'no such text' })).json() as { items: unknown[] }).items).toEqual([]);
  });

  it.each([
    ['limit', '-1'],
    ['limit', '1.5'],
    ['limit', 'abc'],
    ['limit', ''],
    ['offset', '-1'],
    ['offset', '1.5'],
    ['offset', 'abc'],
    ['offset', ''],
  ])('400 invalid_request for %s=%j', async (name, value) => {
    const response = await micropubGet(t.app, token, { q: 'source', [name]: value });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(INVALID_REQUEST);
  });
});

describe('GET /indieweb/micropub/?q=source (list mode, handler boundary)', () => {
  it('200 passes limit 20, offset 0 and the filter as submitted to list_entries', async () => {
    const { handler, calls } = createSpyHandler({ listEntries: async () => ({ items: [] }) });
    const t = await mountedApp({ handler });
    try {
      const token = await t.token('update');
      const response = await micropubGet(t.app, token, { q: 'source', filter: '  Mixed Case  ' });
      expect(response.statusCode).toBe(200);
      // no total reported by the handler: paging has none
      expect(response.json()).toEqual({ items: [], paging: { limit: 20, offset: 0 } });
      await micropubGet(t.app, token, { q: 'source', limit: '3', offset: '4' });
      expect(callsOf(calls, 'listEntries').map((call) => call.args[1])).toEqual([
        { limit: 20, offset: 0, filter: '  Mixed Case  ' },
        { limit: 3, offset: 4, filter: null },
      ]);
    } finally {
      await t.close();
    }
  });

  it('501 not_implemented for a handler without list_entries', async () => {
    const { listEntries: _omitted, ...rest } = createMemoryHandler({ baseUrl: BASE_URL });
    const handler: MicropubHandler = rest;
    const t = await mountedApp({ handler });
    try {
      const response = await micropubGet(t.app, await t.token('update'), { q: 'source' });
      expect(response.statusCode).toBe(501);
      expect(response.json()).toEqual({ error: 'not_implemented' });
    } finally {
      await t.close();
    }
  });

  it('400 invalid_request without the message when list_entries raises a value error', async () => {
    const { handler } = createSpyHandler({
      listEntries: async () => {
        throw new HandlerValueError('bad filter: secret detail');
      },
    });
    const t = await mountedApp({ handler });
    try {
      const response = await micropubGet(t.app, await t.token('update'), { q: 'source', filter: 'x' });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual(INVALID_REQUEST);
      expect(response.body).not.toContain('secret detail');
    } finally {
      await t.close();
    }
  });

  it('500 with an empty body when list_entries raises another error', async () => {
    const { handler } = createSpyHandler({
      listEntries: async () => {
        throw new TypeError('secret detail');
      },
    });
    const t = await mountedApp({ handler });
    try {
      const response = await micropubGet(t.app, await t.token('update'), { q: 'source' });
      expect(response.statusCode).toBe(500);
      expect(response.body).toBe('');
    } finally {
      await t.close();
    }
  });
});
