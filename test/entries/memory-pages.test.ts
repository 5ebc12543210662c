/**
 * The in-memory handler's entries as pages (issue 30 item 3): a post
 * published through Micropub over real HTTP answers its `Location` with the
 * h-entry page the database handler's entries get (the same renderer), and
 * the user's home and feeds list it.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { mf2 } from 'microformats-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { profileUrlKey } from '../../src/core/url.js';
import { createUsersRepository } from '../../src/storage/repositories/users.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import type { Mf2Item } from '../helpers/entries.js';
import { CLIENT_ID } from '../helpers/indieauth.js';
import { ALL_SCOPES } from '../helpers/micropub.js';
import { freePort } from '../helpers/net.js';

let t: TestApp;
let origin: string;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  // the default handler: INDIEWEB_MICROPUB_HANDLER unset
  t = await buildTestApp({ env: { INDIEWEB_BASE_URL: origin } });
  const users = createUsersRepository(t.database.db);
  for (const name of ['alice', 'bob']) {
    const me = `https://${name}.example/`;
    const id = randomUUID();
    await users.insert({ id, name, passwordHash: 'x', profileUrls: [{ url: me, key: profileUrlKey(me)! }], now: new Date().toISOString() });
    tokens[name] = (await t.app.indieweb.tokens.issue({ userId: id, clientId: CLIENT_ID, me, scope: ALL_SCOPES, expiresIn: 3600 })).token;
  }
  await t.app.listen({ host: '127.0.0.1', port });
});
afterAll(async () => t?.close());

/** A Micropub POST over the socket. */
async function micropub(user: string, body: Record<string, string> | object): Promise<Response> {
  const json = !Object.values(body).every((value) => typeof value === 'string');
  return fetch(`${origin}/indieweb/micropub/`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${tokens[user]}`,
      'content-type': json ? 'application/json' : 'application/x-www-form-urlencoded',
    },
    body: json ? JSON.stringify(body) : new URLSearchParams(body as Record<string, string>).toString(),
    redirect: 'manual',
  });
}

async function create(user: string, fields: Record<string, string>): Promise<string> {
  const response = await micropub(user, { h: 'entry', ...fields });
  expect(response.status).toBe(201);
  return response.headers.get('location')!;
}

const get = (url: string, headers: Record<string, string> = {}) => fetch(url, { headers, redirect: 'manual' });

/** The status of a GET of this exact path (fetch would resolve dot segments before sending). */
function rawStatus(path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const { hostname, port } = new URL(origin);
    http
      .get({ hostname, port, path }, (response) => {
        response.resume();
        resolve(response.statusCode!);
      })
      .on('error', reject);
  });
}

function itemsOf(html: string, url: string): Mf2Item[] {
  return mf2(html, { baseUrl: url }).items as unknown as Mf2Item[];
}

describe('entries of the in-memory handler as pages (standalone, the default handler)', () => {
  it('the Location of a create answers 200 HTML with an h-entry of the post, its author and the endpoint links', async () => {
    const location = await create('alice', { content: 'Hello from memory', category: 'trial', 'mp-slug': 'hello-memory' });
    expect(location).toBe(`${origin}/indieweb/entries/hello-memory`);
    const response = await get(location);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await response.text();
    const entries = itemsOf(html, location).filter((item) => item.type.includes('h-entry'));
    expect(entries).toHaveLength(1);
    const entry = entries[0]!;
    expect(entry.properties.content).toEqual(['Hello from memory']);
    expect(entry.properties.category).toEqual(['trial']);
    expect(entry.properties.url).toEqual([location]);
    expect((entry.properties.author?.[0] as Mf2Item).properties.name).toEqual(['alice']);
    expect(mf2(html, { baseUrl: location }).rels.micropub).toEqual([`${origin}/indieweb/micropub/`]);
  });

  it('the home /alice/ lists it in its h-feed, the Atom and JSON feeds carry it; another user’s posts are not there', async () => {
    const location = await create('alice', { content: 'Listed on the home page' });
    const other = await create('bob', { content: 'Bob writes too' });
    const home = await get(`${origin}/alice/`);
    expect(home.status).toBe(200);
    const items = itemsOf(await home.text(), `${origin}/alice/`);
    const feed = items.find((item) => item.type.includes('h-feed'));
    const urls = (feed?.children ?? []).map((child) => child.properties.url?.[0]);
    expect(urls).toContain(location);
    expect(urls).not.toContain(other);
    expect(items.some((item) => item.type.includes('h-card'))).toBe(true);

    const json = await get(`${origin}/alice/feed.json`);
    expect(json.status).toBe(200);
    const jsonFeed = (await json.json()) as { items: { url: string }[] };
    expect(jsonFeed.items.map((item) => item.url)).toContain(location);
    expect(jsonFeed.items.map((item) => item.url)).not.toContain(other);
    const atom = await get(`${origin}/alice/feed.atom`);
    expect(atom.status).toBe(200);
    expect(await atom.text()).toContain(location);
    // bob's post is bob's page, whoever asks
    expect((await get(other)).status).toBe(200);
  });

  it('one spelling: with a trailing slash it redirects to the Location; an unknown slug and a traversal are 404', async () => {
    const location = await create('alice', { content: 'One spelling', 'mp-slug': "it's-fine!" });
    expect(location).toBe(`${origin}/indieweb/entries/it's-fine!`);
    expect((await get(location)).status).toBe(200);
    const slashed = await get(`${location}/`);
    expect(slashed.status).toBe(301);
    expect(slashed.headers.get('location')).toBe(location);
    expect((await get(`${origin}/indieweb/entries/nothing-here`)).status).toBe(404);
    for (const path of [
      '/indieweb/entries/%2e%2e',
      '/indieweb/entries/..%2Fhello-memory',
      '/indieweb/entries/a%2Fb',
      '/indieweb/entries/a%00',
    ])
      expect(await rawStatus(path), path).toBe(404);
  });

  it('a draft is not found and not listed; a deleted post is 410 and leaves the home; undeleted it is back', async () => {
    const draft = await create('alice', { content: 'Not yet', 'post-status': 'draft' });
    expect((await get(draft)).status).toBe(404);
    const location = await create('alice', { content: 'Here and gone', 'mp-slug': 'here-and-gone' });
    expect((await micropub('alice', { action: 'delete', url: location })).status).toBe(204);
    const gone = await get(location);
    expect(gone.status).toBe(410);
    const home = await (await get(`${origin}/alice/`)).text();
    expect(home).not.toContain(location);
    expect(home).not.toContain(draft);
    expect((await micropub('alice', { action: 'undelete', url: location })).status).toBe(204);
    expect((await get(location)).status).toBe(200);
    expect(await (await get(`${origin}/alice/`)).text()).toContain(location);
  });

  it('an update shows at once; the stylesheet keeps its path (a post slugged style.css gets another)', async () => {
    const location = await create('alice', { content: 'Before', 'mp-slug': 'style.css' });
    expect(location).toBe(`${origin}/indieweb/entries/style.css-2`);
    const update = await micropub('alice', { action: 'update', url: location, replace: { content: ['After'] } });
    expect(update.status).toBe(204);
    const page = await (await get(location)).text();
    const entry = itemsOf(page, location).find((item) => item.type.includes('h-entry'))!;
    expect(entry.properties.content).toEqual(['After']);
    const stylesheet = /<link rel="stylesheet" href="([^"]+)"/.exec(page)![1]!.replaceAll('&amp;', '&');
    const css = await get(stylesheet);
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
  });
});

