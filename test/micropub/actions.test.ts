import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HandlerValueError } from '../../src/contracts/handler-errors.js';
import type { UpdateOperations } from '../../src/contracts/micropub-types.js';
import { ME } from '../helpers/indieauth.js';
import {
  BASE_URL,
  callsOf,
  createSpyHandler,
  createViaJson,
  ENTRIES,
  slugOf,
  INVALID_REQUEST,
  micropubGet,
  mountedApp,
  postForm,
  postJson,
  standaloneApp,
  type MicropubTestApp,
} from '../helpers/micropub.js';

const URL_PROPERTIES = ['photo', 'audio', 'video', 'in-reply-to', 'like-of', 'repost-of', 'bookmark-of', 'syndication'];

async function propertiesOf(t: MicropubTestApp, token: string, url: string): Promise<Record<string, unknown[]>> {
  const response = await micropubGet(t.app, token, { q: 'source', url });
  expect(response.statusCode).toBe(200);
  return (response.json() as { properties: Record<string, unknown[]> }).properties;
}

describe('POST /indieweb/micropub/ action=update (built-in handler)', () => {
  let t: MicropubTestApp;
  let token: string;
  let n = 0;
  /** A fresh entry for each test. */
  const fresh = (properties: Record<string, unknown[]> = { content: ['original'], category: ['a', 'b', 'c'] }) =>
    createViaJson(t.app, token, { ...properties, 'mp-slug': [`update-${n++}`] });
  beforeAll(async () => {
    t = await standaloneApp();
    token = await t.token('create update');
  });
  afterAll(async () => {
    await t.close();
  });

  it('204 replaces a property and q=source shows the change', async () => {
    const url = await fresh();
    const response = await postJson(t.app, token, { action: 'update', url, replace: { content: ['replaced'] } });
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    expect(response.headers.location).toBeUndefined();
    expect((await propertiesOf(t, token, url)).content).toEqual(['replaced']);
  });

  it('204 adds values to a property and creates a missing one', async () => {
    const url = await fresh();
    expect(
      (await postJson(t.app, token, { action: 'update', url, add: { category: ['d'], syndication: ['https://social.example/1'] } }))
        .statusCode,
    ).toBe(204);
    const properties = await propertiesOf(t, token, url);
    expect(properties.category).toEqual(['a', 'b', 'c', 'd']);
    expect(properties.syndication).toEqual(['https://social.example/1']);
  });

  it('204 deletes whole properties named in a list', async () => {
    const url = await fresh();
    expect((await postJson(t.app, token, { action: 'update', url, delete: ['category'] })).statusCode).toBe(204);
    expect(await propertiesOf(t, token, url)).not.toHaveProperty('category');
  });

  it('204 deletes single values given as a map to arrays', async () => {
    const url = await fresh();
    expect((await postJson(t.app, token, { action: 'update', url, delete: { category: ['b'] } })).statusCode).toBe(204);
    expect((await propertiesOf(t, token, url)).category).toEqual(['a', 'c']);
  });

  it('204 applies replace, add and delete together', async () => {
    const url = await fresh();
    const response = await postJson(t.app, token, {
      action: 'update',
      url,
      replace: { content: ['new'] },
      add: { name: ['Title'] },
      delete: { category: ['a', 'c'] },
    });
    expect(response.statusCode).toBe(204);
    expect(await propertiesOf(t, token, url)).toMatchObject({ content: ['new'], name: ['Title'], category: ['b'] });
  });

  it('204 for a JSON content type with a charset parameter', async () => {
    const url = await fresh();
    const response = await postJson(
      t.app,
      token,
      { action: 'update', url, replace: { content: ['charset'] } },
      { headers: { 'content-type': 'application/json; charset=utf-8' } },
    );
    expect(response.statusCode).toBe(204);
    expect((await propertiesOf(t, token, url)).content).toEqual(['charset']);
  });

  it('204 for a relative URL', async () => {
    const url = await fresh();
    const response = await postJson(t.app, token, { action: 'update', url: new URL(url).pathname, replace: { content: ['relative'] } });
    expect(response.statusCode).toBe(204);
    expect((await propertiesOf(t, token, url)).content).toEqual(['relative']);
  });

  it('204 for an absolute URL on the request host', async () => {
    const url = await fresh();
    const response = await postJson(
      t.app,
      token,
      { action: 'update', url, replace: { content: ['absolute'] } },
      { headers: { host: 'INDIESTACK.test' } },
    );
    expect(response.statusCode).toBe(204);
  });

  // Found while testing: "unchanged" is judged by resolving the submitted URL against the request's own
  // origin, not the base URL the handler builds its URLs from, so behind a proxy that rewrites Host a
  // relative URL looks relocated. Spec: 204 if the URL is unchanged.
  it('204 for a relative URL when the request host differs from the base URL host (not relocated)', async () => {
    const url = await fresh();
    const response = await postJson(
      t.app,
      token,
      { action: 'update', url: new URL(url).pathname, replace: { content: ['proxied'] } },
      { headers: { host: 'localhost:3000' } },
    );
    expect(response.headers.location).toBeUndefined();
    expect(response.statusCode).toBe(204);
  });

  it('204 for undelete by relative URL when the request host differs from the base URL host (not relocated)', async () => {
    const url = await fresh();
    const owner = await t.token('delete undelete');
    expect((await postForm(t.app, owner, { action: 'delete', url })).statusCode).toBe(204);
    const response = await postForm(t.app, owner, { action: 'undelete', url: new URL(url).pathname }, { host: 'localhost:3000' });
    expect(response.headers.location).toBeUndefined();
    expect(response.statusCode).toBe(204);
  });

  it('400 invalid_request for a form-encoded update', async () => {
    const url = await fresh();
    const response = await postForm(t.app, token, { action: 'update', url, 'replace[content]': 'x' });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(INVALID_REQUEST);
    expect((await propertiesOf(t, token, url)).content).toEqual(['original']);
  });

  it('400 invalid_request for an update without replace, add or delete', async () => {
    const response = await postJson(t.app, token, { action: 'update', url: await fresh(), content: ['x'] });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(INVALID_REQUEST);
  });

  it.each([
    ['replace value is a string', { replace: { content: 'x' } }],
    ['add value is a string', { add: { category: 'd' } }],
    ['replace value is an object', { replace: { content: { html: 'x' } } }],
    ['add value is null', { add: { category: null } }],
    ['replace is a list', { replace: ['content'] }],
    ['replace is a string', { replace: 'content' }],
    ['add is null', { add: null }],
  ])('400 invalid_request when the %s', async (_label, operations) => {
    const url = await fresh();
    const response = await postJson(t.app, token, { action: 'update', url, ...operations });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(INVALID_REQUEST);
    expect((await propertiesOf(t, token, url)).content).toEqual(['original']);
  });

  it.each([
    ['a string', 'category'],
    ['a list with a number', ['category', 1]],
    ['a list with a list', [['category']]],
    ['a map to a string', { category: 'a' }],
    ['a map to an object', { category: { value: 'a' } }],
    ['null', null],
    ['a number', 1],
  ])('400 invalid_request when delete is %s', async (_label, del) => {
    const url = await fresh();
    const response = await postJson(t.app, token, { action: 'update', url, delete: del });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(INVALID_REQUEST);
    expect((await propertiesOf(t, token, url)).category).toEqual(['a', 'b', 'c']);
  });

  it('400 invalid_request for an unknown URL', async () => {
    const response = await postJson(t.app, token, { action: 'update', url: `${ENTRIES}no-such-entry`, replace: { content: ['x'] } });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(INVALID_REQUEST);
  });
});

