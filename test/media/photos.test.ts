/**
 * Photos that protect their owner (issue 32): metadata stripped and the photo
 * turned upright on upload (both storages), the original kept with
 * INDIEWEB_MEDIA_KEEP_METADATA=true, sized copies at `?w=N`, and hostile
 * images refused with a 4xx.
 * @see docs/media.md "Photos"
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, keyOf, type MediaApp, mediaPostForm, type S3Fixture, standaloneMediaApp, startS3, upload } from '../helpers/media.js';
import { animatedGif, bombPng, phonePhoto, SECRET_MAKER, SECRET_SERIAL, withTextChunk } from '../helpers/photos.js';

let s3: S3Fixture;
beforeAll(async () => {
  s3 = await startS3();
});
afterAll(async () => {
  await s3.close();
});

async function fetchStored(t: MediaApp, location: string): Promise<Buffer> {
  if (t.backend.kind === 's3') return Buffer.from(await (await fetch(location)).arrayBuffer());
  const served = await t.app.inject({ method: 'GET', url: new URL(location).pathname });
  expect(served.statusCode).toBe(200);
  return served.rawPayload;
}

/** The colour of one pixel of `image`, as [r, g, b]. */
async function pixel(image: Buffer, x: number, y: number): Promise<number[]> {
  const { data, info } = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const at = (y * info.width + x) * info.channels;
  return [data[at]!, data[at + 1]!, data[at + 2]!];
}

describe.each(BACKENDS)('uploaded photos lose their metadata (%s storage)', (backend) => {
  let t: MediaApp;
  let token: string;
  beforeAll(async () => {
    t = await standaloneMediaApp(backend, s3);
    token = await t.token('media');
  });
  afterAll(async () => {
    await t.close();
  });

  it('a phone photo with GPS, serial number and orientation 6 comes back upright, without EXIF or XMP, and no bigger', async () => {
    const sent = await phonePhoto();
    const before = await sharp(sent).metadata();
    expect(before.orientation).toBe(6);
    expect(before.exif).toBeDefined();
    expect(sent.includes(SECRET_SERIAL)).toBe(true);

    const response = await upload(t.app, token, sent, 'IMG_0001.jpg', 'image/jpeg');
    expect(response.statusCode).toBe(201);
    const stored = await fetchStored(t, response.headers.location as string);
    const after = await sharp(stored).metadata();
    expect(after.format).toBe('jpeg');
    expect(after.exif).toBeUndefined();
    expect(after.xmp).toBeUndefined();
    expect(after.iptc).toBeUndefined();
    expect(after.orientation).toBeUndefined();
    expect([after.width, after.height]).toEqual([400, 600]);
    for (const secret of [SECRET_MAKER, SECRET_SERIAL, 'Alice Secret', 'GPS']) expect(stored.includes(secret)).toBe(false);
    expect(stored.byteLength).toBeLessThanOrEqual(sent.byteLength);
    // turned a quarter clockwise: the red left half is now the top
    const [r1, , b1] = await pixel(stored, 200, 100);
    const [r2, , b2] = await pixel(stored, 200, 500);
    expect(r1).toBeGreaterThan(150);
    expect(b1).toBeLessThan(100);
    expect(b2).toBeGreaterThan(150);
    expect(r2).toBeLessThan(100);
  });

  it('a PNG loses its text chunks and keeps its pixels', async () => {
    const plain = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#c33' } })
      .png()
      .toBuffer();
    const sent = withTextChunk(plain, 'Comment', 'home: 51.5 N, 0.12 W');
    expect((await sharp(sent).metadata()).comments).toHaveLength(1);
    const response = await upload(t.app, token, sent, 'map.png', 'image/png');
    expect(response.statusCode).toBe(201);
    const stored = await fetchStored(t, response.headers.location as string);
    expect(stored.includes('51.5 N')).toBe(false);
    expect((await sharp(stored).metadata()).comments ?? []).toEqual([]);
    expect(await pixel(stored, 5, 5)).toEqual([0xcc, 0x33, 0x33]);
    expect(stored.byteLength).toBeLessThanOrEqual(sent.byteLength);
  });

  it('a photo without metadata is stored byte for byte', async () => {
    const sent = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#345' } })
      .jpeg()
      .toBuffer();
    const response = await upload(t.app, token, sent, 'plain.jpg', 'image/jpeg');
    expect(response.statusCode).toBe(201);
    expect(Buffer.compare(await fetchStored(t, response.headers.location as string), sent)).toBe(0);
  });
});

