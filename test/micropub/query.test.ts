import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MicropubConfig } from '../../src/contracts/micropub-types.js';
import { ME } from '../helpers/indieauth.js';
import {
  createSpyHandler,
  INVALID_REQUEST,
  MEDIA_ENDPOINT,
  micropubGet,
  mountedApp,
  standaloneApp,
  type MicropubTestApp,
} from '../helpers/micropub.js';

const BUILT_IN_POST_TYPES = [
  { type: 'note', name: 'Note', properties: ['content'] },
  { type: 'article', name: 'Article', properties: ['name', 'content'] },
  { type: 'photo', name: 'Photo', properties: ['photo', 'content', 'category'] },
  { type: 'audio', name: 'Audio', properties: ['audio', 'content', 'category'] },
  { type: 'video', name: 'Video', properties: ['video', 'content', 'category'] },
  { type: 'reply', name: 'Reply', properties: ['in-reply-to', 'content'] },
  { type: 'bookmark', name: 'Bookmark', properties: ['bookmark-of', 'name', 'content'] },
  { type: 'like', name: 'Like', properties: ['like-of'] },
  { type: 'repost', name: 'Repost', properties: ['repost-of'] },
  {
    type: 'event',
    name: 'Event',
    properties: ['name', 'summary', 'description', 'start', 'end', 'location', 'category', 'url', 'published'],
  },
  { type: 'rsvp', name: 'RSVP', properties: ['rsvp', 'in-reply-to', 'name', 'content'] },
];

/** A mounted app whose handler answers get_config with `config`. */
function appWithConfig(config: unknown): Promise<MicropubTestApp> {
  const { handler } = createSpyHandler({ getConfig: async () => config as MicropubConfig });
  return mountedApp({ handler });
}

describe('GET /indieweb/micropub/ (built-in handler)', () => {
  let t: MicropubTestApp;
  let token: string;
  beforeAll(async () => {
    t = await standaloneApp();
    token = await t.token('create');
  });
  afterAll(async () => {
    await t.close();
  });

  it('200 form-encoded `me` without q', async () => {
    const response = await micropubGet(t.app, token);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded/);
    expect(Object.fromEntries(new URLSearchParams(response.body))).toEqual({ me: ME });
  });

  it('200 q=config with the built-in lists, post types, q list and an absolute media-endpoint', async () => {
    const response = await micropubGet(t.app, token, { q: 'config' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.json()).toEqual({
      'media-endpoint': MEDIA_ENDPOINT,
      'syndicate-to': [],
      categories: [],
      channels: [],
      'post-types': BUILT_IN_POST_TYPES,
      q: ['config', 'source', 'syndicate-to', 'category', 'channel', 'media-endpoint', 'post-types'],
    });
  });

  it('200 q=config advertises neither contacts nor a properties query', async () => {
    const { q } = (await micropubGet(t.app, token, { q: 'config' })).json() as { q: string[] };
    expect(q).not.toContain('contacts');
    expect(q).not.toContain('properties');
  });

  it('200 q=media-endpoint with the absolute media endpoint URL', async () => {
    const response = await micropubGet(t.app, token, { q: 'media-endpoint' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ 'media-endpoint': MEDIA_ENDPOINT });
  });

  it('200 q=syndicate-to with an empty list', async () => {
    const response = await micropubGet(t.app, token, { q: 'syndicate-to' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ 'syndicate-to': [] });
  });

  it('200 q=category with an empty list', async () => {
    expect((await micropubGet(t.app, token, { q: 'category' })).json()).toEqual({ categories: [] });
  });

  it('200 q=channel with an empty list', async () => {
    expect((await micropubGet(t.app, token, { q: 'channel' })).json()).toEqual({ channels: [] });
  });

  it('200 q=post-types with the eleven built-in post types', async () => {
    const response = await micropubGet(t.app, token, { q: 'post-types' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ 'post-types': BUILT_IN_POST_TYPES });
  });

  it('200 q=post-types&post-type=photo narrows to the photo type', async () => {
    expect((await micropubGet(t.app, token, { q: 'post-types', 'post-type': 'photo' })).json()).toEqual({
      'post-types': [BUILT_IN_POST_TYPES[2]],
    });
  });

  it('200 q=post-types with an unknown post-type gives an empty list', async () => {
    const response = await micropubGet(t.app, token, { q: 'post-types', 'post-type': 'checkin' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ 'post-types': [] });
  });

  it('200 q=post-types applies post-type before filter, offset and limit', async () => {
    // filter "content" alone matches 8 types; post-type=like narrows to one that does not contain it
    expect((await micropubGet(t.app, token, { q: 'post-types', 'post-type': 'like', filter: 'content' })).json()).toEqual({
      'post-types': [],
    });
    expect((await micropubGet(t.app, token, { q: 'post-types', 'post-type': 'note', offset: '0', limit: '5' })).json()).toEqual({
      'post-types': [BUILT_IN_POST_TYPES[0]],
    });
    expect((await micropubGet(t.app, token, { q: 'post-types', 'post-type': 'note', offset: '1' })).json()).toEqual({ 'post-types': [] });
  });

  it('200 q=post-types filters the stable JSON, then offsets, then limits', async () => {
    // "in-reply-to" occurs in reply and rsvp only
    expect((await micropubGet(t.app, token, { q: 'post-types', filter: 'IN-REPLY-TO' })).json()).toEqual({
      'post-types': [BUILT_IN_POST_TYPES[5], BUILT_IN_POST_TYPES[10]],
    });
    expect((await micropubGet(t.app, token, { q: 'post-types', filter: 'in-reply-to', offset: '1' })).json()).toEqual({
      'post-types': [BUILT_IN_POST_TYPES[10]],
    });
    expect((await micropubGet(t.app, token, { q: 'post-types', filter: 'in-reply-to', limit: '1' })).json()).toEqual({
      'post-types': [BUILT_IN_POST_TYPES[5]],
    });
    expect((await micropubGet(t.app, token, { q: 'post-types', offset: '9', limit: '1' })).json()).toEqual({
      'post-types': [BUILT_IN_POST_TYPES[9]],
    });
  });

  it.each(['contacts', 'properties', 'nope', ''])('400 invalid_request for q=%j', async (q) => {
    const response = await micropubGet(t.app, token, { q });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(INVALID_REQUEST);
  });

  describe.each(['category', 'channel', 'post-types'])('q=%s list parameters', (q) => {
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
      const response = await micropubGet(t.app, token, { q, [name]: value });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual(INVALID_REQUEST);
    });

    it('200 with limit=0 and a large offset', async () => {
      const response = await micropubGet(t.app, token, { q, limit: '0', offset: '1000' });
      expect(response.statusCode).toBe(200);
    });
  });
});

