/**
 * Sized copies of photos in an S3 bucket (issue 32 item 4), against a real
 * S3-compatible server (s3rver): indiestack answers
 * `{base}/indieweb/media/<name>?w=N` (a query on the bucket's URL would reach
 * the original), makes each copy once, puts it in the bucket at
 * `indieweb/variants/<name>/<w>.<ext>`, and deleting the photo deletes them.
 * Entry pages and the admin Media page give these photos a srcset too.
 * @see docs/media.md "Photos"
 */
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, addUser, buildAdminApp, csrfOf, getAdmin } from '../helpers/admin.js';
import { entriesApp, pathOf } from '../helpers/entries.js';
import {
  keyOf,
  type MediaApp,
  mediaPostForm,
  multipart,
  prepareBackend,
  type S3Fixture,
  standaloneMediaApp,
  startS3,
  upload,
} from '../helpers/media.js';
import { phonePhoto } from '../helpers/photos.js';

let s3: S3Fixture;
let t: MediaApp;
let token: string;
beforeAll(async () => {
  s3 = await startS3();
  t = await standaloneMediaApp('s3', s3);
  token = await t.token('media');
});
afterAll(async () => {
  await t?.close();
  await s3?.close();
});

/** Uploads a phone photo (stored upright: `height`×`width`) and tells its URL, key, and the path indiestack answers `?w=` at. */
async function uploadPhoto(width: number, height: number): Promise<{ url: string; key: string; path: string; name: string }> {
  const response = await upload(t.app, token, await phonePhoto(width, height), 'p.jpg', 'image/jpeg');
  expect(response.statusCode).toBe(201);
  const url = response.headers.location as string;
  const key = keyOf(url);
  return { url, key, path: `/${key}`, name: path.posix.basename(key) };
}

/** Objects written under a key in this app's bucket (s3rver's event log). */
function writesOf(key: string): number {
  return s3.events.filter((event) => event.bucket === t.backend.location && event.event.startsWith('ObjectCreated') && event.key === key)
    .length;
}