describe('INDIEWEB_MEDIA_KEEP_METADATA=true', () => {
  let t: MediaApp;
  afterAll(async () => {
    await t.close();
  });

  it('keeps the original bytes, metadata and all', async () => {
    t = await standaloneMediaApp('local', null, { INDIEWEB_MEDIA_KEEP_METADATA: 'true' });
    const sent = await phonePhoto();
    const response = await upload(t.app, await t.token('media'), sent, 'IMG_0002.jpg', 'image/jpeg');
    expect(response.statusCode).toBe(201);
    expect(Buffer.compare(await fetchStored(t, response.headers.location as string), sent)).toBe(0);
  });
});

describe('sized copies: GET {media URL}?w=N', () => {
  let t: MediaApp;
  let token: string;
  let photoPath: string;
  beforeAll(async () => {
    t = await standaloneMediaApp('local', null);
    token = await t.token('media');
    // stored 1200×1600 turned a quarter: 1600×1200 upright
    const response = await upload(t.app, token, await phonePhoto(1200, 1600), 'big.jpg', 'image/jpeg');
    expect(response.statusCode).toBe(201);
    photoPath = new URL(response.headers.location as string).pathname;
  });
  afterAll(async () => {
    await t.close();
  });

  it.each([
    ['image/avif,image/webp,image/apng,*/*;q=0.8', 'image/avif', 'heif'],
    ['image/webp,*/*', 'image/webp', 'webp'],
    ['image/jpeg', 'image/jpeg', 'jpeg'],
    ['*/*', 'image/jpeg', 'jpeg'],
  ])('Accept %s gets %s at the asked width, with Vary, ETag and a long cache lifetime', async (accept, type, format) => {
    const response = await t.app.inject({ method: 'GET', url: `${photoPath}?w=640`, headers: { accept } });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe(type);
    expect(response.headers.vary).toMatch(/\bAccept\b/i);
    expect(response.headers.etag).toMatch(/^"[^"]+"$/);
    expect(response.headers['cache-control']).toMatch(/max-age=31536000/);
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    const meta = await sharp(response.rawPayload).metadata();
    expect(meta.format).toBe(format);
    expect(meta.width).toBe(640);
    expect(meta.height).toBe(480);
    expect(meta.exif).toBeUndefined();
  });

  it('answers 304 to If-None-Match with its ETag', async () => {
    const first = await t.app.inject({ method: 'GET', url: `${photoPath}?w=320`, headers: { accept: 'image/webp' } });
    const again = await t.app.inject({
      method: 'GET',
      url: `${photoPath}?w=320`,
      headers: { accept: 'image/webp', 'if-none-match': first.headers.etag as string },
    });
    expect(again.statusCode).toBe(304);
    const other = await t.app.inject({ method: 'GET', url: `${photoPath}?w=320`, headers: { accept: 'image/jpeg' } });
    expect(other.headers.etag).not.toBe(first.headers.etag);
  });

  it('is never wider than the original: w=2048 of a 1600-wide photo is 1600 wide', async () => {
    const response = await t.app.inject({ method: 'GET', url: `${photoPath}?w=2048`, headers: { accept: 'image/jpeg' } });
    expect(response.statusCode).toBe(200);
    expect((await sharp(response.rawPayload).metadata()).width).toBe(1600);
  });

  it.each(['100', '641', 'abc', '', '-320', '320.0', '0320'])('400 with the allowed widths for w=%s', async (w) => {
    const response = await t.app.inject({ method: 'GET', url: `${photoPath}?w=${w}` });
    expect(response.statusCode).toBe(400);
    expect(response.json().error_description).toBe('w must be one of 320, 640, 1280, 2048');
  });

  it('400 for two w parameters, and for w on a file that is not a photo', async () => {
    expect((await t.app.inject({ method: 'GET', url: `${photoPath}?w=320&w=640` })).statusCode).toBe(400);
    const mp3 = Buffer.concat([Buffer.from('ID3'), Buffer.from([3, 0, 0, 0, 0, 0, 0]), Buffer.from('fffb9064', 'hex'), Buffer.alloc(400)]);
    const sound = await upload(t.app, token, mp3, 'a.mp3', 'audio/mpeg');
    expect(sound.statusCode).toBe(201);
    const response = await t.app.inject({ method: 'GET', url: `${new URL(sound.headers.location as string).pathname}?w=320` });
    expect(response.statusCode).toBe(400);
    expect(response.json().error_description).toMatch(/w is for photos/);
  });

  it('concurrent first requests leave one copy on disk, stored beside the original, and deleting the photo deletes its copies', async () => {
    const response = await upload(t.app, token, await phonePhoto(900, 700), 'c.jpg', 'image/jpeg');
    const location = response.headers.location as string;
    const url = `${new URL(location).pathname}?w=1280`;
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => t.app.inject({ method: 'GET', url, headers: { accept: 'image/webp' } })),
    );
    for (const answer of answers) expect(answer.statusCode).toBe(200);
    expect(new Set(answers.map((answer) => answer.rawPayload.toString('base64'))).size).toBe(1);
    const name = path.basename(keyOf(location));
    const variantDir = path.join(t.backend.location, 'indieweb', 'variants', name);
    expect(await readdir(variantDir)).toEqual(['1280.webp']);

    const deleted = await mediaPostForm(t.app, token, { action: 'delete', url: location });
    expect(deleted.statusCode).toBe(204);
    expect(await readdir(variantDir).catch(() => 'gone')).toBe('gone');
    expect((await t.app.inject({ method: 'GET', url })).statusCode).toBe(404);
  });
});