describe('POST /indieweb/micropub/ action=update (checks before the handler)', () => {
  let t: MicropubTestApp;
  let token: string;
  let url: string;
  const spy = createSpyHandler();
  beforeAll(async () => {
    t = await mountedApp({ handler: spy.handler, env: { INDIEWEB_MICROPUB_SERVER_MANAGED_PROPERTIES: '_owner' } });
    token = await t.token('create update');
    url = await createViaJson(t.app, token, { content: ['x'], photo: ['https://media.example/a.jpg'], 'mp-slug': ['checked'] });
  });
  beforeEach(() => {
    spy.calls.length = 0;
  });
  afterAll(async () => {
    await t.close();
  });

  describe.each(['replace', 'add'])('%s', (operation) => {
    it.each(
      URL_PROPERTIES.flatMap((name) => [
        [name, 'javascript:alert(1)'],
        [name, 'data:text/html,<script>alert(1)</script>'],
      ]),
    )('400 invalid_request for %s value %j and the handler is not called', async (name, value) => {
      const response = await postJson(t.app, token, { action: 'update', url, [operation]: { [name]: [value] } });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual(INVALID_REQUEST);
      expect(spy.calls).toEqual([]);
    });

    it.each(['/a.jpg', 'ftp://files.example/a.jpg'])('400 invalid_request for a photo value %j', async (value) => {
      const response = await postJson(t.app, token, { action: 'update', url, [operation]: { photo: [value] } });
      expect(response.statusCode).toBe(400);
      expect(spy.calls).toEqual([]);
    });

    it.each(['uid', 'author', '_owner'])('400 invalid_request when it touches %s', async (name) => {
      const response = await postJson(t.app, token, { action: 'update', url, [operation]: { [name]: ['https://mallory.example/'] } });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual(INVALID_REQUEST);
      expect(spy.calls).toEqual([]);
    });
  });

  it('204 for a delete map with non-http(s) URL values: delete skips the URL check', async () => {
    const response = await postJson(t.app, token, {
      action: 'update',
      url,
      delete: { photo: ['javascript:alert(1)', 'data:,x'], 'in-reply-to': ['/relative'] },
    });
    expect(response.statusCode).toBe(204);
    expect(callsOf(spy.calls, 'updateEntry').map((call) => call.args[1])).toEqual([
      { delete: { photo: ['javascript:alert(1)', 'data:,x'], 'in-reply-to': ['/relative'] } },
    ]);
  });

  it('204 passes the operations to update_entry as submitted', async () => {
    const operations = { replace: { content: [{ html: '<p>x</p>' }] }, add: { category: ['x'] }, delete: ['summary'] };
    expect((await postJson(t.app, token, { action: 'update', url, ...operations })).statusCode).toBe(204);
    const [call] = callsOf(spy.calls, 'updateEntry');
    expect(call!.args[0]).toBe(url);
    expect(call!.args[1] as UpdateOperations).toEqual(operations);
  });

  it.each([
    ['a delete list naming uid', ['content', 'uid']],
    ['a delete list naming author', ['author']],
    ['a delete map with key author', { author: ['https://alice.example/'] }],
    ['a delete map with key uid', { uid: ['x'] }],
    ['a delete list naming _owner', ['_owner']],
  ])('400 invalid_request for %s', async (_label, del) => {
    const response = await postJson(t.app, token, { action: 'update', url, delete: del });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(INVALID_REQUEST);
    expect(spy.calls).toEqual([]);
  });
});