describe('sized copies of photos in an S3 bucket', () => {
  let photo: { url: string; key: string; path: string; name: string };
  beforeAll(async () => {
    // stored 1200×1600 turned a quarter: 1600×1200 upright
    photo = await uploadPhoto(1200, 1600);
  });

  it('the media URL is the bucket’s, and indiestack’s path without w redirects to it', async () => {
    expect(photo.url.startsWith(`${s3.endpoint}/${t.backend.location}/indieweb/media/`)).toBe(true);
    const response = await t.app.inject({ method: 'GET', url: photo.path });
    expect(response.statusCode).toBe(302);
    expect(response.headers.location).toBe(photo.url);
    expect((await t.app.inject({ method: 'GET', url: '/indieweb/media/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA.jpg?w=320' })).statusCode).toBe(404);
  });

  it.each([
    [320, 240],
    [640, 480],
    [1280, 960],
    [2048, 1200],
  ])('w=%i answers that width (never wider than the original) and stores the copy beside the original', async (w, height) => {
    const response = await t.app.inject({ method: 'GET', url: `${photo.path}?w=${w}`, headers: { accept: 'image/jpeg' } });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('image/jpeg');
    const meta = await sharp(response.rawPayload).metadata();
    expect([meta.width, meta.height]).toEqual([Math.min(w, 1600), height]);
    expect(meta.exif).toBeUndefined();
    expect(Number(response.headers['content-length'])).toBe(response.rawPayload.byteLength);
    const copyKey = `indieweb/variants/${photo.name}/${w}.jpg`;
    expect(await t.stored()).toContain(copyKey);
    // the second request is read from the bucket, not made again
    const again = await t.app.inject({ method: 'GET', url: `${photo.path}?w=${w}`, headers: { accept: 'image/jpeg' } });
    expect(again.statusCode).toBe(200);
    expect(Buffer.compare(again.rawPayload, response.rawPayload)).toBe(0);
    expect(Number(again.headers['content-length'])).toBe(again.rawPayload.byteLength);
    expect(writesOf(copyKey)).toBe(1);
  });

  it.each([
    ['image/avif,image/webp,image/apng,*/*;q=0.8', 'image/avif', 'heif', 'avif'],
    ['image/webp,*/*', 'image/webp', 'webp', 'webp'],
    ['image/jpeg', 'image/jpeg', 'jpeg', 'jpg'],
    ['*/*', 'image/jpeg', 'jpeg', 'jpg'],
  ])('Accept %s gets %s, with Vary, ETag, a long cache lifetime and the sandbox headers', async (accept, type, format, suffix) => {
    const response = await t.app.inject({ method: 'GET', url: `${photo.path}?w=640`, headers: { accept } });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe(type);
    expect(response.headers.vary).toMatch(/\bAccept\b/i);
    expect(response.headers.etag).toMatch(/^"[^"]+"$/);
    expect(response.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['content-security-policy']).toBe("default-src 'none'; sandbox");
    const meta = await sharp(response.rawPayload).metadata();
    expect(meta.format).toBe(format);
    expect(meta.width).toBe(640);
    expect(await t.stored()).toContain(`indieweb/variants/${photo.name}/640.${suffix}`);
  });

  it('answers 304 to If-None-Match with its ETag, and another format has another ETag', async () => {
    const first = await t.app.inject({ method: 'GET', url: `${photo.path}?w=320`, headers: { accept: 'image/webp' } });
    expect(first.statusCode).toBe(200);
    const again = await t.app.inject({
      method: 'GET',
      url: `${photo.path}?w=320`,
      headers: { accept: 'image/webp', 'if-none-match': `W/"x", ${first.headers.etag as string}` },
    });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect(again.headers.etag).toBe(first.headers.etag);
    expect(again.headers.vary).toMatch(/\bAccept\b/i);
    const other = await t.app.inject({ method: 'GET', url: `${photo.path}?w=320`, headers: { accept: 'image/jpeg' } });
    expect(other.headers.etag).not.toBe(first.headers.etag);
  });

  it.each(['100', '641', 'abc', '', '-320', '320.0', '0320'])('400 with the allowed widths for w=%s, and nothing is stored', async (w) => {
    const before = await t.stored();
    const response = await t.app.inject({ method: 'GET', url: `${photo.path}?w=${w}` });
    expect(response.statusCode).toBe(400);
    expect(response.json().error_description).toBe('w must be one of 320, 640, 1280, 2048');
    expect(await t.stored()).toEqual(before);
  });

  it('400 for two w parameters', async () => {
    const response = await t.app.inject({ method: 'GET', url: `${photo.path}?w=320&w=640` });
    expect(response.statusCode).toBe(400);
  });

  it('400 for w on a file that is not a photo, and nothing is stored for it', async () => {
    const mp3 = Buffer.concat([Buffer.from('ID3'), Buffer.from([3, 0, 0, 0, 0, 0, 0]), Buffer.from('fffb9064', 'hex'), Buffer.alloc(400)]);
    const sound = await upload(t.app, token, mp3, 'a.mp3', 'audio/mpeg');
    expect(sound.statusCode).toBe(201);
    const key = keyOf(sound.headers.location as string);
    const response = await t.app.inject({ method: 'GET', url: `/${key}?w=320` });
    expect(response.statusCode).toBe(400);
    expect(response.json().error_description).toMatch(/w is for photos/);
    expect((await t.stored()).filter((stored) => stored.includes(path.posix.basename(key)))).toEqual([key]);
  });

  it('concurrent first requests make one copy: one object written, every answer the same bytes', async () => {
    const fresh = await uploadPhoto(900, 700);
    const url = `${fresh.path}?w=640`;
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => t.app.inject({ method: 'GET', url, headers: { accept: 'image/webp' } })),
    );
    for (const answer of answers) {
      expect(answer.statusCode).toBe(200);
      expect(answer.headers['content-type']).toBe('image/webp');
    }
    expect(new Set(answers.map((answer) => answer.rawPayload.toString('base64'))).size).toBe(1);
    const copyKey = `indieweb/variants/${fresh.name}/640.webp`;
    expect(writesOf(copyKey)).toBe(1);
    expect((await t.stored()).filter((key) => key.startsWith(`indieweb/variants/${fresh.name}/`))).toEqual([copyKey]);
  });

  it('deleting the photo deletes its copies from the bucket; its path is 404 afterwards', async () => {
    const doomed = await uploadPhoto(800, 600);
    for (const [w, accept] of [
      [320, 'image/jpeg'],
      [640, 'image/webp'],
      [1280, 'image/avif'],
    ] as const) {
      expect((await t.app.inject({ method: 'GET', url: `${doomed.path}?w=${w}`, headers: { accept } })).statusCode).toBe(200);
    }
    const prefix = `indieweb/variants/${doomed.name}/`;
    expect((await t.stored()).filter((key) => key.startsWith(prefix))).toEqual([
      `${prefix}1280.avif`,
      `${prefix}320.jpg`,
      `${prefix}640.webp`,
    ]);

    const deleted = await mediaPostForm(t.app, token, { action: 'delete', url: doomed.url });
    expect(deleted.statusCode).toBe(204);
    const left = await t.stored();
    expect(left.filter((key) => key.startsWith(prefix) || key === doomed.key)).toEqual([]);
    // the other photos and their copies are untouched
    expect(left).toContain(photo.key);
    expect(left).toContain(`indieweb/variants/${photo.name}/320.jpg`);
    expect((await t.app.inject({ method: 'GET', url: `${doomed.path}?w=320` })).statusCode).toBe(404);
  });

  it('a photo whose original has gone from the bucket answers 404, and no copy is made', async () => {
    const gone = await uploadPhoto(400, 300);
    const { DeleteObjectCommand } = await import('@aws-sdk/client-s3');
    await s3.client.send(new DeleteObjectCommand({ Bucket: t.backend.location, Key: gone.key }));
    const response = await t.app.inject({ method: 'GET', url: `${gone.path}?w=320` });
    expect(response.statusCode).toBe(404);
    expect((await t.stored()).filter((key) => key.includes(gone.name))).toEqual([]);
  });

  it('a stored photo that cannot be decoded answers 415, and no copy is stored', async () => {
    const damaged = await uploadPhoto(400, 300);
    const { PutObjectCommand } = await import('@aws-sdk/client-s3');
    // the bytes of the object replaced by a JPEG start and noise
    const noise = Buffer.concat([Buffer.from('ffd8ffe000104a464946', 'hex'), Buffer.alloc(500, 7)]);
    await s3.client.send(new PutObjectCommand({ Bucket: t.backend.location, Key: damaged.key, Body: noise, ContentType: 'image/jpeg' }));
    const response = await t.app.inject({ method: 'GET', url: `${damaged.path}?w=320`, headers: { accept: 'image/webp' } });
    expect(response.statusCode).toBe(415);
    expect((await t.stored()).filter((key) => key.includes(damaged.name))).toEqual([damaged.key]);
  });

  it.each([
    '/indieweb/media/..%2F..%2Fetc%2Fpasswd?w=320',
    '/indieweb/media/short.jpg?w=320',
    '/indieweb/media/%00AAAAAAAAAAAAAAAAAAAA.jpg?w=640',
  ])('%s is 404, and nothing is written to the bucket', async (url) => {
    const before = s3.events.length;
    expect((await t.app.inject({ method: 'GET', url })).statusCode).toBe(404);
    expect(s3.events.length).toBe(before);
  });
});

