/**
 * Media endpoint uploads: storage on both backends, the 400s of the request
 * shape, sniffing and the allow-list (415), and the bearer checks.
 * @see SPEC.md "Media endpoint", "Errors" (Micropub and media), "Limits"
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BACKENDS,
  FILES,
  filePart,
  INVALID_REQUEST,
  keyOf,
  type MediaApp,
  MEDIA,
  mediaPostForm,
  multipart,
  padded,
  postMultipart,
  randomPng,
  type S3Fixture,
  standaloneMediaApp,
  startS3,
  upload,
} from '../helpers/media.js';

let s3: S3Fixture;
beforeAll(async () => {
  s3 = await startS3();
});
afterAll(async () => {
  await s3.close();
});

const KEY = /^indieweb\/media\/([A-Za-z0-9_-]+)\.([a-z0-9]+)$/;

describe.each(BACKENDS)('POST /indieweb/media/ upload (%s storage)', (backend) => {
  let t: MediaApp;
  let token: string;
  beforeAll(async () => {
    t = await standaloneMediaApp(backend, s3);
    token = await t.token('media');
  });
  afterAll(async () => {
    await t.close();
  });

  it('201 with an absolute Location and an empty body; the stored bytes and type are served at that URL', async () => {
    const content = randomPng(3000);
    const response = await upload(t.app, token, content, 'holiday.png', 'image/png');
    expect(response.statusCode).toBe(201);
    expect(response.body).toBe('');
    const location = response.headers.location as string;
    const url = new URL(location);
    expect(url.href).toBe(location);
    expect(['http:', 'https:']).toContain(url.protocol);

    if (backend === 'local') {
      expect(url.origin).toBe('http://indiestack.test');
      const served = await t.app.inject({ method: 'GET', url: url.pathname });
      expect(served.statusCode).toBe(200);
      expect(served.headers['content-type']).toBe('image/png');
      expect(served.headers['x-content-type-options']).toBe('nosniff');
      expect(served.headers['content-security-policy']).toMatch(/\bsandbox\b/);
      const maxAge = Number(/max-age=(\d+)/.exec(String(served.headers['cache-control']))?.[1]);
      expect(maxAge).toBeGreaterThanOrEqual(30 * 24 * 3600);
      expect(Buffer.compare(served.rawPayload, content)).toBe(0);
    } else {
      expect(url.origin).toBe(s3.endpoint);
      const fetched = await fetch(location);
      expect(fetched.status).toBe(200);
      expect(fetched.headers.get('content-type')).toBe('image/png');
      expect(Buffer.compare(Buffer.from(await fetched.arrayBuffer()), content)).toBe(0);
    }
    expect(await t.stored()).toContain(keyOf(location));
  });

  it('201 with an unguessable key below indieweb/media/ (at least 16 random characters, a new one per upload)', async () => {
    const first = await upload(t.app, token, randomPng());
    const second = await upload(t.app, token, randomPng());
    const keys = [first, second].map((response) => keyOf(response.headers.location as string));
    for (const key of keys) {
      const match = KEY.exec(key);
      expect(match).not.toBeNull();
      expect(match![1]!.length).toBeGreaterThanOrEqual(16);
      expect(match![1]).not.toMatch(/upload/);
    }
    expect(keys[0]).not.toBe(keys[1]);
    const stored = await t.stored();
    for (const key of keys) expect(stored).toContain(key);
  });

  it('201 with the suffix of the sniffed type: a PNG declared application/octet-stream and named "x" is stored as .png', async () => {
    const response = await upload(t.app, token, randomPng(), 'x', 'application/octet-stream');
    expect(response.statusCode).toBe(201);
    const key = keyOf(response.headers.location as string);
    expect(key).toMatch(/\.png$/);
    if (backend === 'local') {
      const served = await t.app.inject({ method: 'GET', url: new URL(response.headers.location as string).pathname });
      expect(served.headers['content-type']).toBe('image/png');
    } else {
      const fetched = await fetch(response.headers.location as string);
      expect(fetched.headers.get('content-type')).toBe('image/png');
    }
  });

  it.each([
    ['a JPEG', FILES.jpeg, 'photo.jpeg', 'image/jpeg', 'image/jpeg', 'jpg'],
    ['a GIF', FILES.gif, 'anim.gif', 'image/gif', 'image/gif', 'gif'],
    ['a WebP', FILES.webp, 'pic.webp', 'image/webp', 'image/webp', 'webp'],
    ['an MP3 (ID3 header)', FILES.mp3, 'song.mp3', 'audio/mpeg', 'audio/mpeg', 'mp3'],
    ['an MP4 (ftyp isom)', FILES.mp4, 'clip.mp4', 'video/mp4', 'video/mp4', 'mp4'],
  ])(
    '201 for %s under the default allow-list, stored with its sniffed type',
    async (_label, content, filename, declared, stored, suffix) => {
      const response = await upload(t.app, token, content, filename, declared);
      expect(response.statusCode).toBe(201);
      const location = response.headers.location as string;
      expect(keyOf(location)).toMatch(new RegExp(`\\.${suffix}$`));
      const contentType =
        backend === 'local'
          ? (await t.app.inject({ method: 'GET', url: new URL(location).pathname })).headers['content-type']
          : (await fetch(location)).headers.get('content-type');
      expect(contentType).toBe(stored);
    },
  );

  it('201 with the token in a multipart field access_token placed before the file part', async () => {
    const before = (await t.stored()).length;
    const response = await postMultipart(t.app, null, [{ name: 'access_token', value: token }, filePart(randomPng())]);
    expect(response.statusCode).toBe(201);
    expect((await t.stored()).length).toBe(before + 1);
  });

  it('201 with the token in a multipart field Authorization ("Bearer …") placed before the file part', async () => {
    const response = await postMultipart(t.app, null, [{ name: 'Authorization', value: `Bearer ${token}` }, filePart(randomPng())]);
    expect(response.statusCode).toBe(201);
  });

  it('400 invalid_request for a request that is not multipart (form-encoded, no action)', async () => {
    const response = await mediaPostForm(t.app, token, { file: 'not a file' });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(INVALID_REQUEST);
  });

  it('400 invalid_request for a JSON body', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: MEDIA,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      payload: '{"file":"x"}',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(INVALID_REQUEST);
  });

  it('400 invalid_request for a multipart content type without a boundary', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: MEDIA,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'multipart/form-data' },
      payload: 'x',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(INVALID_REQUEST);
  });

  it.each([
    ['image/png', FILES.png],
    ['text/plain', Buffer.from('hello')],
  ])('400 invalid_request for a raw %s body (not multipart)', async (type, payload) => {
    const response = await t.app.inject({
      method: 'POST',
      url: MEDIA,
      headers: { authorization: `Bearer ${token}`, 'content-type': type },
      payload,
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(INVALID_REQUEST);
  });

  it('400 invalid_request for a multipart body without a file part', async () => {
    const response = await postMultipart(t.app, token, [{ name: 'name', value: 'holiday' }]);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(INVALID_REQUEST);
  });

  it('400 invalid_request for a text field named file (no file part)', async () => {
    const response = await postMultipart(t.app, token, [{ name: 'file', value: 'not a file' }]);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(INVALID_REQUEST);
  });

  it('400 invalid_request for two file parts, and neither is left stored', async () => {
    const rows = await t.rows();
    const stored = await t.stored();
    const response = await postMultipart(t.app, token, [filePart(randomPng(), 'a.png'), filePart(randomPng(), 'b.png')]);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(INVALID_REQUEST);
    expect(await t.rows()).toBe(rows);
    expect(await t.stored()).toEqual(stored);
  });

  it('400 invalid_request for a file part with another name, and nothing is stored', async () => {
    const rows = await t.rows();
    const stored = await t.stored();
    const response = await postMultipart(t.app, token, [{ name: 'photo', filename: 'a.png', type: 'image/png', content: randomPng() }]);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(INVALID_REQUEST);
    expect(await t.rows()).toBe(rows);
    expect(await t.stored()).toEqual(stored);
  });

  it('400 invalid_request for a file part with another name after a good file part, and nothing is left stored', async () => {
    const rows = await t.rows();
    const stored = await t.stored();
    const response = await postMultipart(t.app, token, [
      filePart(randomPng()),
      { name: 'photo', filename: 'a.png', type: 'image/png', content: randomPng() },
    ]);
    expect(response.statusCode).toBe(400);
    expect(await t.rows()).toBe(rows);
    expect(await t.stored()).toEqual(stored);
  });

  it('401 authentication error without a token, and nothing is stored', async () => {
    const rows = await t.rows();
    const stored = await t.stored();
    const response = await upload(t.app, null, randomPng());
    expect(response.statusCode).toBe(401);
    expect(response.body).toBe('authentication error');
    expect(response.headers['www-authenticate']).toBe('Bearer');
    expect(response.headers['cache-control']).toBe('no-store');
    expect(await t.rows()).toBe(rows);
    expect(await t.stored()).toEqual(stored);
  });

  it('401 authentication error for an unknown token', async () => {
    const response = await upload(t.app, 'not-a-token', randomPng());
    expect(response.statusCode).toBe(401);
    expect(response.body).toBe('authentication error');
  });

  it.each([
    ['Authorization', (value: string) => `Bearer ${value}`],
    ['access_token', (value: string) => value],
  ])('201 when the token comes in a %s field after the file part; the file is stored once, byte for byte', async (field, valueOf) => {
    const rows = await t.rows();
    const content = randomPng(70_000);
    const response = await postMultipart(t.app, null, [filePart(content), { name: field, value: valueOf(token) }]);
    expect(response.statusCode).toBe(201);
    expect(await t.rows()).toBe(rows + 1);
    const location = response.headers.location as string;
    const bytes =
      backend === 'local'
        ? (await t.app.inject({ method: 'GET', url: new URL(location).pathname })).rawPayload
        : Buffer.from(await (await fetch(location)).arrayBuffer());
    expect(Buffer.compare(bytes, content)).toBe(0);
  });

  it('401 authentication error when no token comes before or after the file part, and nothing is stored', async () => {
    const rows = await t.rows();
    const stored = await t.stored();
    const response = await postMultipart(t.app, null, [filePart(randomPng()), { name: 'note', value: 'no token here' }]);
    expect(response.statusCode).toBe(401);
    expect(response.body).toBe('authentication error');
    expect(await t.rows()).toBe(rows);
    expect(await t.stored()).toEqual(stored);
  });

  it('401 for an unknown token after the file part; 403 for a token without media scope after it; nothing stored', async () => {
    const rows = await t.rows();
    const unknown = await postMultipart(t.app, null, [filePart(randomPng()), { name: 'access_token', value: 'not-a-token' }]);
    expect(unknown.statusCode).toBe(401);
    const noScope = await postMultipart(t.app, null, [filePart(randomPng()), { name: 'access_token', value: await t.token('create') }]);
    expect(noScope.statusCode).toBe(403);
    expect(noScope.body).toBe('authorization error');
    expect(await t.rows()).toBe(rows);
  });

  it('415 invalid_request for HTML renamed .png even when the token comes after it: the checks run once the caller is known', async () => {
    const rows = await t.rows();
    const response = await postMultipart(t.app, null, [
      filePart(FILES.html, 'page.png', 'image/png'),
      { name: 'access_token', value: token },
    ]);
    expect(response.statusCode).toBe(415);
    expect(response.json()).toEqual(INVALID_REQUEST);
    expect(await t.rows()).toBe(rows);
  });

  it.each(['create', 'create update delete undelete', 'mediaXYZ', ''])(
    '403 authorization error for a token with scope %j (no media), and nothing is stored',
    async (scope) => {
      const rows = await t.rows();
      const stored = await t.stored();
      const response = await upload(t.app, await t.token(scope), randomPng());
      expect(response.statusCode).toBe(403);
      expect(response.body).toBe('authorization error');
      expect(await t.rows()).toBe(rows);
      expect(await t.stored()).toEqual(stored);
    },
  );
});

describe.each(BACKENDS)('POST /indieweb/media/ content sniffing (%s storage)', (backend) => {
  let strict: MediaApp;
  let open: MediaApp;
  let pngOnly: MediaApp;
  beforeAll(async () => {
    [strict, open, pngOnly] = await Promise.all([
      standaloneMediaApp(backend, s3),
      standaloneMediaApp(backend, s3, { INDIEWEB_MEDIA_ALLOWED_TYPES: 'none' }),
      standaloneMediaApp(backend, s3, { INDIEWEB_MEDIA_ALLOWED_TYPES: 'image/png' }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([strict.close(), open.close(), pngOnly.close()]);
  });

  const refused: [string, Buffer, string, string | undefined][] = [
    ['HTML renamed .png and declared image/png', FILES.html, 'page.png', 'image/png'],
    ['HTML declared text/html', FILES.html, 'page.html', 'text/html'],
    ['SVG declared image/svg+xml', FILES.svg, 'logo.svg', 'image/svg+xml'],
    ['SVG renamed .png and declared image/png', FILES.svg, 'logo.png', 'image/png'],
    ['shell.php.jpg holding real JPEG bytes', FILES.jpeg, 'shell.php.jpg', 'image/jpeg'],
    ['shell.php holding real JPEG bytes', FILES.jpeg, 'shell.php', 'image/jpeg'],
    ['a PNG declared image/jpeg', FILES.png, 'x.png', 'image/jpeg'],
    ['a PNG named x.jpg', FILES.png, 'x.jpg', 'image/png'],
    ['a PNG named x.jpg declared application/octet-stream', FILES.png, 'x.jpg', 'application/octet-stream'],
    ['a GIF declared image/png', FILES.gif, 'x.gif', 'image/png'],
  ];

  it.each(refused)('415 invalid_request for %s (default allow-list), nothing stored', async (_label, content, filename, type) => {
    const token = await strict.token('media');
    const stored = await strict.stored();
    const response = await upload(strict.app, token, content, filename, type);
    expect(response.statusCode).toBe(415);
    expect(response.json()).toEqual(INVALID_REQUEST);
    expect(await strict.rows()).toBe(0);
    expect(await strict.stored()).toEqual(stored);
  });

  it.each(refused)('415 invalid_request for %s even with INDIEWEB_MEDIA_ALLOWED_TYPES=none', async (_label, content, filename, type) => {
    const token = await open.token('media');
    const rows = await open.rows();
    const stored = await open.stored();
    const response = await upload(open.app, token, content, filename, type);
    expect(response.statusCode).toBe(415);
    expect(response.json()).toEqual(INVALID_REQUEST);
    expect(await open.rows()).toBe(rows);
    expect(await open.stored()).toEqual(stored);
  });

  it('201 for a PNG declared application/octet-stream with INDIEWEB_MEDIA_ALLOWED_TYPES=none', async () => {
    const response = await upload(open.app, await open.token('media'), randomPng(), 'x.png', 'application/octet-stream');
    expect(response.statusCode).toBe(201);
  });

  it('415 invalid_request for a PDF under the default allow-list', async () => {
    const stored = await strict.stored();
    const response = await upload(strict.app, await strict.token('media'), FILES.pdf, 'paper.pdf', 'application/pdf');
    expect(response.statusCode).toBe(415);
    expect(response.json()).toEqual(INVALID_REQUEST);
    expect(await strict.stored()).toEqual(stored);
  });

  it('201 for a PDF with INDIEWEB_MEDIA_ALLOWED_TYPES=none, stored as .pdf', async () => {
    const response = await upload(open.app, await open.token('media'), FILES.pdf, 'paper.pdf', 'application/pdf');
    expect(response.statusCode).toBe(201);
    expect(keyOf(response.headers.location as string)).toMatch(/\.pdf$/);
  });

  it('415 invalid_request for a GIF when INDIEWEB_MEDIA_ALLOWED_TYPES=image/png, nothing stored', async () => {
    const response = await upload(pngOnly.app, await pngOnly.token('media'), FILES.gif, 'anim.gif', 'image/gif');
    expect(response.statusCode).toBe(415);
    expect(response.json()).toEqual(INVALID_REQUEST);
    expect(await pngOnly.rows()).toBe(0);
    expect(await pngOnly.stored()).toEqual([]);
  });

  it('201 for a PNG when INDIEWEB_MEDIA_ALLOWED_TYPES=image/png', async () => {
    const response = await upload(pngOnly.app, await pngOnly.token('media'), randomPng(), 'x.png', 'image/png');
    expect(response.statusCode).toBe(201);
  });

  it('415 invalid_request for a large HTML file sent as image/png (refused from its first bytes)', async () => {
    const stored = await strict.stored();
    const response = await upload(strict.app, await strict.token('media'), padded(FILES.html, 200_000), 'page.png', 'image/png');
    expect(response.statusCode).toBe(415);
    expect(await strict.stored()).toEqual(stored);
  });
});

describe('POST /indieweb/media/ multipart encoding', () => {
  it('builds bodies the server parses (sanity check of the test encoder)', () => {
    const { body, contentType, fileOffsets } = multipart([{ name: 'a', value: '1' }, filePart(FILES.png)]);
    expect(contentType).toMatch(/^multipart\/form-data; boundary=/);
    expect(body.subarray(fileOffsets[0]!, fileOffsets[0]! + FILES.png.length).equals(FILES.png)).toBe(true);
  });
});

describe('/indieweb/media/ credentials beyond a missing or unknown token', () => {
  const requests = (t: MediaApp, token: string, url: string) => ({
    upload: () => upload(t.app, token, randomPng()),
    source: () => t.app.inject({ method: 'GET', url: `${MEDIA}?q=source`, headers: { authorization: `Bearer ${token}` } }),
    delete: () => mediaPostForm(t.app, token, { action: 'delete', url }),
  });

  it('401 authentication error for an expired token and for an inactive owner, on upload, listing and delete; nothing changes', async () => {
    const t = await standaloneMediaApp('local', null);
    try {
      const url = (await upload(t.app, await t.token('media'), randomPng())).headers.location as string;
      const rows = await t.rows();
      const expiring = await t.token('media');
      t.clock.advance(3601);
      for (const send of Object.values(requests(t, expiring, url))) {
        const response = await send();
        expect(response.statusCode).toBe(401);
        expect(response.body).toBe('authentication error');
      }
      const fresh = await t.token('media');
      await t.app.indieweb.users!.setActive('alice', false);
      for (const send of Object.values(requests(t, fresh, url))) expect((await send()).statusCode).toBe(401);
      expect(await t.rows()).toBe(rows);
    } finally {
      await t.close();
    }
  });

  it('403 invalid_client when INDIEWEB_ALLOWED_CLIENT_IDS does not list the token’s client, on upload, listing and delete', async () => {
    const t = await standaloneMediaApp('local', null, { INDIEWEB_ALLOWED_CLIENT_IDS: 'https://other-app.example/' });
    try {
      const token = await t.token('media');
      for (const send of Object.values(requests(t, token, 'http://indiestack.test/indieweb/media/x.png'))) {
        const response = await send();
        expect(response.statusCode).toBe(403);
        expect(response.body).toBe('invalid_client');
      }
      expect(await t.rows()).toBe(0);
    } finally {
      await t.close();
    }
  });
});

describe('/indieweb/media/ with an INDIEWEB_MICROPUB_URL_POLICY that cannot run', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'indiestack-media-policy-'));
  writeFileSync(path.join(dir, 'policy.mjs'), 'export const notAFunction = 42;\n');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each([
    ['cannot be imported', '/nonexistent/indiestack-policy.mjs'],
    ['is not callable', `${path.join(dir, 'policy.mjs')}#notAFunction`],
  ])('500 with an empty body for q=source&url= and action=delete when the policy %s; nothing is deleted', async (_label, specifier) => {
    const t = await standaloneMediaApp('local', null, { INDIEWEB_MICROPUB_URL_POLICY: specifier });
    try {
      const token = await t.token('media');
      const url = (await upload(t.app, token, randomPng())).headers.location as string;
      const metadata = await t.app.inject({
        method: 'GET',
        url: `${MEDIA}?q=source&url=${encodeURIComponent(url)}`,
        headers: { authorization: `Bearer ${token}` },
      });
      expect(metadata.statusCode).toBe(500);
      expect(metadata.body).toBe('');
      const deletion = await mediaPostForm(t.app, token, { action: 'delete', url });
      expect(deletion.statusCode).toBe(500);
      expect(deletion.body).toBe('');
      expect(await t.rows()).toBe(1);
    } finally {
      await t.close();
    }
  });
});
