import { existsSync } from 'node:fs';
import path from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CSRF_COOKIE } from '../../src/web/csrf-token.js';
import type { HostUser } from '../../src/contracts/accounts.js';
import { capMention } from '../../src/webmention/cap-mention.js';
import { createWebmentionsRepository } from '../../src/storage/repositories/webmentions.js';
import { CookieJar, signIn } from '../helpers/app.js';
import {
  ADMIN,
  ADMIN_PAGES,
  addUser,
  buildAdminApp,
  csrfOf,
  getAdmin,
  issueToken,
  postAdmin,
  shownTime,
  snapshot,
  submitAdmin,
  textBetween,
  unescapeHtml,
  uploadFile,
  verifyToken,
  type AdminTestApp,
} from '../helpers/admin.js';

const SITE = 'http://indiestack.test';
const APP = 'https://app.example/';
const OTHER_APP = 'https://other.example/';

function publicProfile(t: AdminTestApp, name: string): Promise<LightMyRequestResponse> {
  return t.app.inject({ method: 'GET', url: `/indieweb/profile/${name}/`, headers: { accept: 'application/json' } });
}

function expectLoginRedirect(response: LightMyRequestResponse, returnTo: string): void {
  expect(response.statusCode).toBe(303);
  const location = new URL(response.headers.location as string);
  expect(`${location.origin}${location.pathname}`).toBe(`${SITE}/indieweb/login/`);
  expect(location.searchParams.get('return_to')).toBe(returnTo);
}

function expectDone(response: LightMyRequestResponse, pagePath: string, done: string): void {
  expect(response.statusCode).toBe(303);
  expect(response.headers.location).toBe(`${SITE}${ADMIN}${pagePath}?done=${done}`);
}

