import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HandlerValueError } from '../../src/contracts/handler-errors.js';
import type { NewEntry } from '../../src/contracts/micropub-types.js';
import {
  callsOf,
  createSpyHandler,
  ENTRIES,
  entryUrl,
  INVALID_REQUEST,
  micropubGet,
  mountedApp,
  postForm,
  postJson,
  standaloneApp,
  type HandlerCall,
  type MicropubTestApp,
} from '../helpers/micropub.js';

const URL_PROPERTIES = ['photo', 'audio', 'video', 'in-reply-to', 'like-of', 'repost-of', 'bookmark-of', 'syndication'];
const NOT_HTTP_URLS = [
  ['javascript:', 'javascript:alert(1)'],
  ['data:', 'data:image/png;base64,iVBORw0KGgo='],
  ['relative', '/media/photo.jpg'],
  ['ftp:', 'ftp://files.example/photo.jpg'],
];

/** What the spy's create_entry received last. */
function createdEntry(calls: readonly HandlerCall[]): NewEntry {
  const creates = callsOf(calls, 'createEntry');
  expect(creates.length).toBeGreaterThan(0);
  return creates[creates.length - 1]!.args[0] as NewEntry;
}

describe('POST /indieweb/micropub/ (create, form-encoded)', () => {
  let t: MicropubTestApp;
  let token: string;
  const spy = createSpyHandler();
  beforeAll(async () => {
    t = await mountedApp({ handler: spy.handler });
    token = await t.token('create');
  });
  beforeEach(() => {
    spy.calls.length = 0;
  });
  afterAll(async () => {
    await t.close();
  });

  it('201 with Location holding the entry URL and an empty body', async () => {
    const response = await postForm(t.app, token, { h: 'entry', content: 'hello', 'mp-slug': 'first' });
    expect(response.statusCode).toBe(201);
    expect(response.headers.location).toBe(`${ENTRIES}first`);
    expect(response.body).toBe('');
  });

  it('201 turns a single value into a one-item array and h=entry into type h-entry', async () => {
    expect((await postForm(t.app, token, { h: 'entry', content: 'hello world' })).statusCode).toBe(201);
    expect(createdEntry(spy.calls)).toEqual({ type: ['h-entry'], properties: { content: ['hello world'] } });
  });

  it('201 with type h-entry when h is omitted', async () => {
    expect((await postForm(t.app, token, { content: 'no h' })).statusCode).toBe(201);
    expect(createdEntry(spy.calls)).toEqual({ type: ['h-entry'], properties: { content: ['no h'] } });
  });

  it('201 collects a repeated name into one array', async () => {
    expect((await postForm(t.app, token, { content: 'x', syndication: ['https://a.example/1', 'https://b.example/2'] })).statusCode).toBe(
      201,
    );
    expect(createdEntry(spy.calls).properties.syndication).toEqual(['https://a.example/1', 'https://b.example/2']);
  });

  it('201 comma-splits category only', async () => {
    const response = await postForm(t.app, token, {
      content: 'one, two, three',
      name: 'a, b',
      category: 'indieweb, micropub,tests',
      summary: 'x,y',
    });
    expect(response.statusCode).toBe(201);
    expect(createdEntry(spy.calls).properties).toEqual({
      content: ['one, two, three'],
      name: ['a, b'],
      category: ['indieweb', 'micropub', 'tests'],
      summary: ['x,y'],
    });
  });

  it('201 reads name[] notation for mp-syndicate-to, mp-channel, mp-photo-alt and category', async () => {
    const response = await postForm(t.app, token, {
      content: 'x',
      'mp-syndicate-to[]': ['https://social.example/a', 'https://social.example/b'],
      'mp-channel[]': 'notes',
      'mp-photo-alt[]': ['first alt', 'second, alt'],
      'category[]': ['x', 'y'],
    });
    expect(response.statusCode).toBe(201);
    expect(createdEntry(spy.calls).properties).toEqual({
      content: ['x'],
      'mp-syndicate-to': ['https://social.example/a', 'https://social.example/b'],
      'mp-channel': ['notes'],
      'mp-photo-alt': ['first alt', 'second, alt'],
      category: ['x', 'y'],
    });
  });

  it('201 forwards event properties unchanged as arrays, content as content', async () => {
    const event = {
      name: 'IndieWebCamp',
      summary: 'A gathering, of sorts',
      description: 'Two days of building',
      start: '2026-05-01T09:00:00+02:00',
      end: '2026-05-02T18:00:00+02:00',
      location: 'geo:52.52,13.40',
      url: 'https://events.example/iwc',
      published: '2026-04-01T10:00:00Z',
      content: 'Come along',
    };
    expect((await postForm(t.app, token, { h: 'event', ...event, category: 'indieweb' })).statusCode).toBe(201);
    const entry = createdEntry(spy.calls);
    expect(entry.type).toEqual(['h-event']);
    expect(entry.properties).toEqual({
      ...Object.fromEntries(Object.entries(event).map(([name, value]) => [name, [value]])),
      category: ['indieweb'],
    });
  });

  it('201 forwards RSVP properties unchanged as arrays', async () => {
    const response = await postForm(t.app, token, {
      h: 'entry',
      rsvp: 'maybe',
      'in-reply-to': 'https://events.example/iwc',
      content: 'If I can make it',
    });
    expect(response.statusCode).toBe(201);
    expect(createdEntry(spy.calls)).toEqual({
      type: ['h-entry'],
      properties: { rsvp: ['maybe'], 'in-reply-to': ['https://events.example/iwc'], content: ['If I can make it'] },
    });
  });

  it('201 forwards mp-* commands and post-status without executing them', async () => {
    const response = await postForm(t.app, token, {
      content: 'draft',
      'post-status': 'draft',
      'mp-slug': 'a-draft',
      'mp-channel': 'notes',
      'mp-photo-alt': 'alt',
      'mp-syndicate-to': 'https://social.example/a',
      'mp-unknown-command': 'x',
    });
    expect(response.statusCode).toBe(201);
    expect(createdEntry(spy.calls).properties).toEqual({
      content: ['draft'],
      'post-status': ['draft'],
      'mp-slug': ['a-draft'],
      'mp-channel': ['notes'],
      'mp-photo-alt': ['alt'],
      'mp-syndicate-to': ['https://social.example/a'],
      'mp-unknown-command': ['x'],
    });
    expect(spy.calls.map((call) => call.operation)).toEqual(['createEntry']);
  });

  it('201 accepts an access_token form field as the credential and does not store it', async () => {
    const response = await postForm(t.app, null, { h: 'entry', content: 'via body', access_token: token });
    expect(response.statusCode).toBe(201);
    expect(createdEntry(spy.calls)).toEqual({ type: ['h-entry'], properties: { content: ['via body'] } });
  });

  it('201 accepts an Authorization form field and does not store it', async () => {
    const response = await postForm(t.app, null, { content: 'via field', Authorization: `Bearer ${token}` });
    expect(response.statusCode).toBe(201);
    expect(createdEntry(spy.calls).properties).toEqual({ content: ['via field'] });
  });

  it('201 when header and access_token field carry the same token', async () => {
    const response = await postForm(t.app, token, { content: 'both', access_token: token });
    expect(response.statusCode).toBe(201);
    expect(createdEntry(spy.calls).properties).toEqual({ content: ['both'] });
  });

  it('400 invalid_request when header and access_token field carry different tokens', async () => {
    const other = await t.token('create');
    const response = await postForm(t.app, token, { content: 'both', access_token: other });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(INVALID_REQUEST);
    expect(callsOf(spy.calls, 'createEntry')).toEqual([]);
  });

  it('401 for an unknown access_token form field', async () => {
    const response = await postForm(t.app, null, { content: 'x', access_token: 'not-a-token' });
    expect(response.statusCode).toBe(401);
    expect(response.body).toBe('authentication error');
  });

  it.each([
    ['uid', { content: 'x', uid: 'https://alice.example/1' }],
    ['author', { content: 'x', author: 'https://mallory.example/' }],
    ['uid[]', { content: 'x', 'uid[]': 'https://alice.example/1' }],
    ['author[]', { content: 'x', 'author[]': ['a', 'b'] }],
  ])('400 invalid_request when a create submits %s', async (_label, fields) => {
    const response = await postForm(t.app, token, fields);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(INVALID_REQUEST);
    expect(callsOf(spy.calls, 'createEntry')).toEqual([]);
  });

  describe.each(URL_PROPERTIES)('URL-typed %s', (name) => {
    it.each(NOT_HTTP_URLS)('400 invalid_request for a %s value and the handler is not called', async (_label, value) => {
      const response = await postForm(t.app, token, { content: 'x', [name]: value });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual(INVALID_REQUEST);
      expect(spy.calls).toEqual([]);
    });

    it('400 invalid_request when one of several values is not http(s)', async () => {
      const response = await postForm(t.app, token, { content: 'x', [`${name}[]`]: ['https://ok.example/a', 'javascript:alert(1)'] });
      expect(response.statusCode).toBe(400);
      expect(spy.calls).toEqual([]);
    });

    it('201 for absolute http and https values', async () => {
      const response = await postForm(t.app, token, { content: 'x', [name]: ['http://ok.example/a', 'https://ok.example/b?c=d#e'] });
      expect(response.statusCode).toBe(201);
      expect(createdEntry(spy.calls).properties[name]).toEqual(['http://ok.example/a', 'https://ok.example/b?c=d#e']);
    });
  });

  it.each([
    ['path separators', '../a/b', 'ab'],
    ['backslashes', '..\\a\\b', 'ab'],
    ['leading dots', '.hidden', 'hidden'],
    ['control characters', 'hello\u0000\u0007world\u007f', 'helloworld'],
    ['nothing unsafe', 'my first post', 'my first post'],
    ['an inner dot', 'v1.2', 'v1.2'],
  ])('201 sanitizes an mp-slug with %s before the handler', async (_label, slug, expected) => {
    const response = await postForm(t.app, token, { content: 'x', 'mp-slug': slug });
    expect(response.statusCode).toBe(201);
    expect(createdEntry(spy.calls).properties['mp-slug']).toEqual([expected]);
  });

  it.each(['...', '/', '../', '\u0001', '.\u0000/'])('201 omits an mp-slug that sanitizes to nothing (%j)', async (slug) => {
    const response = await postForm(t.app, token, { content: 'x', 'mp-slug': slug });
    expect(response.statusCode).toBe(201);
    expect(createdEntry(spy.calls).properties).toEqual({ content: ['x'] });
  });
});

