/**
 * The admin's Write area over HTTP (inject), on the in-memory and the
 * database handler: every post type stores exactly the expected
 * properties, refused forms keep what was typed, CSRF, uploads, edits as
 * exact update operations, delete and restore.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import type { HostUser } from '../../src/contracts/accounts.js';
import type { CookieJar } from '../helpers/app.js';
import {
  ADMIN,
  PNG_1X1,
  addUser,
  buildAdminApp,
  csrfOf,
  getAdmin,
  issueToken,
  postAdmin,
  textBetween,
  type AdminTestApp,
} from '../helpers/admin.js';
import { signIn } from '../helpers/app.js';
import { createSpyHandler, callsOf, mountedApp, type MicropubTestApp } from '../helpers/micropub.js';

const HANDLERS = ['memory', 'database'] as const;

/** The entry as the handler holds it, read through the Micropub endpoint with a token of the test's own. */
async function sourceOf(
  t: AdminTestApp,
  user: HostUser,
  url: string,
): Promise<{ status: number; type?: string[]; properties?: Record<string, unknown[]> }> {
  const { token } = await issueToken(t, user, { scope: 'update' });
  const response = await t.app.inject({
    method: 'GET',
    url: `/indieweb/micropub/?q=source&url=${encodeURIComponent(url)}`,
    headers: { authorization: `Bearer ${token}` },
  });
  return response.statusCode === 200 ? { status: 200, ...(response.json() as object) } : { status: response.statusCode };
}

/** The entry URL a Write redirect names. */
function postedUrl(response: LightMyRequestResponse): string {
  expect(response.statusCode).toBe(303);
  const location = new URL(String(response.headers.location));
  const url = location.searchParams.get('url');
  if (url === null) throw new Error(`no url in ${location.href}`);
  return url;
}

/** Posts a form to an admin path with the CSRF token of `pagePath`. */
async function submit(
  t: AdminTestApp,
  jar: CookieJar,
  pagePath: string,
  postPath: string,
  fields: Record<string, string | string[]>,
): Promise<LightMyRequestResponse> {
  const page = await getAdmin(t, jar, pagePath);
  expect(page.statusCode).toBe(200);
  const body = new URLSearchParams();
  body.append('_csrf', csrfOf(page));
  for (const [name, value] of Object.entries(fields)) for (const one of Array.isArray(value) ? value : [value]) body.append(name, one);
  const response = await t.app.inject({
    method: 'POST',
    url: `${ADMIN}${postPath}`,
    headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
    payload: body.toString(),
  });
  jar.storeFrom(response);
  return response;
}

type Part = { name: string; value: string } | { name: string; filename: string; type: string; content: Uint8Array };

/** A multipart body built by hand, parts in the order given (the CSRF field first, as the form has it). */
async function submitMultipart(t: AdminTestApp, jar: CookieJar, postPath: string, parts: Part[]): Promise<LightMyRequestResponse> {
  const boundary = `----write-${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    if ('value' in part)
      chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"\r\n\r\n${part.value}\r\n`));
    else {
      chunks.push(
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"; filename="${part.filename}"\r\nContent-Type: ${part.type}\r\n\r\n`,
        ),
        Buffer.from(part.content),
        Buffer.from('\r\n'),
      );
    }
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  const response = await t.app.inject({
    method: 'POST',
    url: `${ADMIN}${postPath}`,
    headers: { cookie: jar.header(), 'content-type': `multipart/form-data; boundary=${boundary}` },
    payload: Buffer.concat(chunks),
  });
  jar.storeFrom(response);
  return response;
}

/** The media records of the app (what uploads stored). */
const mediaCount = async (t: AdminTestApp) => (await t.database.db.selectFrom('indieweb_media').select('id').execute()).length;