describe('the home page of the in-memory handler pages as the database handler’s does', () => {
  it('20 a page, newest published first (ties by creation), rel=next and rel=prev walk it both ways', async () => {
    // carol's entries are created out of date order, two of them at the same instant
    const users = createUsersRepository(t.database.db);
    const id = randomUUID();
    const me = 'https://carol.example/';
    await users.insert({
      id,
      name: 'carol',
      passwordHash: 'x',
      profileUrls: [{ url: me, key: profileUrlKey(me)! }],
      now: new Date().toISOString(),
    });
    tokens.carol = (await t.app.indieweb.tokens.issue({ userId: id, clientId: CLIENT_ID, me, scope: ALL_SCOPES, expiresIn: 3600 })).token;
    const days = [5, 1, 24, 3, 3, ...Array.from({ length: 18 }, (_, i) => i + 6)];
    const created: { name: string; published: string; order: number }[] = [];
    for (const [order, day] of days.entries()) {
      const name = `Post ${order}`;
      const published = new Date(Date.UTC(2026, 0, day, 12)).toISOString();
      await create('carol', { name, content: name, published });
      created.push({ name, published, order });
    }
    const expected = created
      .sort((a, b) => (a.published === b.published ? b.order - a.order : a.published < b.published ? 1 : -1))
      .map((entry) => entry.name);
    const namesOf = (html: string, url: string) =>
      (itemsOf(html, url).find((item) => item.type.includes('h-feed'))?.children ?? []).map((child) => String(child.properties.name?.[0]));

    const first = await get(`${origin}/carol/`);
    const firstHtml = await first.text();
    expect(namesOf(firstHtml, `${origin}/carol/`)).toEqual(expected.slice(0, 20));
    const next = mf2(firstHtml, { baseUrl: `${origin}/carol/` }).rels.next![0]!;
    const secondHtml = await (await get(next)).text();
    expect(namesOf(secondHtml, next)).toEqual(expected.slice(20));
    const rels = mf2(secondHtml, { baseUrl: next }).rels;
    expect(rels.next).toBeUndefined();
    const backHtml = await (await get(rels.prev![0]!)).text();
    expect(namesOf(backHtml, rels.prev![0]!)).toEqual(expected.slice(0, 20));
  });
});