describe('GET /indieweb/micropub/?q=config (handler-supplied values)', () => {
  it('200 keeps a truthy media-endpoint from the handler', async () => {
    const t = await appWithConfig({ 'media-endpoint': 'https://media.example/upload', q: ['config'] });
    try {
      const response = await micropubGet(t.app, await t.token(''), { q: 'config' });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ 'media-endpoint': 'https://media.example/upload', q: ['config'] });
      expect((await micropubGet(t.app, await t.token(''), { q: 'media-endpoint' })).json()).toEqual({
        'media-endpoint': 'https://media.example/upload',
      });
    } finally {
      await t.close();
    }
  });

  it.each([
    ['an empty string', ''],
    ['null', null],
    ['false', false],
    ['0', 0],
  ])('200 replaces a falsy media-endpoint (%s) with the bundled one', async (_label, value) => {
    const t = await appWithConfig({ 'media-endpoint': value, categories: ['a'] });
    try {
      const token = await t.token('');
      expect((await micropubGet(t.app, token, { q: 'config' })).json()).toEqual({ 'media-endpoint': MEDIA_ENDPOINT, categories: ['a'] });
      expect((await micropubGet(t.app, token, { q: 'media-endpoint' })).json()).toEqual({ 'media-endpoint': MEDIA_ENDPOINT });
    } finally {
      await t.close();
    }
  });

  it('200 injects media-endpoint when the handler config lacks it', async () => {
    const t = await appWithConfig({});
    try {
      expect((await micropubGet(t.app, await t.token(''), { q: 'config' })).json()).toEqual({ 'media-endpoint': MEDIA_ENDPOINT });
    } finally {
      await t.close();
    }
  });
});