describe('POST /indieweb/micropub/ action=update (relocating handler)', () => {
  it('201 with Location when the handler returns a different URL', async () => {
    const { handler, calls } = createSpyHandler({
      updateEntry: async () => ({ url: `${ENTRIES}moved`, type: ['h-entry'], properties: { content: ['moved'] } }),
    });
    const t = await mountedApp({ handler });
    try {
      const response = await postJson(t.app, await t.token('update'), {
        action: 'update',
        url: `${ENTRIES}old`,
        replace: { content: ['moved'] },
      });
      expect(response.statusCode).toBe(201);
      expect(response.headers.location).toBe(`${ENTRIES}moved`);
      expect(response.body).toBe('');
      expect(callsOf(calls, 'updateEntry')).toHaveLength(1);
    } finally {
      await t.close();
    }
  });

  it('204 when the handler returns the same URL spelled absolutely for a relative submission', async () => {
    const { handler } = createSpyHandler({
      updateEntry: async () => ({ url: `${ENTRIES}same`, type: ['h-entry'], properties: {} }),
    });
    const t = await mountedApp({ handler });
    try {
      const response = await postJson(t.app, await t.token('update'), {
        action: 'update',
        url: '/indieweb/entries/same',
        replace: { content: ['x'] },
      });
      expect(response.statusCode).toBe(204);
    } finally {
      await t.close();
    }
  });

  it('400 invalid_request without the message when update_entry raises a value error', async () => {
    const { handler } = createSpyHandler({
      updateEntry: async () => {
        throw new HandlerValueError('not yours: secret detail');
      },
    });
    const t = await mountedApp({ handler });
    try {
      const response = await postJson(t.app, await t.token('update'), {
        action: 'update',
        url: `${ENTRIES}x`,
        replace: { content: ['x'] },
      });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual(INVALID_REQUEST);
      expect(response.body).not.toContain('secret detail');
    } finally {
      await t.close();
    }
  });

  it('500 with an empty body when update_entry raises another error', async () => {
    const { handler } = createSpyHandler({
      updateEntry: async () => {
        throw new Error('secret detail');
      },
    });
    const t = await mountedApp({ handler });
    try {
      const response = await postJson(t.app, await t.token('update'), {
        action: 'update',
        url: `${ENTRIES}x`,
        replace: { content: ['x'] },
      });
      expect(response.statusCode).toBe(500);
      expect(response.body).toBe('');
    } finally {
      await t.close();
    }
  });
});