describe.each(HANDLERS)('the Write area on the %s handler', (handler) => {
  let t: AdminTestApp;
  let alice: { user: HostUser; jar: CookieJar };

  beforeAll(async () => {
    t = await buildAdminApp(handler === 'database' ? { INDIEWEB_MICROPUB_HANDLER: 'database' } : {});
    alice = await addUser(t, 'alice');
  });
  afterAll(async () => t?.close());

  const write = (fields: Record<string, string | string[]>) =>
    submit(t, alice.jar, `/write/?type=${String(fields.type)}`, '/write/', fields);
  const stored = async (response: LightMyRequestResponse) => {
    const entry = await sourceOf(t, alice.user, postedUrl(response));
    expect(entry.status).toBe(200);
    return entry;
  };
  const csrf = async (path = '/write/') => csrfOf(await getAdmin(t, alice.jar, path));

  it.each([
    ['note', { content: 'Hello from the admin' }, ['h-entry'], { content: ['Hello from the admin'] }],
    [
      'article in Markdown (sanitized)',
      {
        type: 'article',
        name: 'On writing',
        content: 'Some *words*.\n\n<img src="javascript:alert(1)" onerror="x()">',
        format: 'markdown',
      },
      ['h-entry'],
      {
        name: ['On writing'],
        content: [
          { html: '<p>Some <em>words</em>.</p>\n<img />', value: 'Some *words*.\n\n<img src="javascript:alert(1)" onerror="x()">' },
        ],
      },
    ],
    [
      'article in HTML (sanitized)',
      { type: 'article', name: 'Raw', content: '<p onclick="x()">Hi <script>bad()</script><b>there</b></p>', format: 'html' },
      ['h-entry'],
      { name: ['Raw'], content: [{ html: '<p>Hi <b>there</b></p>' }] },
    ],
    [
      'reply',
      { type: 'reply', 'in-reply-to': 'https://example.com/post', content: 'Agreed!' },
      ['h-entry'],
      { 'in-reply-to': ['https://example.com/post'], content: ['Agreed!'] },
    ],
    [
      'bookmark',
      { type: 'bookmark', 'bookmark-of': 'https://example.com/read', name: 'A good read' },
      ['h-entry'],
      { 'bookmark-of': ['https://example.com/read'], name: ['A good read'] },
    ],
    ['like', { type: 'like', 'like-of': 'https://example.com/liked' }, ['h-entry'], { 'like-of': ['https://example.com/liked'] }],
    ['repost', { type: 'repost', 'repost-of': 'https://example.com/shared' }, ['h-entry'], { 'repost-of': ['https://example.com/shared'] }],
    [
      'event',
      {
        type: 'event',
        name: 'IndieWebCamp',
        summary: 'Two days',
        description: 'Talks and hacking',
        start: '2026-05-01T09:00',
        end: '2026-05-02T17:00',
        location: 'geo:52.5,13.4',
        url: 'https://indieweb.org/camp',
      },
      ['h-event'],
      {
        name: ['IndieWebCamp'],
        summary: ['Two days'],
        description: ['Talks and hacking'],
        start: ['2026-05-01T09:00'],
        end: ['2026-05-02T17:00'],
        location: ['geo:52.5,13.4'],
        url: ['https://indieweb.org/camp'],
      },
    ],
    [
      'rsvp',
      { type: 'rsvp', 'in-reply-to': 'https://example.com/event', rsvp: 'yes', content: 'See you there' },
      ['h-entry'],
      { 'in-reply-to': ['https://example.com/event'], rsvp: ['yes'], content: ['See you there'] },
    ],
    [
      'note with categories, slug and draft',
      { content: 'Draft note', 'category-new': 'indieweb, admin ,indieweb', 'mp-slug': 'a-draft', draft: '1' },
      ['h-entry'],
      { content: ['Draft note'], category: ['indieweb', 'admin'], 'post-status': ['draft'], 'mp-slug': ['a-draft'] },
    ],
  ] as const)('303 for a %s: the entry holds exactly what the form says', async (_name, fields, type, properties) => {
    const response = await write({ type: 'note', intent: 'publish', ...fields });
    const entry = await stored(response);
    expect(entry.type).toEqual(type);
    expect(entry.properties).toEqual(properties);
  });

  it('303 to the Posts page, which says what was done and links the post', async () => {
    const response = await write({ type: 'note', content: 'Linked', intent: 'publish' });
    const url = postedUrl(response);
    expect(String(response.headers.location)).toContain('done=published');
    const page = await getAdmin(t, alice.jar, String(response.headers.location).replace(`http://indiestack.test${ADMIN}`, ''));
    expect(page.body).toContain('Published.');
    expect(page.body).toContain(`<a href="${url}">`);
  });

  it('303 for a photo with alt text: uploaded through the media pipeline, stored as { value, alt }', async () => {
    const page = await getAdmin(t, alice.jar, '/write/?type=photo');
    expect(page.body).toContain('enctype="multipart/form-data"');
    const before = await mediaCount(t);
    const response = await submitMultipart(t, alice.jar, '/write/', [
      { name: '_csrf', value: csrfOf(page) },
      { name: 'type', value: 'photo' },
      { name: 'content', value: 'A pixel' },
      { name: 'media-count', value: '0' },
      { name: 'media-file', filename: 'pixel.png', type: 'image/png', content: PNG_1X1 },
      { name: 'media-alt-new', value: 'One white pixel' },
      { name: 'category-new', value: 'tiny' },
      { name: 'intent', value: 'publish' },
    ]);
    const entry = await stored(response);
    expect(await mediaCount(t)).toBe(before + 1);
    const [photo] = entry.properties!.photo as [{ value: string; alt: string }];
    expect(photo.value).toMatch(/^http:\/\/indiestack\.test\/indieweb\/media\/[\w-]+\.png$/);
    expect(entry.properties).toEqual({ content: ['A pixel'], photo: [{ value: photo.value, alt: 'One white pixel' }], category: ['tiny'] });
    const file = await t.app.inject({ method: 'GET', url: new URL(photo.value).pathname });
    expect(file.statusCode).toBe(200);
  });

  it.each([
    [
      'audio',
      'audio/mpeg',
      'tone.mp3',
      Buffer.concat([
        Buffer.from('ID3\u0004\u0000\u0000\u0000\u0000\u0000\u0000', 'latin1'),
        Buffer.from([0xff, 0xfb, 0x90, 0x64]),
        Buffer.alloc(600),
      ]),
    ],
    [
      'video',
      'video/mp4',
      'clip.mp4',
      Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypmp42\u0000\u0000\u0000\u0000mp42isom', 'latin1'), Buffer.alloc(600)]),
    ],
  ] as const)("303 for %s: the uploaded file is the entry's only media URL", async (kind, type, filename, content) => {
    const page = await getAdmin(t, alice.jar, `/write/?type=${kind}`);
    const response = await submitMultipart(t, alice.jar, '/write/', [
      { name: '_csrf', value: csrfOf(page) },
      { name: 'type', value: kind },
      { name: 'content', value: `My ${kind}` },
      { name: 'media-file', filename, type, content },
      { name: 'intent', value: 'publish' },
    ]);
    const entry = await stored(response);
    expect(Object.keys(entry.properties!).sort()).toEqual(['content', kind].sort());
    expect(entry.properties![kind]).toEqual([expect.stringMatching(/^http:\/\/indiestack\.test\/indieweb\/media\//)]);
  });

  it('400 when a required field is empty: nothing published, every typed value back, the message by its field', async () => {
    const before = await sourceList(t, alice.user);
    const response = await write({
      type: 'article',
      name: 'Kept <title> & all',
      content: '',
      'category-new': 'keep, these',
      'mp-slug': 'kept-slug',
      intent: 'publish',
    });
    expect(response.statusCode).toBe(400);
    expect(response.body).toContain('value="Kept &lt;title&gt; &amp; all"');
    expect(response.body).toContain('value="keep, these"');
    expect(response.body).toContain('value="kept-slug"');
    expect(response.body).toMatch(
      /<textarea id="field-content" name="content" rows="14" required aria-invalid="true" aria-describedby="error-content"><\/textarea><span class="error" id="error-content">This cannot be empty\.<\/span>/,
    );
    expect(await sourceList(t, alice.user)).toEqual(before);
  });

  it('400 for a reply to something that is not an http(s) URL: the text stays, the URL field says why', async () => {
    const response = await write({
      type: 'reply',
      'in-reply-to': 'javascript:alert(1)',
      content: 'My long reply\nwith two lines',
      intent: 'publish',
    });
    expect(response.statusCode).toBe(400);
    expect(textBetween(response.body, 'name="content" rows="6" required>', '</textarea>')).toBe('My long reply\nwith two lines');
    expect(response.body).toContain('value="javascript:alert(1)"');
    expect(response.body).toContain('id="error-in-reply-to">Give an absolute http or https address');
  });

  it('400 from the endpoint itself (its own rules): shown above the form, the text kept', async () => {
    // the form's checks pass; the Micropub endpoint's server-managed rule refuses (INDIEWEB_MICROPUB_SERVER_MANAGED_PROPERTIES)
    const strict = await buildAdminApp({
      ...(handler === 'database' ? { INDIEWEB_MICROPUB_HANDLER: 'database' } : {}),
      INDIEWEB_MICROPUB_SERVER_MANAGED_PROPERTIES: 'category',
    });
    try {
      const bob = await addUser(strict, 'bob');
      const response = await submit(strict, bob.jar, '/write/', '/write/', {
        type: 'note',
        content: 'Tagged text',
        'category-new': 'nope',
        intent: 'publish',
      });
      expect(response.statusCode).toBe(400);
      expect(response.body).toContain('The Micropub endpoint refused this: category is managed by the server.');
      expect(textBetween(response.body, 'name="content" rows="6" required>', '</textarea>')).toBe('Tagged text');
    } finally {
      await strict.close();
    }
  });

  it("403 Form expired for a form without its CSRF token, or with another browser's: nothing published", async () => {
    const before = await sourceList(t, alice.user);
    const missing = await postAdmin(t, alice.jar, '/write/', { type: 'note', content: 'forged', intent: 'publish' });
    expect(missing.statusCode).toBe(403);
    expect(missing.body).toContain('Form expired');
    const other = await addUser(t, 'mallory');
    const foreign = await postAdmin(t, alice.jar, '/write/', {
      _csrf: await csrfOf(await getAdmin(t, other.jar, '/write/')),
      type: 'note',
      content: 'forged',
      intent: 'publish',
    });
    expect(foreign.statusCode).toBe(403);
    for (const path of ['/posts/delete', '/posts/undelete', '/posts/edit'])
      expect((await postAdmin(t, alice.jar, path, { url: 'http://indiestack.test/x' })).statusCode).toBe(403);
    expect(await sourceList(t, alice.user)).toEqual(before);
  });

  it('403 for a multipart form with a file but no valid CSRF token before it: the file is never stored', async () => {
    const before = await mediaCount(t);
    const response = await submitMultipart(t, alice.jar, '/write/', [
      { name: 'type', value: 'photo' },
      { name: 'media-file', filename: 'pixel.png', type: 'image/png', content: PNG_1X1 },
      { name: '_csrf', value: 'forged.token' },
    ]);
    expect(response.statusCode).toBe(403);
    expect(await mediaCount(t)).toBe(before);
    const noToken = await submitMultipart(t, alice.jar, '/write/', [
      { name: 'type', value: 'note' },
      { name: 'content', value: 'x' },
    ]);
    expect(noToken.statusCode).toBe(403);
  });

  it('400 for an upload that is refused (not an image): nothing stored, the rest of the form kept, the reason by the file field', async () => {
    const page = await getAdmin(t, alice.jar, '/write/?type=photo');
    const before = await mediaCount(t);
    const response = await submitMultipart(t, alice.jar, '/write/', [
      { name: '_csrf', value: csrfOf(page) },
      { name: 'type', value: 'photo' },
      { name: 'content', value: 'Caption typed before the file' },
      { name: 'media-file', filename: 'pixel.png', type: 'image/png', content: Buffer.from('<html><script>alert(1)</script></html>') },
      { name: 'media-alt-new', value: 'Alt typed after the file' },
      { name: 'category-new', value: 'after, the, file' },
      { name: 'intent', value: 'publish' },
    ]);
    expect(response.statusCode).toBe(400);
    expect(await mediaCount(t)).toBe(before);
    expect(textBetween(response.body, 'name="content" rows="6">', '</textarea>')).toBe('Caption typed before the file');
    expect(response.body).toContain('value="Alt typed after the file"');
    expect(response.body).toContain('value="after, the, file"');
    expect(response.body).toMatch(/id="error-media">The file was refused|id="error-media">This server does not accept/);
  });

  it('a refused post after a stored upload keeps the upload in the form: sent again, it is published with it', async () => {
    const page = await getAdmin(t, alice.jar, '/write/?type=photo');
    const first = await submitMultipart(t, alice.jar, '/write/', [
      { name: '_csrf', value: csrfOf(page) },
      { name: 'type', value: 'photo' },
      { name: 'media-file', filename: 'pixel.png', type: 'image/png', content: PNG_1X1 },
      { name: 'media-alt-new', value: 'Kept alt' },
      { name: 'mp-slug', value: 'kept-photo' },
      { name: 'intent', value: 'preview' },
    ]);
    expect(first.statusCode).toBe(200);
    const url = /name="media-url-0" value="([^"]+)"/.exec(first.body)?.[1];
    expect(url).toMatch(/\/indieweb\/media\//);
    expect(first.body).toContain(`<img src="${url}" alt="Kept alt"`);
    const again = await submit(t, alice.jar, '/write/?type=photo', '/write/', {
      type: 'photo',
      'media-count': '1',
      'media-url-0': url!,
      'media-alt-0': 'Kept alt',
      intent: 'publish',
    });
    expect((await stored(again)).properties).toEqual({ photo: [{ value: url, alt: 'Kept alt' }] });
  });

  it('Preview shows the Markdown as it will look, without publishing', async () => {
    const before = await sourceList(t, alice.user);
    const response = await write({
      type: 'article',
      name: 'Draft',
      content: '**bold** <script>x()</script>',
      format: 'markdown',
      intent: 'preview',
    });
    expect(response.statusCode).toBe(200);
    expect(response.body).toContain('<h2 id="preview-heading">Preview</h2><div><p><strong>bold</strong> </p>');
    expect(response.body).not.toContain('<script>x()');
    expect(await sourceList(t, alice.user)).toEqual(before);
  });

  it("200 for the Write page: category suggestions and syndication targets come from the handler's config (none here)", async () => {
    const page = await getAdmin(t, alice.jar, '/write/?type=note');
    expect(page.statusCode).toBe(200);
    // the database handler suggests the categories of the posts written above (issue 30 item 7); the in-memory handler none
    expect(page.body).toContain(handler === 'database' ? 'New categories, separated by commas' : 'Categories, separated by commas');
    expect(page.body).not.toContain('Also post to');
    // the tokens minted for the page's queries are revoked at once: the Apps page lists no admin grant
    const apps = await getAdmin(t, alice.jar, '/apps/');
    expect(apps.body).not.toContain('http://indiestack.test/indieweb/admin/');
  });

  it('edit: the form shows the entry; saving sends only what changed, and a change made elsewhere meanwhile stays', async () => {
    const url = postedUrl(
      await write({
        type: 'article',
        name: 'Old title',
        content: 'Old *text*',
        format: 'markdown',
        'category-new': 'keep, drop',
        intent: 'publish',
      }),
    );
    const form = await getAdmin(t, alice.jar, `/posts/edit?url=${encodeURIComponent(url)}`);
    expect(form.statusCode).toBe(200);
    expect(form.body).toContain('value="Old title"');
    expect(textBetween(form.body, 'name="content" rows="14" required>', '</textarea>')).toBe('Old *text*');
    const original = /name="original" value="([^"]+)"/
      .exec(form.body)![1]!
      .replace(/&quot;/g, '"')
      .replace(/&amp;/g, '&')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&#39;/g, "'");

    // another client changes the summary meanwhile
    const { token } = await issueToken(t, alice.user, { scope: 'update' });
    const elsewhere = await t.app.inject({
      method: 'POST',
      url: '/indieweb/micropub/',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      payload: { action: 'update', url, add: { summary: ['From elsewhere'] } },
    });
    expect(elsewhere.statusCode).toBe(204);

    const saved = await postAdmin(t, alice.jar, '/posts/edit', {
      _csrf: csrfOf(form),
      url,
      original,
      type: 'article',
      name: 'New title',
      summary: '',
      content: 'Old *text*',
      format: 'markdown',
      category: 'keep',
      'category-new': 'added',
      intent: 'publish',
    });
    expect(saved.statusCode).toBe(303);
    expect(String(saved.headers.location)).toContain('done=updated');
    expect((await sourceOf(t, alice.user, url)).properties).toEqual({
      name: ['New title'],
      content: [{ html: '<p>Old <em>text</em></p>\n', value: 'Old *text*' }],
      category: ['keep', 'added'],
      summary: ['From elsewhere'],
    });
  });

  it('edit of a photo: alt text changed and a photo removed in one save', async () => {
    const { token } = await issueToken(t, alice.user, { scope: 'create' });
    const created = await t.app.inject({
      method: 'POST',
      url: '/indieweb/micropub/',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      payload: {
        type: ['h-entry'],
        properties: { photo: [{ value: 'https://example.com/a.png', alt: 'A' }, 'https://example.com/b.png'], content: ['Two'] },
      },
    });
    const url = String(created.headers.location);
    const form = await getAdmin(t, alice.jar, `/posts/edit?url=${encodeURIComponent(url)}`);
    expect(form.body).toContain('name="media-url-1" value="https://example.com/b.png"');
    const original = JSON.stringify({
      content: ['Two'],
      photo: [{ value: 'https://example.com/a.png', alt: 'A' }, 'https://example.com/b.png'],
    });
    const saved = await postAdmin(t, alice.jar, '/posts/edit', {
      _csrf: csrfOf(form),
      url,
      original,
      type: 'photo',
      content: 'Two',
      'media-count': '2',
      'media-url-0': 'https://example.com/a.png',
      'media-alt-0': 'Better alt',
      'media-url-1': 'https://example.com/b.png',
      'media-alt-1': '',
      'media-remove-1': '1',
      intent: 'publish',
    });
    expect(saved.statusCode).toBe(303);
    expect((await sourceOf(t, alice.user, url)).properties).toEqual({
      content: ['Two'],
      photo: [{ value: 'https://example.com/a.png', alt: 'Better alt' }],
    });
  });

  it("a draft spelled ' Draft ' by another client is a draft on the Posts page and in the edit form, as on the site (issue 28, F14)", async () => {
    const { token } = await issueToken(t, alice.user, { scope: 'create' });
    const created = await t.app.inject({
      method: 'POST',
      url: '/indieweb/micropub/',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      payload: { type: ['h-entry'], properties: { content: ['Spelled draft'], 'post-status': [' Draft '] } },
    });
    const url = String(created.headers.location);
    const form = await getAdmin(t, alice.jar, `/posts/edit?url=${encodeURIComponent(url)}`);
    expect(form.body).toContain('name="draft" value="1" checked>');
    const posts = await getAdmin(t, alice.jar, `/posts/?filter=${encodeURIComponent('Spelled draft')}`);
    expect(posts.body).toContain('(draft)');
  });

  it('edit with nothing changed sends no update and says so', async () => {
    const url = postedUrl(await write({ type: 'note', content: 'Same', intent: 'publish' }));
    const form = await getAdmin(t, alice.jar, `/posts/edit?url=${encodeURIComponent(url)}`);
    const saved = await postAdmin(t, alice.jar, '/posts/edit', {
      _csrf: csrfOf(form),
      url,
      original: JSON.stringify({ content: ['Same'] }),
      type: 'note',
      content: 'Same',
      intent: 'publish',
    });
    expect(String(saved.headers.location)).toContain('done=unchanged');
  });

  it("400 for editing a URL that is no post of the user's", async () => {
    const page = await getAdmin(t, alice.jar, `/posts/edit?url=${encodeURIComponent('http://indiestack.test/nothing/here/')}`);
    expect(page.statusCode).toBe(400);
    expect(page.body).toContain('No post of yours has this URL');
  });

  it('delete, then restore: the Posts page offers Restore, and the post is back', async () => {
    const url = postedUrl(await write({ type: 'note', content: 'Short-lived', intent: 'publish' }));
    const deleted = await submit(t, alice.jar, '/posts/', '/posts/delete', { url });
    expect(deleted.statusCode).toBe(303);
    expect((await sourceOf(t, alice.user, url)).status).toBe(400);
    const page = await getAdmin(t, alice.jar, String(deleted.headers.location).replace(`http://indiestack.test${ADMIN}`, ''));
    expect(page.body).toContain('Post deleted.');
    expect(page.body).toContain('Restore it');
    expect(hiddenUrls(page.body)).toContain(url);
    const restored = await postAdmin(t, alice.jar, '/posts/undelete', { _csrf: csrfOf(page), url });
    expect(restored.statusCode).toBe(303);
    expect(String(restored.headers.location)).toContain('done=restored');
    expect((await sourceOf(t, alice.user, url)).properties).toEqual({ content: ['Short-lived'] });
  });

  it('400 for restoring a URL that is not a deleted post: said on the Posts page', async () => {
    const response = await submit(t, alice.jar, '/posts/', '/posts/undelete', { url: 'http://indiestack.test/never/was/' });
    expect(response.statusCode).toBe(400);
    expect(response.body).toContain('No deleted post of yours has this URL');
  });

  it("Posts lists the user's posts with a filter and pages of 20", async () => {
    for (let index = 0; index < 21; index++) await write({ type: 'note', content: `Numbered post ${index}`, intent: 'publish' });
    const filtered = await getAdmin(t, alice.jar, '/posts/?filter=numbered');
    expect(filtered.body).toContain('Posts 1–20');
    expect(filtered.body).toContain('rel="next"');
    const next = await getAdmin(t, alice.jar, '/posts/?filter=numbered&offset=20');
    expect(next.body).toContain('Posts 21–21');
    expect(next.body).toContain('rel="prev"');
    const none = await getAdmin(t, alice.jar, '/posts/?filter=no-such-words');
    expect(none.body).toContain('No post matches this filter.');
  });
});