describe('POST /indieweb/micropub/ (create, JSON)', () => {
  let t: MicropubTestApp;
  let token: string;
  const spy = createSpyHandler();
  beforeAll(async () => {
    t = await mountedApp({ handler: spy.handler });
    token = await t.token('create');
  });
  beforeEach(() => {
    spy.calls.length = 0;
  });
  afterAll(async () => {
    await t.close();
  });

  it('201 passes type and properties to the handler unchanged, nested objects included', async () => {
    const entry = {
      type: ['h-entry'],
      properties: {
        content: [{ html: '<b>x</b>', value: 'x' }],
        photo: [{ value: 'https://media.example/a.jpg', alt: 'A photo' }, 'https://media.example/b.jpg'],
        category: ['a,b', 'c'],
        'like-of': [{ type: ['h-cite'], properties: { url: ['https://liked.example/post'], name: ['A post'] } }],
        location: [{ type: ['h-adr'], properties: { locality: ['Berlin'] } }],
        'x-extension': [{ nested: { deep: [1, 2, { three: null }] } }, 42, true],
      },
    };
    const response = await postJson(t.app, token, entry);
    expect(response.statusCode).toBe(201);
    expect(response.headers.location).toMatch(new RegExp(`^${ENTRIES}`));
    expect(createdEntry(spy.calls)).toEqual(entry);
  });

  it('201 keeps a non-entry type such as h-event', async () => {
    const response = await postJson(t.app, token, { type: ['h-event'], properties: { name: ['Party'], start: ['2026-06-01T20:00:00Z'] } });
    expect(response.statusCode).toBe(201);
    expect(createdEntry(spy.calls)).toEqual({ type: ['h-event'], properties: { name: ['Party'], start: ['2026-06-01T20:00:00Z'] } });
  });

  it('201 accepts a JSON content type with parameters', async () => {
    const response = await postJson(
      t.app,
      token,
      { type: ['h-entry'], properties: { content: ['charset'] } },
      { headers: { 'content-type': 'application/json; charset=utf-8' } },
    );
    expect(response.statusCode).toBe(201);
    expect(createdEntry(spy.calls).properties).toEqual({ content: ['charset'] });
  });

  it('201 accepts an access_token key as the credential and does not store it', async () => {
    const response = await postJson(t.app, null, { type: ['h-entry'], properties: { content: ['token in body'] }, access_token: token });
    expect(response.statusCode).toBe(201);
    expect(createdEntry(spy.calls)).toEqual({ type: ['h-entry'], properties: { content: ['token in body'] } });
  });

  it.each([
    ['unparseable JSON', '{'],
    ['invalid UTF-8', Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d])],
    ['an array', '[{"type":["h-entry"],"properties":{"content":["x"]}}]'],
    ['a string', '"hello"'],
    ['null', 'null'],
    ['a number', '42'],
  ])('400 invalid_request for %s before the scope check', async (_label, raw) => {
    const noCreate = await t.token('update delete undelete media');
    for (const contentType of ['application/json', 'application/json; charset=utf-8']) {
      const response = await postJson(t.app, noCreate, raw, { raw: true, headers: { 'content-type': contentType } });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual(INVALID_REQUEST);
    }
    expect(spy.calls).toEqual([]);
  });

  it.each([
    ['unparseable JSON', '{'],
    ['invalid UTF-8', Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d])],
    ['an array', '[1]'],
  ])('401 authentication error for %s without a token or with an unknown one: the token is checked first', async (_label, raw) => {
    for (const credential of [null, 'not-a-token']) {
      const response = await postJson(t.app, credential, raw, { raw: true });
      expect(response.statusCode).toBe(401);
      expect(response.body).toBe('authentication error');
      expect(response.headers['www-authenticate']).toBe('Bearer');
    }
    expect(spy.calls).toEqual([]);
  });

  it('401 for a form body that would be refused, without a token', async () => {
    const response = await postForm(t.app, null, { h: 'Not A Type', content: 'x' });
    expect(response.statusCode).toBe(401);
    expect(response.body).toBe('authentication error');
  });

  it.each([
    ['type is not an array', { type: 'h-entry', properties: { content: ['x'] } }],
    ['properties is not an object', { type: ['h-entry'], properties: ['content'] }],
    ['a property is not an array', { type: ['h-entry'], properties: { content: 'x' } }],
  ])('400 invalid_request when %s', async (_label, body) => {
    const response = await postJson(t.app, token, body);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(INVALID_REQUEST);
    expect(spy.calls).toEqual([]);
  });

  describe.each(URL_PROPERTIES)('URL-typed %s', (name) => {
    it.each(NOT_HTTP_URLS)('400 invalid_request for a %s value and the handler is not called', async (_label, value) => {
      const response = await postJson(t.app, token, { type: ['h-entry'], properties: { content: ['x'], [name]: [value] } });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual(INVALID_REQUEST);
      expect(spy.calls).toEqual([]);
    });
  });

  it.each([
    ['a {value, alt} photo with a javascript: value', { photo: [{ value: 'javascript:alert(1)', alt: 'x' }] }],
    ['a {value, alt} photo with a data: value', { photo: [{ value: 'data:image/png;base64,AAAA', alt: 'x' }] }],
    ['an embedded h-cite whose url is relative', { 'in-reply-to': [{ type: ['h-cite'], properties: { url: ['/post'] } }] }],
  ])('400 invalid_request for %s', async (_label, properties) => {
    const response = await postJson(t.app, token, { type: ['h-entry'], properties });
    expect(response.statusCode).toBe(400);
    expect(spy.calls).toEqual([]);
  });

  it.each(['uid', 'author'])('400 invalid_request when a create submits %s', async (name) => {
    const response = await postJson(t.app, token, {
      type: ['h-entry'],
      properties: { content: ['x'], [name]: ['https://alice.example/'] },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(INVALID_REQUEST);
    expect(spy.calls).toEqual([]);
  });

  it.each([
    ['../a/b', ['ab']],
    ['...', undefined],
  ])('201 sanitizes the JSON mp-slug %j before the handler', async (slug, expected) => {
    const response = await postJson(t.app, token, { type: ['h-entry'], properties: { content: ['x'], 'mp-slug': [slug] } });
    expect(response.statusCode).toBe(201);
    expect(createdEntry(spy.calls).properties['mp-slug']).toEqual(expected);
  });
});