describe('GET /indieweb/micropub/?q=config answers what the handler returns now', () => {
  /** A mounted app whose handler answers get_config with whatever `current()` gives at the time. */
  function appWithLiveConfig(current: () => unknown): Promise<MicropubTestApp> {
    const { handler } = createSpyHandler({ getConfig: async () => current() as MicropubConfig });
    return mountedApp({ handler });
  }

  it('200 follows a handler that changes the same object in place between requests', async () => {
    const config: { categories: string[]; 'syndicate-to'?: unknown[] } = { categories: ['a'] };
    const t = await appWithLiveConfig(() => config);
    try {
      const token = await t.token('');
      expect((await micropubGet(t.app, token, { q: 'config' })).json()).toEqual({ 'media-endpoint': MEDIA_ENDPOINT, categories: ['a'] });
      config.categories.push('b');
      config['syndicate-to'] = [{ uid: 'https://social.example/', name: 'Social' }];
      expect((await micropubGet(t.app, token, { q: 'config' })).json()).toEqual({
        'media-endpoint': MEDIA_ENDPOINT,
        categories: ['a', 'b'],
        'syndicate-to': [{ uid: 'https://social.example/', name: 'Social' }],
      });
    } finally {
      await t.close();
    }
  });

  it('200 follows a frozen object whose inner list still changes', async () => {
    const categories = ['a'];
    const config = Object.freeze({ categories });
    const t = await appWithLiveConfig(() => config);
    try {
      const token = await t.token('');
      expect((await micropubGet(t.app, token, { q: 'config' })).json()).toEqual({ 'media-endpoint': MEDIA_ENDPOINT, categories: ['a'] });
      categories.push('b');
      expect((await micropubGet(t.app, token, { q: 'config' })).json()).toEqual({
        'media-endpoint': MEDIA_ENDPOINT,
        categories: ['a', 'b'],
      });
    } finally {
      await t.close();
    }
  });

  it('200 follows a frozen object with a getter or a toJSON', async () => {
    let n = 0;
    const withGetter = Object.freeze(Object.defineProperty({}, 'categories', { enumerable: true, get: () => [`c${++n}`] }));
    const withToJson = Object.freeze({ channels: Object.freeze({ toJSON: () => [{ uid: `u${++n}`, name: 'N' }] }) });
    let current: unknown = withGetter;
    const t = await appWithLiveConfig(() => current);
    try {
      const token = await t.token('');
      const first = (await micropubGet(t.app, token, { q: 'config' })).json() as { categories: string[] };
      const second = (await micropubGet(t.app, token, { q: 'config' })).json() as { categories: string[] };
      expect(first.categories).not.toEqual(second.categories);
      current = withToJson;
      const third = (await micropubGet(t.app, token, { q: 'config' })).json() as { channels: { uid: string }[] };
      const fourth = (await micropubGet(t.app, token, { q: 'config' })).json() as { channels: { uid: string }[] };
      expect(third.channels[0]?.uid).not.toBe(fourth.channels[0]?.uid);
    } finally {
      await t.close();
    }
  });

  it('200 with a JSON content type and the same answer for a deeply frozen config, each time', async () => {
    const config = Object.freeze({
      categories: Object.freeze(['a', 'b']),
      channels: Object.freeze([Object.freeze({ uid: 'notes', name: 'Notes' })]),
    });
    let current: unknown = config;
    const t = await appWithLiveConfig(() => current);
    try {
      const token = await t.token('');
      for (let i = 0; i < 3; i++) {
        const response = await micropubGet(t.app, token, { q: 'config' });
        expect(response.statusCode).toBe(200);
        expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
        expect(response.json()).toEqual({
          'media-endpoint': MEDIA_ENDPOINT,
          categories: ['a', 'b'],
          channels: [{ uid: 'notes', name: 'Notes' }],
        });
      }
      // a new object is a new answer
      current = Object.freeze({ categories: Object.freeze(['z']) });
      expect((await micropubGet(t.app, token, { q: 'config' })).json()).toEqual({ 'media-endpoint': MEDIA_ENDPOINT, categories: ['z'] });
    } finally {
      await t.close();
    }
  });
});