describe('the Write area with a host handler', () => {
  let m: MicropubTestApp;
  let spy: ReturnType<typeof createSpyHandler>;
  let jar: CookieJar;

  beforeAll(async () => {
    spy = createSpyHandler({
      getConfig: async () => ({
        categories: ['indieweb', 'cats'],
        'syndicate-to': [
          { uid: 'https://social.example/', name: 'Social', checked: true },
          { uid: 'https://other.example/', name: 'Other' },
        ],
      }),
    });
    // a handler without listEntries: q=source lists answer 501
    const { listEntries: _unlisted, ...withoutList } = spy.handler;
    m = await mountedApp({ handler: withoutList as typeof spy.handler });
    await m.app.indieweb.users!.addUser({ name: 'writer', me: ['https://writer.example/'], password: 'writer password 1' });
    jar = await signIn(m.app, 'writer', 'writer password 1');
  });
  afterAll(async () => m?.close());

  const page = async (path: string) => {
    const response = await m.app.inject({ method: 'GET', url: `${ADMIN}${path}`, headers: { cookie: jar.header() } });
    jar.storeFrom(response);
    return response;
  };
  const post = async (path: string, fields: Record<string, string | string[]>) => {
    const body = new URLSearchParams();
    for (const [name, value] of Object.entries(fields)) for (const one of Array.isArray(value) ? value : [value]) body.append(name, one);
    return m.app.inject({
      method: 'POST',
      url: `${ADMIN}${path}`,
      headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
      payload: body.toString(),
    });
  };

  it("offers the handler's categories and syndication targets (advertised checked ones ticked)", async () => {
    const form = await page('/write/?type=note');
    expect(form.body).toContain('name="category" value="indieweb">');
    expect(form.body).toContain(
      '<input type="checkbox" id="syndicate-0" name="mp-syndicate-to" value="https://social.example/" checked> Social',
    );
    expect(form.body).toContain('<input type="checkbox" id="syndicate-1" name="mp-syndicate-to" value="https://other.example/"> Other');
  });

  it('sends the handler exactly one create with the chosen categories and targets', async () => {
    const form = await page('/write/?type=note');
    const before = callsOf(spy.calls, 'createEntry').length;
    const response = await post('/write/', {
      _csrf: csrfOf(form),
      type: 'note',
      content: 'Syndicated',
      category: 'cats',
      'category-new': 'new',
      'mp-syndicate-to': 'https://other.example/',
      intent: 'publish',
    });
    expect(response.statusCode).toBe(303);
    const creates = callsOf(spy.calls, 'createEntry');
    expect(creates.length).toBe(before + 1);
    expect(creates.at(-1)!.args[0]).toEqual({
      type: ['h-entry'],
      properties: { content: ['Syndicated'], category: ['cats', 'new'], 'mp-syndicate-to': ['https://other.example/'] },
    });
  });

  it("an edit reaches the handler as the exact update operations of the form's difference", async () => {
    const { token } = { token: await m.token('create') };
    const created = await m.app.inject({
      method: 'POST',
      url: '/indieweb/micropub/',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      payload: {
        type: ['h-entry'],
        properties: { name: ['Title'], summary: ['Gone soon'], content: ['Body'], category: ['indieweb', 'cats'] },
      },
    });
    const url = String(created.headers.location);
    // the writer does not own alice's entry: the form says so
    expect((await page(`/posts/edit?url=${encodeURIComponent(url)}`)).statusCode).toBe(400);
    const own = await post('/write/', {
      _csrf: csrfOf(await page('/write/?type=article')),
      type: 'article',
      name: 'Title',
      summary: 'Gone soon',
      content: 'Body',
      format: 'text',
      category: ['indieweb', 'cats'],
      intent: 'publish',
    });
    const ownUrl = postedUrl(own);
    const form = await page(`/posts/edit?url=${encodeURIComponent(ownUrl)}`);
    const before = callsOf(spy.calls, 'updateEntry').length;
    const saved = await post('/posts/edit', {
      _csrf: csrfOf(form),
      url: ownUrl,
      original: JSON.stringify({ name: ['Title'], summary: ['Gone soon'], content: ['Body'], category: ['indieweb', 'cats'] }),
      type: 'article',
      name: 'Title, edited',
      summary: '',
      content: 'Body',
      format: 'text',
      category: 'indieweb',
      'category-new': 'fresh',
      intent: 'publish',
    });
    expect(saved.statusCode).toBe(303);
    const updates = callsOf(spy.calls, 'updateEntry');
    expect(updates.length).toBe(before + 1);
    // delete is a list (summary goes), so the category set's removal becomes a replace of the whole set
    expect(updates.at(-1)!.args.slice(0, 2)).toEqual([
      ownUrl,
      { replace: { name: ['Title, edited'], category: ['indieweb', 'fresh'] }, delete: ['summary'] },
    ]);
  });

  it('Posts says plainly that this handler cannot list posts (501), and still offers edit and restore by URL', async () => {
    const posts = await page('/posts/');
    expect(posts.statusCode).toBe(200);
    expect(posts.body).toContain('Your content handler cannot list posts');
    expect(posts.body).toContain('URL of the post to edit');
    expect(posts.body).toContain('URL of a deleted post to restore');
  });
});

