import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { UrlPolicyKind } from '../../src/contracts/policies.js';
import {
  callsOf,
  createSpyHandler,
  createViaJson,
  ENTRIES,
  INVALID_REQUEST,
  micropubGet,
  mountedApp,
  postForm,
  standaloneApp,
  type MicropubTestApp,
} from '../helpers/micropub.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'indiestack-url-policy-'));
  writeFileSync(
    path.join(dir, 'policy.mjs'),
    [
      'export const allow = () => true;',
      'export const allowLater = async () => true;',
      "export const yes = () => 'yes';",
      'export const one = () => 1;',
      'export const deny = () => false;',
      "export const boom = () => { throw new Error('policy crashed: secret detail'); };",
      "export const rejects = async () => { throw new Error('secret detail'); };",
      'export const notAFunction = 42;',
      'export default () => true;',
    ].join('\n'),
  );
  writeFileSync(path.join(dir, 'broken.mjs'), 'export const allow = ( => true;\n');
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** A standalone app with INDIEWEB_MICROPUB_URL_POLICY set (or unset), one entry and a token. */
async function withPolicy(
  specifier: string | undefined,
  run: (t: MicropubTestApp, token: string, url: string) => Promise<void>,
): Promise<void> {
  const t = await standaloneApp(specifier === undefined ? {} : { INDIEWEB_MICROPUB_URL_POLICY: specifier });
  try {
    const token = await t.token('create update');
    // create is not a URL-policy site: it works whatever the policy does
    const url = await createViaJson(t.app, token, { content: ['policed'], 'mp-slug': ['policed'] });
    await run(t, token, url);
  } finally {
    await t.close();
  }
}

describe('GET /indieweb/micropub/?q=source&url=… with INDIEWEB_MICROPUB_URL_POLICY', () => {
  it('200 when the setting is unset', async () => {
    await withPolicy(undefined, async (t, token, url) => {
      expect((await micropubGet(t.app, token, { q: 'source', url })).statusCode).toBe(200);
    });
  });

  it.each(['allow', 'allowLater'])('200 when the policy (%s) returns true', async (name) => {
    await withPolicy(`${dir}/policy.mjs#${name}`, async (t, token, url) => {
      const response = await micropubGet(t.app, token, { q: 'source', url });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ type: ['h-entry'], properties: { content: ['policed'], 'mp-slug': ['policed'] } });
    });
  });

  it('200 with the default export when the specifier has no #', async () => {
    await withPolicy(`${dir}/policy.mjs`, async (t, token, url) => {
      expect((await micropubGet(t.app, token, { q: 'source', url })).statusCode).toBe(200);
    });
  });

  it.each([
    ['a string "yes"', 'yes'],
    ['1', 'one'],
    ['false', 'deny'],
  ])('400 invalid_request when the policy returns %s', async (_label, name) => {
    await withPolicy(`${dir}/policy.mjs#${name}`, async (t, token, url) => {
      const response = await micropubGet(t.app, token, { q: 'source', url });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual(INVALID_REQUEST);
    });
  });

  it.each([
    ['throws', `policy.mjs#boom`],
    ['rejects', `policy.mjs#rejects`],
    ['names a missing file', `missing-policy.mjs#allow`],
    ['names a missing export', `policy.mjs#nope`],
    ['names an export that is not a function', `policy.mjs#notAFunction`],
    ['names a module that does not parse', `broken.mjs#allow`],
  ])('500 with an empty body when the policy %s', async (_label, file) => {
    await withPolicy(`${dir}/${file}`, async (t, token, url) => {
      const response = await micropubGet(t.app, token, { q: 'source', url });
      expect(response.statusCode).toBe(500);
      expect(response.body).toBe('');
    });
  });

  it('200 for the list mode and 201 for a create while the policy is unusable', async () => {
    await withPolicy(`${dir}/missing-policy.mjs#allow`, async (t, token) => {
      expect((await micropubGet(t.app, token, { q: 'source' })).statusCode).toBe(200);
      expect((await postForm(t.app, token, { content: 'x' })).statusCode).toBe(201);
    });
  });
});

describe('GET /indieweb/micropub/?q=source&url=… with a urlPolicy plugin option', () => {
  let t: MicropubTestApp;
  let verdict: unknown = true;
  const seen: { url: string; kind: UrlPolicyKind; request: unknown }[] = [];
  const spy = createSpyHandler();
  beforeAll(async () => {
    t = await mountedApp({
      handler: spy.handler,
      urlPolicy: (url, kind, request) => {
        seen.push({ url, kind, request });
        return verdict as boolean;
      },
    });
  });
  beforeEach(() => {
    seen.length = 0;
    spy.calls.length = 0;
    verdict = true;
  });
  afterAll(async () => {
    await t.close();
  });

  it('200 after the policy received (url as submitted, "entry", the request)', async () => {
    const token = await t.token('create update');
    await createViaJson(t.app, token, { content: ['x'], 'mp-slug': ['seen'] });
    const response = await micropubGet(t.app, token, { q: 'source', url: '/indieweb/entries/seen', 'properties[]': 'content' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ properties: { content: ['x'] } });
    expect(seen).toHaveLength(1);
    expect(seen[0]!.url).toBe('/indieweb/entries/seen');
    expect(seen[0]!.kind).toBe('entry');
    const request = seen[0]!.request as { headers: Record<string, string>; query: Record<string, string>; method: string };
    expect(request.method).toBe('GET');
    expect(request.headers.host).toBe('indiestack.test');
    expect(request.query).toMatchObject({ q: 'source', url: '/indieweb/entries/seen' });
  });

  it('400 invalid_request and the handler is not called when the policy refuses', async () => {
    verdict = false;
    const response = await micropubGet(t.app, await t.token('update'), { q: 'source', url: `${ENTRIES}x` });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(INVALID_REQUEST);
    expect(seen).toHaveLength(1);
    expect(callsOf(spy.calls, 'getEntry')).toEqual([]);
  });

  it('403 authorization error and the policy is not consulted without the update scope', async () => {
    const response = await micropubGet(t.app, await t.token('create'), { q: 'source', url: `${ENTRIES}x` });
    expect(response.statusCode).toBe(403);
    expect(seen).toEqual([]);
  });

  it('400 invalid_request for an empty url without consulting the policy', async () => {
    expect((await micropubGet(t.app, await t.token('update'), { q: 'source', url: '' })).statusCode).toBe(400);
    expect(seen).toEqual([]);
  });

  it('200 for the list mode without consulting the policy', async () => {
    verdict = false;
    expect((await micropubGet(t.app, await t.token('update'), { q: 'source' })).statusCode).toBe(200);
    expect(seen).toEqual([]);
  });
});