describe('POST /indieweb/micropub/ (create with INDIEWEB_MICROPUB_SERVER_MANAGED_PROPERTIES)', () => {
  let t: MicropubTestApp;
  let token: string;
  const spy = createSpyHandler();
  beforeAll(async () => {
    t = await mountedApp({ handler: spy.handler, env: { INDIEWEB_MICROPUB_SERVER_MANAGED_PROPERTIES: '_owner, _internal' } });
    token = await t.token('create');
  });
  afterAll(async () => {
    await t.close();
  });

  it.each(['_owner', '_internal', 'uid', 'author'])('400 invalid_request when a form create submits %s', async (name) => {
    const response = await postForm(t.app, token, { content: 'x', [name]: 'y' });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(INVALID_REQUEST);
  });

  it.each(['_owner', 'uid', 'author'])('400 invalid_request when a JSON create submits %s', async (name) => {
    const response = await postJson(t.app, token, { type: ['h-entry'], properties: { content: ['x'], [name]: ['y'] } });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(INVALID_REQUEST);
    expect(callsOf(spy.calls, 'createEntry')).toEqual([]);
  });

  it('201 for a create without a server-managed property', async () => {
    expect((await postForm(t.app, token, { content: 'x', owner: 'not managed' })).statusCode).toBe(201);
  });
});