describe('the Write area and the client policy', () => {
  it('a client allow-list without the admin says so on the Write page, and nothing is published', async () => {
    const t = await buildAdminApp({ INDIEWEB_ALLOWED_CLIENT_IDS: 'https://only.example/' });
    try {
      const alice = await addUser(t, 'alice');
      const page = await getAdmin(t, alice.jar, '/write/');
      expect(page.body).toContain('refuses the admin as a Micropub client');
      const response = await submit(t, alice.jar, '/write/', '/write/', { type: 'note', content: 'Refused', intent: 'publish' });
      expect(response.statusCode).toBe(403);
      expect(textBetween(response.body, 'name="content" rows="6" required>', '</textarea>')).toBe('Refused');
      const allowed = await buildAdminApp({ INDIEWEB_ALLOWED_CLIENT_IDS: 'http://indiestack.test/indieweb/admin/' });
      try {
        const bob = await addUser(allowed, 'bob');
        expect(
          (await submit(allowed, bob.jar, '/write/', '/write/', { type: 'note', content: 'Allowed', intent: 'publish' })).statusCode,
        ).toBe(303);
      } finally {
        await allowed.close();
      }
    } finally {
      await t.close();
    }
  });
});

/** The list of the user's entries (q=source), to check nothing was published. */
async function sourceList(t: AdminTestApp, user: HostUser): Promise<unknown> {
  const { token } = await issueToken(t, user, { scope: 'update' });
  return (
    await t.app.inject({ method: 'GET', url: '/indieweb/micropub/?q=source&limit=1000', headers: { authorization: `Bearer ${token}` } })
  ).json();
}