describe('POST /indieweb/micropub/ action=delete and action=undelete (built-in handler)', () => {
  let t: MicropubTestApp;
  let token: string;
  let n = 0;
  const fresh = () => createViaJson(t.app, token, { content: ['to delete'], 'mp-slug': [`del-${n++}`] });
  beforeAll(async () => {
    t = await standaloneApp();
    token = await t.token('create update delete undelete');
  });
  afterAll(async () => {
    await t.close();
  });

  it('204 deletes with a form body and q=source then answers 400', async () => {
    const url = await fresh();
    const response = await postForm(t.app, token, { action: 'delete', url });
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    expect((await micropubGet(t.app, token, { q: 'source', url })).statusCode).toBe(400);
  });

  it('204 deletes with a JSON body', async () => {
    const url = await fresh();
    expect((await postJson(t.app, token, { action: 'delete', url })).statusCode).toBe(204);
    expect((await micropubGet(t.app, token, { q: 'source', url })).statusCode).toBe(400);
  });

  it('204 deletes with a JSON body whose content type carries a charset', async () => {
    const url = await fresh();
    expect(
      (await postJson(t.app, token, { action: 'delete', url }, { headers: { 'content-type': 'application/json; charset=utf-8' } }))
        .statusCode,
    ).toBe(204);
  });

  it('204 deletes by relative URL', async () => {
    const url = await fresh();
    expect((await postForm(t.app, token, { action: 'delete', url: new URL(url).pathname })).statusCode).toBe(204);
    expect((await micropubGet(t.app, token, { q: 'source', url })).statusCode).toBe(400);
  });

  it('400 invalid_request when deleting an unknown or already deleted entry', async () => {
    const url = await fresh();
    expect((await postForm(t.app, token, { action: 'delete', url })).statusCode).toBe(204);
    const again = await postForm(t.app, token, { action: 'delete', url });
    expect(again.statusCode).toBe(400);
    expect(again.json()).toEqual(INVALID_REQUEST);
    expect((await postForm(t.app, token, { action: 'delete', url: `${ENTRIES}never` })).statusCode).toBe(400);
  });

  it('204 undeletes with a form body and q=source shows the entry again', async () => {
    const url = await fresh();
    await postForm(t.app, token, { action: 'delete', url });
    const response = await postForm(t.app, token, { action: 'undelete', url });
    expect(response.statusCode).toBe(204);
    expect(response.headers.location).toBeUndefined();
    expect(await propertiesOf(t, token, url)).toEqual({ content: ['to delete'], 'mp-slug': [slugOf(url)] });
  });

  it('204 undeletes with a JSON body', async () => {
    const url = await fresh();
    await postJson(t.app, token, { action: 'delete', url });
    expect(
      (await postJson(t.app, token, { action: 'undelete', url }, { headers: { 'content-type': 'application/json; charset=utf-8' } }))
        .statusCode,
    ).toBe(204);
    expect((await micropubGet(t.app, token, { q: 'source', url })).statusCode).toBe(200);
  });

  it('400 invalid_request when undeleting a URL not in the deleted set', async () => {
    const live = await fresh();
    for (const url of [live, `${ENTRIES}never`]) {
      const response = await postForm(t.app, token, { action: 'undelete', url });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual(INVALID_REQUEST);
    }
  });
});