describe('GET /indieweb/micropub/?q=syndicate-to (handler-supplied values)', () => {
  const targets = [
    {
      uid: 'https://social.example/@alice',
      name: 'alice on social',
      service: { name: 'Social', url: 'https://social.example/', photo: 'https://social.example/logo.png' },
      checked: true,
    },
    { uid: 'https://other.example/', name: 'other' },
  ];

  it('200 lists the handler targets unchanged', async () => {
    const t = await appWithConfig({ 'syndicate-to': targets });
    try {
      const response = await micropubGet(t.app, await t.token(''), { q: 'syndicate-to' });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ 'syndicate-to': targets });
    } finally {
      await t.close();
    }
  });

  it.each([
    ['missing', {}],
    ['a string', { 'syndicate-to': 'https://social.example/' }],
    ['an object', { 'syndicate-to': { uid: 'x', name: 'y' } }],
    ['null', { 'syndicate-to': null }],
  ])('200 with an empty list when the handler value is %s', async (_label, config) => {
    const t = await appWithConfig(config);
    try {
      const response = await micropubGet(t.app, await t.token(''), { q: 'syndicate-to' });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ 'syndicate-to': [] });
    } finally {
      await t.close();
    }
  });
});

describe('GET /indieweb/micropub/?q=category and q=channel (handler-supplied lists)', () => {
  let t: MicropubTestApp;
  let token: string;
  const categories = ['a1', 'b1', 'B2', 'A2', 'a3', 'IndieWeb'];
  const channels = [
    { uid: 'notes', name: 'Notes' },
    { uid: 'photos', name: 'Photos' },
    { uid: 'web', name: 'Web Stuff' },
  ];
  beforeAll(async () => {
    t = await appWithConfig({ categories, channels });
    token = await t.token('');
  });
  afterAll(async () => {
    await t.close();
  });

  it('200 q=category lists every category without parameters', async () => {
    expect((await micropubGet(t.app, token, { q: 'category' })).json()).toEqual({ categories });
  });

  it('200 q=category filters case-insensitively by substring', async () => {
    expect((await micropubGet(t.app, token, { q: 'category', filter: 'a' })).json()).toEqual({ categories: ['a1', 'A2', 'a3'] });
    expect((await micropubGet(t.app, token, { q: 'category', filter: 'WEB' })).json()).toEqual({ categories: ['IndieWeb'] });
    expect((await micropubGet(t.app, token, { q: 'category', filter: 'zzz' })).json()).toEqual({ categories: [] });
  });

  it('200 q=category applies filter, then offset, then limit', async () => {
    // filter→offset→limit gives a3; offset first would give A2; limit before offset would give nothing
    expect((await micropubGet(t.app, token, { q: 'category', filter: 'a', offset: '2', limit: '1' })).json()).toEqual({
      categories: ['a3'],
    });
    expect((await micropubGet(t.app, token, { q: 'category', offset: '1', limit: '2' })).json()).toEqual({ categories: ['b1', 'B2'] });
    expect((await micropubGet(t.app, token, { q: 'category', limit: '0' })).json()).toEqual({ categories: [] });
    expect((await micropubGet(t.app, token, { q: 'category', offset: '6' })).json()).toEqual({ categories: [] });
  });

  it('200 q=channel lists every channel without parameters', async () => {
    expect((await micropubGet(t.app, token, { q: 'channel' })).json()).toEqual({ channels });
  });

  it('200 q=channel filters case-insensitively against the stable JSON of each object', async () => {
    // keys are sorted in the stable serialization: {"name":"Web Stuff","uid":"web"}
    expect((await micropubGet(t.app, token, { q: 'channel', filter: '"name":"web stuff","uid"' })).json()).toEqual({
      channels: [channels[2]],
    });
    expect((await micropubGet(t.app, token, { q: 'channel', filter: 'PHOTOS' })).json()).toEqual({ channels: [channels[1]] });
    expect((await micropubGet(t.app, token, { q: 'channel', filter: '"uid"' })).json()).toEqual({ channels });
  });

  it('200 q=channel applies filter, then offset, then limit', async () => {
    expect((await micropubGet(t.app, token, { q: 'channel', filter: 'o', offset: '1', limit: '1' })).json()).toEqual({
      channels: [channels[1]],
    });
    expect((await micropubGet(t.app, token, { q: 'channel', offset: '2', limit: '5' })).json()).toEqual({ channels: [channels[2]] });
  });

  it.each(['category', 'channel'])('200 q=%s with an empty list when the handler has no such key', async (q) => {
    const bare = await appWithConfig({ q: ['config'] });
    try {
      const response = await micropubGet(bare.app, await bare.token(''), { q });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual(q === 'category' ? { categories: [] } : { channels: [] });
    } finally {
      await bare.close();
    }
  });
});