function hiddenUrls(body: string): string[] {
  return [...body.matchAll(/name="url" value="([^"]+)"/g)].map((match) => match[1]!);
}

describe('what a cited URL is (through the outbound guard)', () => {
  let server: http.Server;
  let pageUrl: string;

  beforeAll(async () => {
    server = http.createServer((_request, response) => {
      response.setHeader('content-type', 'text/html; charset=utf-8');
      response.end(
        '<!doctype html><title>Tab title</title><article class="h-entry"><h1 class="p-name">A post worth a reply</h1><a class="p-author h-card" href="/">Ada Lovelace</a></article>',
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    pageUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}/post`;
  });
  afterAll(() => server?.close());

  it("Preview names the cited page by its microformats title and author; the script's JSON says the same", async () => {
    const t = await buildAdminApp({ INDIEWEB_ALLOW_PRIVATE_NETWORKS: 'true' });
    try {
      const alice = await addUser(t, 'alice');
      const preview = await submit(t, alice.jar, '/write/?type=reply', '/write/', {
        type: 'reply',
        'in-reply-to': pageUrl,
        content: 'Hm.',
        intent: 'preview',
      });
      expect(preview.statusCode).toBe(200);
      expect(preview.body).toContain('You are citing <cite>A post worth a reply</cite> by Ada Lovelace.');
      const json = await submit(t, alice.jar, '/write/', '/write/cite', { url: pageUrl });
      expect(json.json()).toEqual({
        ok: true,
        url: pageUrl,
        title: 'A post worth a reply',
        author: 'Ada Lovelace',
        authorUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/$/),
      });
    } finally {
      await t.close();
    }
  });

  it('a private address is refused by the guard, and said so next to the field', async () => {
    const t = await buildAdminApp();
    try {
      const alice = await addUser(t, 'alice');
      const preview = await submit(t, alice.jar, '/write/?type=like', '/write/', { type: 'like', 'like-of': pageUrl, intent: 'preview' });
      expect(preview.statusCode).toBe(200);
      expect(preview.body).toMatch(
        /<p data-write-citation class="error">The page could not be fetched: refusing to connect to 127\.0\.0\.1: not a public address\.<\/p>/,
      );
    } finally {
      await t.close();
    }
  });
});