describe('POST /indieweb/micropub/ action=delete and action=undelete (custom handler)', () => {
  it('201 with Location when undelete relocates the entry', async () => {
    const { handler } = createSpyHandler({
      undeleteEntry: async () => ({ url: `${ENTRIES}restored-elsewhere`, type: ['h-entry'], properties: {} }),
    });
    const t = await mountedApp({ handler });
    try {
      const response = await postForm(t.app, await t.token('undelete'), { action: 'undelete', url: `${ENTRIES}old` });
      expect(response.statusCode).toBe(201);
      expect(response.headers.location).toBe(`${ENTRIES}restored-elsewhere`);
    } finally {
      await t.close();
    }
  });

  it('204 for undelete when the handler returns the submitted URL', async () => {
    const { handler } = createSpyHandler({ undeleteEntry: async (url) => ({ url, type: ['h-entry'], properties: {} }) });
    const t = await mountedApp({ handler });
    try {
      expect((await postJson(t.app, await t.token('undelete'), { action: 'undelete', url: `${ENTRIES}same` })).statusCode).toBe(204);
    } finally {
      await t.close();
    }
  });

  it.each([
    ['delete', 'deleteEntry'],
    ['undelete', 'undeleteEntry'],
  ] as const)('500 with an empty body when %s raises a non-value error', async (action, method) => {
    const { handler } = createSpyHandler({
      [method]: async () => {
        throw new Error('secret detail');
      },
    });
    const t = await mountedApp({ handler });
    try {
      const response = await postForm(t.app, await t.token(action), { action, url: `${ENTRIES}x` });
      expect(response.statusCode).toBe(500);
      expect(response.body).toBe('');
    } finally {
      await t.close();
    }
  });

  it.each([
    ['delete', 'deleteEntry'],
    ['undelete', 'undeleteEntry'],
  ] as const)('400 invalid_request without the message when %s raises a value error', async (action, method) => {
    const { handler } = createSpyHandler({
      [method]: async () => {
        throw new HandlerValueError('secret detail');
      },
    });
    const t = await mountedApp({ handler });
    try {
      const response = await postJson(t.app, await t.token(action), { action, url: `${ENTRIES}x` });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual(INVALID_REQUEST);
      expect(response.body).not.toContain('secret detail');
    } finally {
      await t.close();
    }
  });
});