describe('admin pages: sign-in, headers and CSRF', () => {
  let t: AdminTestApp;
  let alice: { user: HostUser; jar: CookieJar; password: string };
  let bob: { user: HostUser; jar: CookieJar; password: string };
  let otherBrowser: CookieJar;
  let seeded: { tokenId: string; mentionId: string; mediaId: string };

  beforeAll(async () => {
    t = await buildAdminApp();
    alice = await addUser(t, 'alice');
    // bob signs in in alice's browser first, so his CSRF tokens share her nonce and differ only by user
    const bobJar = new CookieJar();
    bobJar.store(`${CSRF_COOKIE}=${alice.jar.get(CSRF_COOKIE) ?? ''}`);
    const bobRecord = await t.app.indieweb.users!.addUser({ name: 'bob', me: ['https://bob.example/'], password: 'bob password 1' });
    bob = {
      user: { id: bobRecord.id, name: bobRecord.name, me: bobRecord.me, isActive: true },
      jar: await signIn(t.app, 'bob', 'bob password 1', bobJar),
      password: 'bob password 1',
    };
    otherBrowser = await signIn(t.app, 'alice', alice.password);
    const token = await issueToken(t, alice.user, { clientId: APP });
    const media = await issueToken(t, alice.user, { clientId: APP, scope: 'media' });
    const uploaded = await uploadFile(t, media.token);
    expect(uploaded.statusCode).toBe(201);
    const [file] = await t.app.indieweb.media.repository.listByUser(alice.user.id);
    const { record } = await t.app.indieweb.webmention.receive('https://source.example/reply', `${SITE}/posts/1`);
    seeded = { tokenId: token.id, mentionId: record.id, mediaId: file!.id };
  });
  afterAll(async () => {
    await t.close();
  });

  it.each(ADMIN_PAGES)('303 GET %s to the login page with return_to when signed out', async (page) => {
    const response = await getAdmin(t, new CookieJar(), page);
    expectLoginRedirect(response, `${ADMIN}${page}`);
  });

  it.each(ADMIN_PAGES)('200 GET %s when signed in, with a strict CSP, no framing and no caching', async (page) => {
    const response = await getAdmin(t, alice.jar, page);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    const csp = response.headers['content-security-policy'] as string;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("form-action 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('script-src');
    expect(response.headers['x-frame-options']).toBe('DENY');
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.body).not.toMatch(/<script/i);
    expect(response.body).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    // every form of the page carries the CSRF token
    const forms = response.body.match(/<form method="post"[^>]*>/g) ?? [];
    expect(forms.length).toBeGreaterThan(0);
    expect(response.body.match(/name="_csrf" value="[^"]+"/g)?.length).toBe(forms.length);
  });

  it('200 GET /indieweb/admin/: the dashboard (it used to redirect to the profile editor; issue 30 item 5)', async () => {
    const response = await t.app.inject({ method: 'GET', url: `${ADMIN}/`, headers: { cookie: alice.jar.header() } });
    expect(response.statusCode).toBe(200);
    expect(response.body).toContain('<h1>Dashboard</h1>');
    expect(response.body).toContain(`href="${ADMIN}/profile/"`);
  });

  const POSTS: ReadonlyArray<
    readonly [string, (s: { tokenId: string; mentionId: string; mediaId: string }) => { path: string; fields: Record<string, string> }]
  > = [
    ['profile/', () => ({ path: '/profile/', fields: { name: 'Mallory', url: 'https://mallory.example/' } })],
    ['profile/json', () => ({ path: '/profile/json', fields: { h_card: '{"name":["Mallory"]}' } })],
    ['apps/revoke', (s) => ({ path: '/apps/revoke', fields: { grant_id: s.tokenId } })],
    ['apps/revoke-client', () => ({ path: '/apps/revoke-client', fields: { client_id: APP } })],
    ['webmentions/ID/spam', (s) => ({ path: `/webmentions/${s.mentionId}/spam`, fields: {} })],
    ['webmentions/ID/delete', (s) => ({ path: `/webmentions/${s.mentionId}/delete`, fields: {} })],
    ['webmentions/ID/reprocess', (s) => ({ path: `/webmentions/${s.mentionId}/reprocess`, fields: {} })],
    ['media/delete', (s) => ({ path: '/media/delete', fields: { id: s.mediaId } })],
    [
      'account/password',
      () => ({ path: '/account/password', fields: { current: 'alice password 1', new: 'a new password 2', confirm: 'a new password 2' } }),
    ],
    ['account/sign-out-everywhere', () => ({ path: '/account/sign-out-everywhere', fields: {} })],
  ];

  it.each(POSTS)(
    '403 POST %s without a CSRF token, with a forged one, one of another browser or one of another user; nothing changes',
    async (_name, make) => {
      const { path: postPath, fields } = make(seeded);
      const foreignBrowserToken = csrfOf(await getAdmin(t, otherBrowser, '/profile/'));
      const bobPage = await getAdmin(t, bob.jar, '/profile/');
      expect(bob.jar.get(CSRF_COOKIE)).toBe(alice.jar.get(CSRF_COOKIE));
      const otherUserToken = csrfOf(bobPage);
      const ownToken = csrfOf(await getAdmin(t, alice.jar, '/profile/'));
      expect(otherUserToken).not.toBe(ownToken);

      const before = await snapshot(t);
      for (const csrf of [undefined, '', 'abc.def', `${ownToken}x`, foreignBrowserToken, otherUserToken]) {
        const response = await postAdmin(t, alice.jar, postPath, csrf === undefined ? fields : { _csrf: csrf, ...fields });
        expect(response.statusCode).toBe(403);
        expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
        expect(response.body).toContain('The form expired or did not come from this site.');
      }
      expect(await snapshot(t)).toEqual(before);
      expect((await getAdmin(t, alice.jar, '/profile/')).statusCode).toBe(200);
    },
  );

  it.each(POSTS)('303 POST %s to the login page when signed out; nothing changes', async (_name, make) => {
    const { path: postPath, fields } = make(seeded);
    const before = await snapshot(t);
    const ownToken = csrfOf(await getAdmin(t, alice.jar, '/profile/'));
    const signedOut = new CookieJar();
    signedOut.store(`${CSRF_COOKIE}=${alice.jar.get(CSRF_COOKIE) ?? ''}`);
    const response = await postAdmin(t, signedOut, postPath, { _csrf: ownToken, ...fields });
    expectLoginRedirect(response, `${ADMIN}/`);
    expect(await snapshot(t)).toEqual(before);
  });
});

describe('admin profile editor', () => {
  let t: AdminTestApp;
  let jar: CookieJar;
  const profilePost = (fields: Record<string, string>) => submitAdmin(t, jar, '/profile/', '/profile/', fields);
  const jsonPost = (hCard: string) => submitAdmin(t, jar, '/profile/', '/profile/json', { h_card: hCard });
  const storedCard = async () => ((await publicProfile(t, 'alice')).json() as { h_card: unknown }).h_card;

  beforeAll(async () => {
    t = await buildAdminApp();
    jar = (await addUser(t, 'alice')).jar;
  });
  afterAll(async () => {
    await t.close();
  });

  it('200 shows the default profile from the account in the fields and as JSON', async () => {
    const page = await getAdmin(t, jar, '/profile/');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<input type="text" id="field-name" name="name" value="alice">');
    expect(page.body).toContain('<textarea id="field-url" name="url" rows="3">https://alice.example/</textarea>');
    expect(JSON.parse(textBetween(page.body, '<textarea id="field-json" name="h_card" rows="12">', '</textarea>')!)).toEqual({
      name: ['alice'],
      url: ['https://alice.example/'],
    });
    expect(page.body).toContain('<a href="/indieweb/profile/alice/">');
  });

  it('303 ?done=saved for the fields form; the public profile JSON shows it and other properties are kept', async () => {
    expectDone(await jsonPost(JSON.stringify({ name: ['alice'], nickname: ['al'] })), '/profile/', 'saved');
    const response = await profilePost({
      name: '  Alice Example ',
      url: 'https://alice.example/\r\n\r\nhttps://social.example/@alice\r\n',
      photo: 'https://alice.example/me.jpg',
      email: 'alice@alice.example\nmailto:al@alice.example',
      note: 'First line\nsecond line',
    });
    expectDone(response, '/profile/', 'saved');
    const json = (await publicProfile(t, 'alice')).json() as Record<string, unknown>;
    expect(json.h_card).toEqual({
      name: ['Alice Example'],
      nickname: ['al'],
      url: ['https://alice.example/', 'https://social.example/@alice'],
      photo: ['https://alice.example/me.jpg'],
      email: ['mailto:alice@alice.example', 'mailto:al@alice.example'],
      note: ['First line\nsecond line'],
    });
    expect(json.profile).toEqual({ name: 'Alice Example', photo_url: 'https://alice.example/me.jpg', url: 'https://alice.example/' });
    const page = await t.app.inject({ method: 'GET', url: `${ADMIN}/profile/?done=saved`, headers: { cookie: jar.header() } });
    expect(page.body).toContain('<p class="notice" role="status">Profile saved.</p>');
    expect(page.body).toContain('<textarea id="field-email" name="email" rows="3">alice@alice.example\nal@alice.example</textarea>');
  });

  it('303 for an empty field removes that property', async () => {
    const before = (await storedCard()) as Record<string, string[]>;
    expectDone(
      await profilePost({ name: 'Alice Example', url: before.url!.join('\n'), photo: '', email: '', note: '' }),
      '/profile/',
      'saved',
    );
    expect(await storedCard()).toEqual({ name: ['Alice Example'], nickname: ['al'], url: before.url });
    const json = (await publicProfile(t, 'alice')).json() as { profile: unknown };
    expect(json.profile).toEqual({ name: 'Alice Example', photo_url: null, url: 'https://alice.example/' });
  });

  it.each([
    [
      'a javascript: URL',
      'url',
      { url: 'javascript:alert(1)' },
      '<textarea id="field-url" name="url" rows="3" aria-invalid="true" aria-describedby="field-url-error">javascript:alert(1)</textarea>',
      '&quot;javascript:alert(1)&quot; is not an absolute http(s) URL',
    ],
    [
      'a relative photo',
      'photo',
      { photo: '/me.jpg' },
      '<input type="text" id="field-photo" name="photo" value="/me.jpg" aria-invalid="true" aria-describedby="field-photo-error">',
      '&quot;/me.jpg&quot; is not an absolute http(s) URL',
    ],
    [
      'an invalid e-mail',
      'email',
      { email: 'alice at example' },
      '<textarea id="field-email" name="email" rows="3" aria-invalid="true" aria-describedby="field-email-error">alice at example</textarea>',
      '&quot;alice at example&quot; is not an e-mail address',
    ],
    [
      'an oversized name (2001 characters)',
      'name',
      { name: 'x'.repeat(2001) },
      `<input type="text" id="field-name" name="name" value="${'x'.repeat(2001)}" aria-invalid="true" aria-describedby="field-name-error">`,
      'values must be at most 2000 characters',
    ],
    [
      'an oversized note (2001 characters)',
      'note',
      { note: 'y'.repeat(2001) },
      `<textarea id="field-note" name="note" rows="3" aria-invalid="true" aria-describedby="field-note-error">${'y'.repeat(2001)}</textarea>`,
      'values must be at most 2000 characters',
    ],
  ] as const)(
    '400 for %s with the error next to the %s field and tied to it, nothing saved',
    async (_label, field, fields, control, message) => {
      const before = await snapshot(t);
      const response = await profilePost({ name: 'Changed Name', url: 'https://alice.example/', ...fields });
      expect(response.statusCode).toBe(400);
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(response.body).toContain(`${control}<span class="error" id="field-${field}-error" role="alert">${message}</span>`);
      expect(response.body.match(/<span class="error" id="[^"]+" role="alert">/g)).toHaveLength(1);
      expect(response.body.match(/aria-invalid="true"/g)).toHaveLength(1);
      expect(await snapshot(t)).toEqual(before);
    },
  );

  it('400 lists every invalid field at once, each next to its field', async () => {
    const before = await snapshot(t);
    const response = await profilePost({ name: 'ok', url: 'ftp://alice.example/', photo: 'data:image/png;base64,AAAA', email: 'a@b' });
    expect(response.statusCode).toBe(400);
    expect(response.body).toMatch(
      /name="url" rows="3" aria-invalid="true" aria-describedby="field-url-error">ftp:\/\/alice\.example\/<\/textarea><span class="error" id="field-url-error" role="alert">/,
    );
    expect(response.body).toMatch(
      /name="photo" value="data:image\/png;base64,AAAA" aria-invalid="true" aria-describedby="field-photo-error"><span class="error" id="field-photo-error" role="alert">/,
    );
    expect(response.body).toMatch(
      /name="email" rows="3" aria-invalid="true" aria-describedby="field-email-error">a@b<\/textarea><span class="error" id="field-email-error" role="alert">/,
    );
    expect(await snapshot(t)).toEqual(before);
  });

  it('303 for the raw JSON form replaces the whole h-card', async () => {
    const card = { name: ['Alice'], url: ['https://alice.example/'], org: ['Example Org'], email: ['alice@alice.example'] };
    expectDone(await jsonPost(JSON.stringify(card)), '/profile/', 'saved');
    expect(await storedCard()).toEqual({ ...card, email: ['mailto:alice@alice.example'] });
  });

  it.each([
    ['malformed JSON', '{"name": ["Alice"', '<code>h_card</code>: is not valid JSON'],
    ['a list instead of an object', '["Alice"]', '<code>h_card</code>: must be an object of property names to lists of values'],
    ['a string', '"Alice"', '<code>h_card</code>: must be an object'],
    [
      'a bad property name',
      '{"Bad Name": ["x"], "name": ["<script>alert(1)</script>"]}',
      '<code>Bad Name</code>: is not a microformats property name',
    ],
    // problems of the JSON form are listed above the JSON form, whichever property they concern
    ['a value that is not a list', '{"name": "Alice"}', '<code>name</code>: must be a list of values'],
    [
      'a javascript: URL',
      '{"url": ["javascript:alert(1)"]}',
      '<code>url</code>: &quot;javascript:alert(1)&quot; is not an absolute http(s) URL',
    ],
  ])('400 for %s in the raw JSON, shown inline, the text kept (escaped), nothing saved', async (_label, text, message) => {
    const before = await snapshot(t);
    const response = await jsonPost(text);
    expect(response.statusCode).toBe(400);
    expect(response.body).toContain('<div class="error" id="json-problems" role="alert"><p>Nothing was saved:</p>');
    expect(response.body.indexOf(message)).toBeGreaterThan(response.body.indexOf('<h2>Raw h-card (JSON)</h2>'));
    expect(response.body).toContain(message);
    expect(
      textBetween(
        response.body,
        '<textarea id="field-json" name="h_card" rows="12" aria-invalid="true" aria-describedby="json-problems">',
        '</textarea>',
      ),
    ).toBe(text);
    expect(response.body).not.toContain('<script>');
    expect(await snapshot(t)).toEqual(before);
  });

  it('200 shows values containing markup escaped on the editor, the public page and its JSON', async () => {
    const evil = {
      name: ['<script>alert(1)</script>'],
      note: ['</textarea><script>alert(2)</script>'],
      nickname: ['"><img src=x onerror=alert(3)>'],
      url: ['https://alice.example/?q="><script>alert(4)</script>'],
    };
    expectDone(await jsonPost(JSON.stringify(evil)), '/profile/', 'saved');

    const editor = await getAdmin(t, jar, '/profile/');
    expect(editor.statusCode).toBe(200);
    const publicPage = await t.app.inject({ method: 'GET', url: '/indieweb/profile/alice/' });
    expect(publicPage.statusCode).toBe(200);
    for (const body of [editor.body, publicPage.body]) {
      expect(body).not.toMatch(/<script/i);
      expect(body).not.toContain('<img src=x');
      expect(body).not.toContain('</textarea><script');
      expect(body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    }
    expect(editor.body).toContain('<input type="text" id="field-name" name="name" value="&lt;script&gt;alert(1)&lt;/script&gt;">');
    expect(editor.body).toContain(
      '<textarea id="field-note" name="note" rows="3">&lt;/textarea&gt;&lt;script&gt;alert(2)&lt;/script&gt;</textarea>',
    );
    expect(JSON.parse(textBetween(editor.body, '<textarea id="field-json" name="h_card" rows="12">', '</textarea>')!)).toEqual(evil);
    expect(publicPage.body).toContain('<title>&lt;script&gt;alert(1)&lt;/script&gt; · indiestack</title>');
    expect(await storedCard()).toEqual(evil);
  });

  it('400 for a field of 20,001 characters shows the form with the error next to the field, nothing saved', async () => {
    const before = await snapshot(t);
    const response = await profilePost({ name: 'z'.repeat(20_001) });
    expect(response.statusCode).toBe(400);
    expect(await snapshot(t)).toEqual(before);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.body).toMatch(
      /id="field-name"[^>]*aria-describedby="field-name-error"><span class="error" id="field-name-error" role="alert">/,
    );
  });

  it('303 for the fields form submitted unchanged keeps a multi-valued photo and note as they were', async () => {
    const card = {
      name: ['Alice'],
      photo: ['https://alice.example/1.jpg', 'https://alice.example/2.jpg'],
      note: ['First note', 'Second note'],
    };
    expectDone(await jsonPost(JSON.stringify(card)), '/profile/', 'saved');
    const page = await getAdmin(t, jar, '/profile/');
    // what a browser submits: an input's value loses its line breaks, a textarea's text is kept
    const photo = unescapeHtml(/id="field-photo" name="photo" value="([^"]*)"/.exec(page.body)![1]!).replace(/[\r\n]/g, '');
    const note = textBetween(page.body, '<textarea id="field-note" name="note" rows="3">', '</textarea>')!;
    const response = await profilePost({ name: 'Alice', url: '', photo, email: '', note });
    expectDone(response, '/profile/', 'saved');
    expect(await storedCard()).toEqual(card);
  });

  it('400 echoes an invalid submitted value escaped next to its field', async () => {
    const response = await profilePost({ name: 'ok', photo: '"><script>alert(5)</script>' });
    expect(response.statusCode).toBe(400);
    expect(response.body).not.toMatch(/<script/i);
    expect(response.body).toContain(
      'value="&quot;&gt;&lt;script&gt;alert(5)&lt;/script&gt;" aria-invalid="true" aria-describedby="field-photo-error"><span class="error" id="field-photo-error" role="alert">&quot;&quot;&gt;&lt;script&gt;alert(5)&lt;/script&gt;&quot; is not an absolute http(s) URL</span>',
    );
  });
});

describe('admin connected apps', () => {
  let t: AdminTestApp;
  let alice: { user: HostUser; jar: CookieJar };
  let bob: { user: HostUser; jar: CookieJar };
  const appsPost = (postPath: string, fields: Record<string, string>) => submitAdmin(t, alice.jar, '/apps/', postPath, fields);

  beforeAll(async () => {
    t = await buildAdminApp();
    alice = await addUser(t, 'alice');
    bob = await addUser(t, 'bob');
  });
  afterAll(async () => {
    await t.close();
  });

  it('200 says so when no app has access', async () => {
    const page = await getAdmin(t, alice.jar, '/apps/');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('No app has access to your site.');
  });

  it('200 lists live tokens grouped by client with scopes, issued, expires and last used; not revoked, expired or foreign ones', async () => {
    const issuedAt = t.clock.now().toISOString();
    const first = await issueToken(t, alice.user, { clientId: APP, scope: 'create update' });
    const second = await issueToken(t, alice.user, { clientId: APP, scope: 'media', expiresIn: null });
    const signInOnly = await issueToken(t, alice.user, { clientId: OTHER_APP, scope: '' });
    const short = await issueToken(t, alice.user, { clientId: 'https://short.example/', expiresIn: 60 });
    const revoked = await issueToken(t, alice.user, { clientId: 'https://revoked.example/' });
    await t.app.indieweb.tokens.revoke(revoked.id);
    const bobs = await issueToken(t, bob.user, { clientId: 'https://bob-app.example/' });
    t.clock.advance(120);
    const usedAt = t.clock.now().toISOString();
    expect((await verifyToken(t, first.token)).statusCode).toBe(200);

    const page = await getAdmin(t, alice.jar, '/apps/');
    expect(page.statusCode).toBe(200);
    const sections = page.body.split('<section class="client">').slice(1);
    expect(sections).toHaveLength(2);
    const app = sections.find((s) => s.startsWith(`<h2><code>${APP}</code></h2>`))!;
    const other = sections.find((s) => s.startsWith(`<h2><code>${OTHER_APP}</code></h2>`))!;
    expect(app).toBeDefined();
    expect(other).toBeDefined();
    const rows = app.split('<tr>').slice(2);
    expect(rows).toHaveLength(2);
    const row = (id: string) => rows.find((r) => r.includes(`name="grant_id" value="${id}"`))!;
    const expiresAt = new Date(Date.parse(issuedAt) + 86_400_000).toISOString();
    expect(row(first.id)).toContain(
      `<td data-label="Scopes">create update</td><td data-label="Issued">${shownTime(issuedAt)}</td><td data-label="Expires">${shownTime(expiresAt)}</td><td data-label="Last used">${shownTime(usedAt)}</td>`,
    );
    expect(row(second.id)).toContain(
      `<td data-label="Scopes">media</td><td data-label="Issued">${shownTime(issuedAt)}</td><td data-label="Expires">never</td><td data-label="Last used">—</td>`,
    );
    expect(other).toContain('<td data-label="Scopes">sign-in only</td>');
    expect(other).toContain(`value="${signInOnly.id}"`);
    expect(app).toContain(
      `<input type="hidden" name="client_id" value="${APP}"><button type="submit">Revoke all access of this app</button>`,
    );
    for (const hidden of [short.id, revoked.id, bobs.id, 'short.example', 'revoked.example', 'bob-app.example'])
      expect(page.body).not.toContain(hidden);
  });

  it('303 ?done=revoked for revoking one token: it gets 401 while another of the same client still works', async () => {
    const one = await issueToken(t, alice.user, { clientId: 'https://one.example/' });
    const two = await issueToken(t, alice.user, { clientId: 'https://one.example/', scope: 'media' });
    expectDone(await appsPost('/apps/revoke', { grant_id: one.id }), '/apps/', 'revoked');
    expect((await verifyToken(t, one.token)).statusCode).toBe(401);
    const still = await verifyToken(t, two.token);
    expect(still.statusCode).toBe(200);
    expect(still.json()).toMatchObject({ client_id: 'https://one.example/', scope: 'media' });
    const page = await getAdmin(t, alice.jar, '/apps/');
    expect(page.body).not.toContain(one.id);
    expect(page.body).toContain(two.id);
  });

  it('303 for revoking a client: every token of that client gets 401, other clients keep working', async () => {
    const a = await issueToken(t, alice.user, { clientId: 'https://many.example/' });
    const b = await issueToken(t, alice.user, { clientId: 'https://many.example/', scope: 'media', expiresIn: null });
    const kept = await issueToken(t, alice.user, { clientId: 'https://kept.example/' });
    expectDone(await appsPost('/apps/revoke-client', { client_id: 'https://many.example/' }), '/apps/', 'revoked');
    expect((await verifyToken(t, a.token)).statusCode).toBe(401);
    expect((await verifyToken(t, b.token)).statusCode).toBe(401);
    expect((await verifyToken(t, kept.token)).statusCode).toBe(200);
    const page = await getAdmin(t, alice.jar, '/apps/');
    expect(page.body).not.toContain('https://many.example/');
    expect(page.body).toContain('<h2><code>https://kept.example/</code></h2>');
  });

  it("303 but nothing revoked for another user's token id or client", async () => {
    const bobs = await issueToken(t, bob.user, { clientId: 'https://bob-app.example/' });
    const before = await snapshot(t);
    expect((await appsPost('/apps/revoke', { grant_id: bobs.id })).statusCode).toBe(303);
    expect((await appsPost('/apps/revoke-client', { client_id: 'https://bob-app.example/' })).statusCode).toBe(303);
    expect((await appsPost('/apps/revoke', { grant_id: 'no-such-token' })).statusCode).toBe(303);
    expect(await snapshot(t)).toEqual(before);
    expect((await verifyToken(t, bobs.token)).statusCode).toBe(200);
    expect((await getAdmin(t, bob.jar, '/apps/')).body).toContain(bobs.id);
  });
});

describe('admin webmentions', () => {
  let t: AdminTestApp;
  let alice: { user: HostUser; jar: CookieJar };
  let bobJar: CookieJar;
  const receive = async (source: string, target: string) => (await t.app.indieweb.webmention.receive(source, target)).record.id;
  const statusOf = async (id: string) => (await t.app.indieweb.webmention.get(id)).status;
  const mentionPost = (id: string, action: string) => submitAdmin(t, alice.jar, '/webmentions/', `/webmentions/${id}/${action}`, {});
  const listed = (body: string) =>
    [...body.matchAll(/action="\/indieweb\/admin\/webmentions\/([A-Za-z0-9_-]+)\/delete"/g)].map((m) => m[1]).sort();

  // alice's pages: below her profile URL (see webmention/ownership.ts; test/admin/webmention-ownership.test.ts covers the rule)
  const ALICE = 'https://alice.example';
  let ids: { one: string; two: string; verified: string; unreachable: string; quoted: string; foreign: string };

  beforeAll(async () => {
    t = await buildAdminApp();
    alice = await addUser(t, 'alice');
    bobJar = (await addUser(t, 'bob')).jar;
    const one = await receive('https://a.example/reply', `${ALICE}/posts/1`);
    const two = await receive('https://b.example/like', `${ALICE}/posts/2`);
    const verified = await receive('https://evil.example/post', `${ALICE}/posts/1`);
    await createWebmentionsRepository(t.database.db).markVerified(
      verified,
      capMention({
        type: 'reply',
        author: { name: '<img src=x onerror=alert(1)>', url: null, photo: null },
        contentText: '<script>alert(1)</script>',
        contentHtml: null,
        published: null,
      }),
      t.clock.now().toISOString(),
    );
    const unreachable = await receive('http://127.0.0.1:9/post', `${ALICE}/posts/3`);
    const quoted = await receive('https://quote.example/?a="><script>alert(2)</script>', `${ALICE}/posts/4`);
    const foreign = await receive('https://c.example/reply', 'https://bob.example/post');
    ids = { one, two, verified, unreachable, quoted, foreign };
  });
  afterAll(async () => {
    await t.close();
  });

  it("200 lists the pending and verified mentions of this user's pages, not those of other users", async () => {
    const page = await getAdmin(t, alice.jar, '/webmentions/');
    expect(page.statusCode).toBe(200);
    expect(listed(page.body)).toEqual([ids.one, ids.two, ids.verified, ids.unreachable, ids.quoted].sort());
    expect(page.body).toContain(
      '<li class="mention" data-status="pending"><p><strong>pending</strong>  from <a href="https://a.example/reply" rel="nofollow ugc noopener">https://a.example/reply</a> to <code>https://alice.example/posts/1</code></p>',
    );
    expect(page.body).not.toContain('https://c.example/reply');
    expect(listed((await getAdmin(t, bobJar, '/webmentions/')).body)).toContain(ids.foreign);
  });

  it('a backfed mention shows the service it came from as a label that says it (origin SERVICE:UID)', async () => {
    const { record } = await t.app.indieweb.webmention.receiveVerified({
      source: 'https://bsky.app/profile/did:plc:bob/post/3abc',
      target: `${ALICE}/posts/5`,
      origin: 'bluesky:target1',
      mention: {
        type: 'reply',
        author: { name: 'Bob', url: 'https://bsky.app/profile/bob.test', photo: null },
        contentText: 'hi',
        contentHtml: null,
        published: null,
      },
    });
    const body = (await getAdmin(t, alice.jar, '/webmentions/')).body;
    const item = body.slice(body.indexOf('https://bsky.app/profile/did:plc:bob/post/3abc</a>'));
    expect(item.slice(0, item.indexOf('</p>'))).toContain('<span class="via" data-service="bluesky">via Bluesky</span>');
    // a mention received the usual way has none
    expect(body.match(/class="via"/g)).toHaveLength(1);
    await t.app.indieweb.webmention.remove(record.id);
  });

  it('200 shows remote author and content escaped', async () => {
    const body = (await getAdmin(t, alice.jar, '/webmentions/')).body;
    expect(body).not.toMatch(/<script/i);
    expect(body).not.toContain('<img src=x');
    expect(body).toContain('<p>By &lt;img src=x onerror=alert(1)&gt;</p>');
    expect(body).toContain('<blockquote>&lt;script&gt;alert(1)&lt;/script&gt;</blockquote>');
    expect(body).toContain('href="https://quote.example/?a=&quot;&gt;&lt;script&gt;alert(2)&lt;/script&gt;"');
  });

  it('200 filters by status', async () => {
    const verified = await getAdmin(t, alice.jar, '/webmentions/?status=verified');
    expect(listed(verified.body)).toEqual([ids.verified]);
    expect(verified.body).toContain('<option value="verified" selected>verified</option>');
    const pending = await getAdmin(t, alice.jar, '/webmentions/?status=pending');
    expect(listed(pending.body)).toEqual([ids.one, ids.two, ids.unreachable, ids.quoted].sort());
    const spam = await getAdmin(t, alice.jar, '/webmentions/?status=spam');
    expect(spam.body).toContain('<p>No webmentions.</p>');
    // an unknown status is ignored
    expect(listed((await getAdmin(t, alice.jar, '/webmentions/?status=bogus')).body)).toHaveLength(5);
  });

  it('200 filters by target, and by target and status together', async () => {
    const byTarget = await getAdmin(t, alice.jar, `/webmentions/?target=${encodeURIComponent(`${ALICE}/posts/1`)}`);
    expect(listed(byTarget.body)).toEqual([ids.one, ids.verified].sort());
    expect(byTarget.body).toContain(`<input type="url" id="filter-target" name="target" value="${ALICE}/posts/1">`);
    const both = await getAdmin(t, alice.jar, `/webmentions/?status=pending&target=${encodeURIComponent(`${ALICE}/posts/1`)}`);
    expect(listed(both.body)).toEqual([ids.one]);
    const none = await getAdmin(t, alice.jar, `/webmentions/?target=${encodeURIComponent(`${ALICE}/posts/99`)}`);
    expect(none.body).toContain('<p>No webmentions.</p>');
    const escaped = await getAdmin(t, alice.jar, `/webmentions/?target=${encodeURIComponent('"><script>alert(3)</script>')}`);
    expect(escaped.statusCode).toBe(200);
    expect(escaped.body).not.toMatch(/<script/i);
  });

  it('303 ?done=spam for mark spam: the mention is spam and listed under spam', async () => {
    expectDone(await mentionPost(ids.two, 'spam'), '/webmentions/', 'spam');
    expect(await statusOf(ids.two)).toBe('spam');
    const spam = await getAdmin(t, alice.jar, '/webmentions/?status=spam');
    expect(listed(spam.body)).toEqual([ids.two]);
    expect(spam.body).not.toContain(`/webmentions/${ids.two}/spam"`);
  });

  it('303 ?done=deleted for delete: the mention is gone', async () => {
    expectDone(await mentionPost(ids.one, 'delete'), '/webmentions/', 'deleted');
    await expect(t.app.indieweb.webmention.get(ids.one)).rejects.toMatchObject({ status: 404 });
    expect(listed((await getAdmin(t, alice.jar, '/webmentions/')).body)).not.toContain(ids.one);
  });

  it('303 ?done=reprocessed for reprocess: an unreachable source ends failed', async () => {
    expectDone(await mentionPost(ids.unreachable, 'reprocess'), '/webmentions/', 'reprocessed');
    expect(await statusOf(ids.unreachable)).toBe('failed');
    expect(listed((await getAdmin(t, alice.jar, '/webmentions/?status=failed')).body)).toEqual([ids.unreachable]);
  });

  it('404 for an unknown id or a mention of another user; 400 for an unknown action; nothing changes', async () => {
    const before = await snapshot(t);
    expect((await mentionPost('no-such-mention', 'spam')).statusCode).toBe(404);
    expect((await mentionPost(ids.foreign, 'spam')).statusCode).toBe(404);
    expect((await mentionPost(ids.foreign, 'delete')).statusCode).toBe(404);
    expect((await mentionPost(ids.quoted, 'promote')).statusCode).toBe(400);
    expect(await snapshot(t)).toEqual(before);
    expect(await statusOf(ids.foreign)).toBe('pending');
  });
});

describe('admin media', () => {
  let t: AdminTestApp;
  let alice: { user: HostUser; jar: CookieJar };
  let bob: { user: HostUser; jar: CookieJar };
  let aliceToken: string;
  let bobToken: string;
  const served = (url: string) => t.app.inject({ method: 'GET', url: new URL(url).pathname });
  const idsOf = async (user: HostUser) => (await t.app.indieweb.media.repository.listByUser(user.id)).map((file) => file.id);

  beforeAll(async () => {
    t = await buildAdminApp();
    alice = await addUser(t, 'alice');
    bob = await addUser(t, 'bob');
    aliceToken = (await issueToken(t, alice.user, { scope: 'media' })).token;
    bobToken = (await issueToken(t, bob.user, { scope: 'media' })).token;
  });
  afterAll(async () => {
    await t.close();
  });

  it('200 says so when nothing was uploaded', async () => {
    expect((await getAdmin(t, alice.jar, '/media/')).body).toContain('<p>No uploads yet.</p>');
  });

  it('200 lists an upload with a preview and its URL; another user does not see it', async () => {
    const upload = await uploadFile(t, aliceToken, undefined, 'a<b>pixel.png');
    expect(upload.statusCode).toBe(201);
    const url = upload.headers.location as string;
    const page = await getAdmin(t, alice.jar, '/media/');
    expect(page.statusCode).toBe(200);
    // a photo of ours is shown through its small sized copies (issue 32 item 5)
    expect(page.body).toContain(`<img src="${url}" srcset="${url}?w=320 320w, ${url}?w=640 640w" sizes="12rem" alt="" loading="lazy">`);
    expect(page.body).toContain(`<input type="text" readonly value="${url}">`);
    expect(page.body).toContain('image/png');
    // a small file's size in bytes (it showed as "1 KiB"), the upload time to the minute with the exact instant kept
    expect(page.body).toMatch(
      / · \d{2,3} bytes · <time datetime="\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z">\d{4}-\d\d-\d\d \d\d:\d\d UTC<\/time>/,
    );
    expect(page.body).not.toContain('a<b>');
    const [id] = await idsOf(alice.user);
    expect(page.body).toContain(`<input type="hidden" name="id" value="${id}">`);
    expect((await getAdmin(t, bob.jar, '/media/')).body).not.toContain(url);
  });

  it('303 ?done=deleted for delete: the file is gone from the list, the storage and its URL (404)', async () => {
    const upload = await uploadFile(t, aliceToken);
    const url = upload.headers.location as string;
    expect((await served(url)).statusCode).toBe(200);
    const file = (await t.app.indieweb.media.repository.listByUser(alice.user.id)).find((f) => f.url === url)!;
    const storedPath = path.join(t.mediaDir, file.storageKey);
    expect(existsSync(storedPath)).toBe(true);
    expectDone(await submitAdmin(t, alice.jar, '/media/', '/media/delete', { id: file.id }), '/media/', 'deleted');
    expect((await served(url)).statusCode).toBe(404);
    expect(existsSync(storedPath)).toBe(false);
    expect(await idsOf(alice.user)).not.toContain(file.id);
    expect((await getAdmin(t, alice.jar, '/media/')).body).not.toContain(url);
  });

  it("303 but nothing deleted for another user's file id", async () => {
    const upload = await uploadFile(t, bobToken);
    const url = upload.headers.location as string;
    const [bobsId] = await idsOf(bob.user);
    const before = await snapshot(t);
    expect((await submitAdmin(t, alice.jar, '/media/', '/media/delete', { id: bobsId! })).statusCode).toBe(303);
    expect(await snapshot(t)).toEqual(before);
    expect((await served(url)).statusCode).toBe(200);
    expect(await idsOf(bob.user)).toEqual([bobsId]);
  });
});

describe('admin account', () => {
  let t: AdminTestApp;
  const passwordPost = (jar: CookieJar, fields: Record<string, string>) => submitAdmin(t, jar, '/account/', '/account/password', fields);
  const canSignIn = async (name: string, password: string) =>
    signIn(t.app, name, password).then(
      () => true,
      () => false,
    );

  let carol: { user: HostUser; jar: CookieJar; password: string };

  beforeAll(async () => {
    t = await buildAdminApp();
    carol = await addUser(t, 'carol');
  });
  afterAll(async () => {
    await t.close();
  });

  it.each([
    [
      'a wrong current password',
      { current: 'not my password', new: 'a new password 2', confirm: 'a new password 2' },
      'The current password is not right.',
    ],
    [
      'new passwords that do not match',
      { current: 'carol password 1', new: 'a new password 2', confirm: 'a new password 3' },
      'The new passwords do not match.',
    ],
    [
      'a too short new password',
      { current: 'carol password 1', new: 'short', confirm: 'short' },
      'the password must have at least 8 characters',
    ],
  ])('400 for %s, with the message; nothing changes', async (_label, fields, message) => {
    const before = await snapshot(t);
    const response = await passwordPost(carol.jar, fields);
    expect(response.statusCode).toBe(400);
    expect(response.body).toContain(`<h2>Change password</h2><p class="error" role="alert">${message}</p>`);
    expect(response.body).not.toContain('not my password');
    expect(await snapshot(t)).toEqual(before);
    expect((await getAdmin(t, carol.jar, '/account/')).statusCode).toBe(200);
  });

  it('303 to the login page for the right password: every session of that user ends, the new password signs in, the old one not', async () => {
    const dave = await addUser(t, 'dave');
    const otherBrowser = await signIn(t.app, 'dave', dave.password);
    const response = await passwordPost(dave.jar, { current: dave.password, new: 'a brand new password', confirm: 'a brand new password' });
    expect(response.statusCode).toBe(303);
    const location = new URL(response.headers.location as string);
    expect(location.pathname).toBe('/indieweb/login/');
    expect(location.searchParams.get('return_to')).toBe(`${ADMIN}/account/?done=password`);
    expectLoginRedirect(await getAdmin(t, dave.jar, '/account/'), `${ADMIN}/account/`);
    expectLoginRedirect(await getAdmin(t, otherBrowser, '/profile/'), `${ADMIN}/profile/`);
    expect(await canSignIn('dave', dave.password)).toBe(false);
    const fresh = await signIn(t.app, 'dave', 'a brand new password');
    const page = await t.app.inject({ method: 'GET', url: `${ADMIN}/account/?done=password`, headers: { cookie: fresh.header() } });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Password changed. Other sessions were signed out.');
    expect((await getAdmin(t, carol.jar, '/account/')).statusCode).toBe(200);
  });

  it('303 for sign out everywhere: every session of that user ends, other users stay signed in, the password still works', async () => {
    const frank = await addUser(t, 'frank');
    const phone = await signIn(t.app, 'frank', frank.password);
    const response = await submitAdmin(t, frank.jar, '/account/', '/account/sign-out-everywhere', {});
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe(`${SITE}/indieweb/login/`);
    for (const jar of [frank.jar, phone]) {
      for (const page of ADMIN_PAGES) expectLoginRedirect(await getAdmin(t, jar, page), `${ADMIN}${page}`);
    }
    expect((await getAdmin(t, carol.jar, '/account/')).statusCode).toBe(200);
    expect(await canSignIn('frank', frank.password)).toBe(true);
  });
});