describe('pages give photos in the bucket a srcset of indiestack’s copies', () => {
  it('an entry page and the home page: src is the bucket’s URL (what u-photo parses to), srcset is {base}/indieweb/media/<name>?w=N', async () => {
    const backend = await prepareBackend('s3', s3);
    const e = await entriesApp({ env: backend.env });
    try {
      const { body, contentType } = multipart([
        { name: 'file', filename: 'p.jpg', type: 'image/jpeg', content: await phonePhoto(1200, 900) },
      ]);
      const uploaded = await e.app.inject({
        method: 'POST',
        url: '/indieweb/media/',
        headers: { authorization: `Bearer ${await e.token()}`, 'content-type': contentType },
        payload: body,
      });
      expect(uploaded.statusCode).toBe(201);
      const photoUrl = uploaded.headers.location as string;
      expect(photoUrl.startsWith(`${s3.endpoint}/`)).toBe(true);
      const sized = `${e.config.baseUrl}/${keyOf(photoUrl)}`;
      const entryUrl = await e.create({
        name: ['In the bucket'],
        photo: [{ value: photoUrl, alt: 'A test photo' }, 'https://elsewhere.example/x.jpg'],
      });

      for (const page of [pathOf(entryUrl), '/alice/']) {
        const response = await e.get(page);
        expect(response.statusCode).toBe(200);
        const images = [...response.body.matchAll(/<img class="u-photo"[^>]*>/g)].map((match) => match[0]);
        expect(images[0]).toContain(`src="${photoUrl}"`);
        expect(images[0]).toContain(`srcset="${sized}?w=320 320w, ${sized}?w=640 640w, ${sized}?w=1280 1280w, ${sized}?w=2048 2048w"`);
        expect(images[0]).toContain('alt="A test photo"');
        expect(images.find((image) => image.includes('elsewhere.example'))).not.toContain('srcset');
      }
      const copy = await e.app.inject({ method: 'GET', url: `${pathOf(sized)}?w=640`, headers: { accept: 'image/webp' } });
      expect(copy.statusCode).toBe(200);
      expect(copy.headers['content-type']).toBe('image/webp');
      expect((await sharp(copy.rawPayload).metadata()).width).toBe(640);
    } finally {
      await e.close();
    }
  });

  it('the admin Media page shows a bucket photo through its 320 and 640 copies', async () => {
    const backend = await prepareBackend('s3', s3);
    const a = await buildAdminApp(backend.env);
    try {
      const { jar } = await addUser(a, 'alice');
      const csrf = csrfOf(await getAdmin(a, jar, '/media/'));
      const { body, contentType } = multipart([
        { name: '_csrf', value: csrf },
        { name: 'file', filename: 'phone.jpg', type: 'image/jpeg', content: await phonePhoto() },
      ]);
      const response = await a.app.inject({
        method: 'POST',
        url: `${ADMIN}/media/upload`,
        headers: { cookie: jar.header(), 'content-type': contentType },
        payload: body,
      });
      jar.storeFrom(response);
      expect(response.statusCode).toBe(303);
      const [file] = await a.app.indieweb.media.repository.listByUser((await a.app.indieweb.users!.findByName('alice'))!.id);
      const sized = `${a.config.baseUrl}/${file!.storageKey}`;
      expect(file!.url).not.toBe(sized);
      const page = await getAdmin(a, jar, '/media/');
      expect(page.body).toContain(
        `<img src="${file!.url}" srcset="${sized}?w=320 320w, ${sized}?w=640 640w" sizes="12rem" alt="" loading="lazy">`,
      );
      const copy = await a.app.inject({ method: 'GET', url: `${pathOf(sized)}?w=320`, headers: { accept: 'image/avif' } });
      expect(copy.statusCode).toBe(200);
      expect(copy.headers['content-type']).toBe('image/avif');
    } finally {
      await a.close();
    }
  });
});