describe('hostile images', () => {
  let t: MediaApp;
  let token: string;
  beforeAll(async () => {
    t = await standaloneMediaApp('local', null);
    token = await t.token('media');
  });
  afterAll(async () => {
    await t.close();
  });

  it('413 for a decompression bomb (a tiny PNG that claims 30000×30000 pixels), and nothing is stored', async () => {
    const response = await upload(t.app, token, await bombPng(30000, 30000), 'bomb.png', 'image/png');
    expect(response.statusCode).toBe(413);
    expect(response.json().error_description).toMatch(/image too large: 30000×30000 pixels/);
    expect(await t.rows()).toBe(0);
  });

  it('413 for an animated GIF of 2000 frames', async () => {
    const response = await upload(t.app, token, await animatedGif(2000), 'many.gif', 'image/gif');
    expect(response.statusCode).toBe(413);
    expect(response.json().error_description).toMatch(/too many frames: 2000/);
  });

  it('a truncated phone photo is refused (415) or stored without its metadata, never a 500', async () => {
    const whole = await phonePhoto();
    const response = await upload(t.app, token, whole.subarray(0, Math.floor(whole.length / 2)), 'cut.jpg', 'image/jpeg');
    expect([201, 415]).toContain(response.statusCode);
    if (response.statusCode === 201)
      expect((await fetchStored(t, response.headers.location as string)).includes(SECRET_SERIAL)).toBe(false);
    else expect(response.json().error_description).toMatch(/could not be decoded/);
  });

  it.each([
    [
      'a CMYK JPEG',
      () =>
        phonePhoto().then((photo) =>
          sharp(photo)
            .toColourspace('cmyk')
            .withExif({ IFD2: { BodySerialNumber: SECRET_SERIAL } })
            .jpeg()
            .toBuffer(),
        ),
      'image/jpeg',
      'x.jpg',
    ],
    [
      'a 16-bit PNG',
      () =>
        sharp({ create: { width: 50, height: 40, channels: 3, background: '#8a4' } })
          .toColourspace('rgb16')
          .withExif({ IFD2: { BodySerialNumber: SECRET_SERIAL } })
          .png()
          .toBuffer(),
      'image/png',
      'x.png',
    ],
  ])('%s is stored without metadata and has sizes', async (_label, make, type, name) => {
    const response = await upload(t.app, token, await make(), name, type);
    expect(response.statusCode).toBe(201);
    const location = response.headers.location as string;
    expect((await fetchStored(t, location)).includes(SECRET_SERIAL)).toBe(false);
    const sized = await t.app.inject({ method: 'GET', url: `${new URL(location).pathname}?w=320`, headers: { accept: 'image/jpeg' } });
    expect(sized.statusCode).toBe(200);
    expect((await sharp(sized.rawPayload).metadata()).width).toBeLessThanOrEqual(320);
  });
});