describe('POST /indieweb/micropub/ (create without the setting)', () => {
  it('201 accepts _owner when it is not configured as server-managed', async () => {
    const spy = createSpyHandler();
    const t = await mountedApp({ handler: spy.handler });
    try {
      expect((await postForm(t.app, await t.token('create'), { content: 'x', _owner: 'y' })).statusCode).toBe(201);
      expect(createdEntry(spy.calls).properties).toEqual({ content: ['x'], _owner: ['y'] });
    } finally {
      await t.close();
    }
  });
});

describe('POST /indieweb/micropub/ (create, handler failures)', () => {
  it('400 invalid_request without the message when create_entry raises a value error', async () => {
    const { handler } = createSpyHandler({
      createEntry: async () => {
        throw new HandlerValueError('slug taken: secret detail');
      },
    });
    const t = await mountedApp({ handler });
    try {
      for (const response of [
        await postForm(t.app, await t.token('create'), { content: 'x' }),
        await postJson(t.app, await t.token('create'), { type: ['h-entry'], properties: { content: ['x'] } }),
      ]) {
        expect(response.statusCode).toBe(400);
        expect(response.json()).toEqual(INVALID_REQUEST);
        expect(response.body).not.toContain('secret detail');
      }
    } finally {
      await t.close();
    }
  });

  it('500 with an empty body when create_entry raises another error', async () => {
    const { handler } = createSpyHandler({
      createEntry: async () => {
        throw new Error('disk full: secret detail');
      },
    });
    const t = await mountedApp({ handler });
    try {
      for (const response of [
        await postForm(t.app, await t.token('create'), { content: 'x' }),
        await postJson(t.app, await t.token('create'), { type: ['h-entry'], properties: { content: ['x'] } }),
      ]) {
        expect(response.statusCode).toBe(500);
        expect(response.body).toBe('');
      }
    } finally {
      await t.close();
    }
  });

  it('500 with an empty body when create_entry throws a non-Error value', async () => {
    const { handler } = createSpyHandler({
      createEntry: async () => {
        throw 'a string';
      },
    });
    const t = await mountedApp({ handler });
    try {
      const response = await postForm(t.app, await t.token('create'), { content: 'x' });
      expect(response.statusCode).toBe(500);
      expect(response.body).toBe('');
    } finally {
      await t.close();
    }
  });
});