describe('POST /indieweb/micropub/ actions: rules for url', () => {
  let t: MicropubTestApp;
  let token: string;
  const spy = createSpyHandler({
    updateEntry: async (url) => ({ url: new URL(url, BASE_URL).href, type: ['h-entry'], properties: {} }),
    deleteEntry: async () => {},
    undeleteEntry: async (url) => ({ url: new URL(url, BASE_URL).href, type: ['h-entry'], properties: {} }),
  });
  const bodyOf = (action: string, url: string | undefined): Record<string, unknown> => ({
    action,
    ...(url === undefined ? {} : { url }),
    ...(action === 'update' ? { replace: { content: ['x'] } } : {}),
  });
  beforeAll(async () => {
    t = await mountedApp({ handler: spy.handler });
    token = await t.token('update delete undelete');
  });
  beforeEach(() => {
    spy.calls.length = 0;
  });
  afterAll(async () => {
    await t.close();
  });

  describe.each(['update', 'delete', 'undelete'])('action=%s', (action) => {
    it.each([
      ['missing', undefined],
      ['empty', ''],
    ])('400 invalid_request when url is %s', async (_label, url) => {
      const response = await postJson(t.app, token, bodyOf(action, url));
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual(INVALID_REQUEST);
      if (action !== 'update') {
        const form = await postForm(t.app, token, url === undefined ? { action } : { action, url });
        expect(form.statusCode).toBe(400);
      }
      expect(spy.calls).toEqual([]);
    });

    it.each([
      ['on another host', 'https://evil.example/x'],
      ['on another host with the entry path', 'http://evil.example/indieweb/entries/x'],
      ['with a javascript: scheme', 'javascript:alert(1)'],
      ['protocol-relative', '//evil.example/x'],
      ['with a data: scheme', 'data:text/plain,x'],
      ['with an ftp: scheme on the same host', 'ftp://indiestack.test/x'],
      // the token's own profile host is still another host than the request's
      ['on the host of the user’s profile URL', new URL('/posts/x', ME).href],
    ])('400 invalid_request before the handler for a url %s', async (_label, url) => {
      const response = await postJson(t.app, token, bodyOf(action, url));
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual(INVALID_REQUEST);
      expect(spy.calls).toEqual([]);
    });

    // Found while testing: a leading space (U+0020) hides the scheme or the "//" from the check, but
    // the WHATWG URL parser strips it, so new URL(url, base) names evil.example. Spec rule 1: 400 before the handler.
    it.each([
      ['an absolute URL on another host after a leading space', ' https://evil.example/x'],
      ['a protocol-relative URL after a leading space', ' //evil.example/x'],
    ])('400 invalid_request before the handler for %s', async (_label, url) => {
      const response = await postJson(t.app, token, bodyOf(action, url));
      expect(spy.calls).toEqual([]);
      expect(response.statusCode).toBe(400);
    });

    it.each([
      ['a relative path', '/indieweb/entries/x'],
      ['a relative path without a slash', 'entries/x'],
      ['an absolute URL on the request host', 'http://indiestack.test/indieweb/entries/x'],
    ])('204 and the url reaches the handler unchanged for %s', async (_label, url) => {
      const response = await postJson(t.app, token, bodyOf(action, url));
      expect(response.statusCode).toBe(204);
      expect(spy.calls.map((call) => call.args[0])).toEqual([url]);
    });
  });

  it('204 for an absolute URL on another request host when that is the Host of the request', async () => {
    const url = 'https://blog.example/indieweb/entries/x';
    const response = await postForm(t.app, token, { action: 'delete', url }, { host: 'blog.example' });
    expect(response.statusCode).toBe(204);
    expect(callsOf(spy.calls, 'deleteEntry').map((call) => call.args[0])).toEqual([url]);
  });

  it.each([
    ['form', 'publish'],
    ['form', ''],
    ['json', 'publish'],
    ['json', 'UPDATE'],
  ])('400 invalid_request for an unknown action in a %s body (%j)', async (kind, action) => {
    const url = `${ENTRIES}x`;
    const response = kind === 'form' ? await postForm(t.app, token, { action, url }) : await postJson(t.app, token, { action, url });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(INVALID_REQUEST);
    expect(spy.calls).toEqual([]);
  });
});