describe('POST /indieweb/micropub/ (body limits)', () => {
  it('413 invalid_request for a form body over 1 MiB', async () => {
    const t = await standaloneApp();
    try {
      const token = await t.token('create');
      const response = await postForm(t.app, token, `content=${'a'.repeat(1024 * 1024)}`);
      expect(response.statusCode).toBe(413);
      expect(response.json()).toEqual(INVALID_REQUEST);
      // just under the limit still works
      expect((await postForm(t.app, token, `content=${'a'.repeat(1024 * 1024 - 100)}`)).statusCode).toBe(201);
    } finally {
      await t.close();
    }
  });

  it('413 invalid_request for a 3000-byte JSON or form body with INDIEWEB_MAX_BODY_BYTES=2048', async () => {
    const t = await standaloneApp({ INDIEWEB_MAX_BODY_BYTES: '2048' });
    try {
      const token = await t.token('create');
      const json = JSON.stringify({ type: ['h-entry'], properties: { content: ['a'.repeat(3000 - 50)] } });
      expect(Buffer.byteLength(json)).toBe(3000);
      const tooBig = await postJson(t.app, token, json, { raw: true });
      expect(tooBig.statusCode).toBe(413);
      expect(tooBig.json()).toEqual(INVALID_REQUEST);
      const form = await postForm(t.app, token, `content=${'a'.repeat(2992)}`);
      expect(form.statusCode).toBe(413);
      expect(form.json()).toEqual(INVALID_REQUEST);
      expect((await postJson(t.app, token, { type: ['h-entry'], properties: { content: ['a'.repeat(1000)] } })).statusCode).toBe(201);
    } finally {
      await t.close();
    }
  });
});

describe('POST /indieweb/micropub/ (create, built-in handler)', () => {
  it('201 and the entry reads back through q=source', async () => {
    const t = await standaloneApp();
    try {
      const token = await t.token('create update');
      const response = await postForm(t.app, token, { h: 'entry', content: 'stored', 'category[]': ['a', 'b'], 'mp-slug': 'stored' });
      expect(response.statusCode).toBe(201);
      expect(response.headers.location).toBe(entryUrl('stored'));
      const source = await micropubGet(t.app, token, { q: 'source', url: entryUrl('stored') });
      expect(source.json()).toEqual({
        type: ['h-entry'],
        properties: { content: ['stored'], category: ['a', 'b'], 'mp-slug': ['stored'] },
      });
    } finally {
      await t.close();
    }
  });
});
