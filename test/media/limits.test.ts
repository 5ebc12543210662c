/**
 * Upload limits: per-file bytes, file count, total bytes, unknown size, the
 * value `none`, and that nothing is left stored after any 413, including
 * one that happens after part of the file already went to storage.
 * @see SPEC.md "Limits", "Errors" (413), "POST create" (Multipart)
 */
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MediaStorage } from '../../src/contracts/media-storage.js';
import {
  BACKENDS,
  filePart,
  FILES,
  INVALID_REQUEST,
  listen,
  type MediaApp,
  MEDIA,
  MICROPUB,
  mountedMediaApp,
  multipart,
  padded,
  type PartSpec,
  postMultipart,
  randomPng,
  rawRequest,
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

const MiB = 1024 * 1024;

function photos(count: number, size = 2000): PartSpec[] {
  return Array.from({ length: count }, (_, index) => ({
    name: 'photo',
    filename: `p${index}.png`,
    type: 'image/png',
    content: randomPng(size),
  }));
}

/** Multipart create on the Micropub endpoint. */
function createWithPhotos(t: MediaApp, token: string, files: readonly PartSpec[]) {
  return postMultipart(t.app, token, [{ name: 'h', value: 'entry' }, { name: 'content', value: 'with photos' }, ...files], MICROPUB);
}

async function entryCount(t: MediaApp): Promise<number> {
  const response = await t.app.inject({
    method: 'GET',
    url: `${MICROPUB}?q=source`,
    headers: { authorization: `Bearer ${await t.token('update')}` },
  });
  return (response.json() as { items: unknown[] }).items.length;
}

async function expectNothingStored(t: MediaApp): Promise<void> {
  expect(await t.rows()).toBe(0);
  expect(await t.stored()).toEqual([]);
}

describe.each(BACKENDS)('POST /indieweb/media/ limits (%s storage)', (backend) => {
  const apps: MediaApp[] = [];
  const app = async (env: Record<string, string>) => {
    const t = await standaloneMediaApp(backend, s3, env);
    apps.push(t);
    return t;
  };
  afterAll(async () => {
    await Promise.all(apps.map((t) => t.close()));
  });

  it('413 invalid_request for a file over INDIEWEB_MEDIA_MAX_UPLOAD_BYTES, nothing stored', async () => {
    const t = await app({ INDIEWEB_MEDIA_MAX_UPLOAD_BYTES: '1000' });
    const response = await upload(t.app, await t.token('media'), randomPng(1001));
    expect(response.statusCode).toBe(413);
    expect(response.json()).toEqual(INVALID_REQUEST);
    await expectNothingStored(t);
    expect((await upload(t.app, await t.token('media'), randomPng(1000))).statusCode).toBe(201);
  });

  it('413 invalid_request for a file over INDIEWEB_MEDIA_MAX_UPLOAD_BYTES that is larger than the sniffed head, nothing stored', async () => {
    const t = await app({ INDIEWEB_MEDIA_MAX_UPLOAD_BYTES: '5000' });
    const response = await upload(t.app, await t.token('media'), randomPng(64 * 1024));
    expect(response.statusCode).toBe(413);
    await expectNothingStored(t);
  });

  it('413 invalid_request for files over the limits sent before the token, nothing stored; within them, 201', async () => {
    const t = await app({ INDIEWEB_MEDIA_MAX_UPLOAD_BYTES: '5000', INDIEWEB_MEDIA_MAX_UPLOAD_COUNT: '2' });
    const late = async () => ({ name: 'access_token', value: await t.token('create media') });
    const tooLarge = await postMultipart(t.app, null, [filePart(randomPng(64 * 1024)), await late()]);
    expect(tooLarge.statusCode).toBe(413);
    expect(tooLarge.json()).toEqual(INVALID_REQUEST);
    const tooMany = await postMultipart(t.app, null, [{ name: 'h', value: 'entry' }, ...photos(3, 500), await late()], MICROPUB);
    expect(tooMany.statusCode).toBe(413);
    await expectNothingStored(t);
    expect(await entryCount(t)).toBe(0);
    const fine = await postMultipart(t.app, null, [{ name: 'h', value: 'entry' }, ...photos(2, 500), await late()], MICROPUB);
    expect(fine.statusCode).toBe(201);
    expect(await t.rows()).toBe(2);
  });

  it('201 for a file over the default 10 MiB when INDIEWEB_MEDIA_MAX_UPLOAD_BYTES=none', async () => {
    const t = await app({ INDIEWEB_MEDIA_MAX_UPLOAD_BYTES: 'none' });
    const content = randomPng(10 * MiB + 1);
    const response = await upload(t.app, await t.token('media'), content);
    expect(response.statusCode).toBe(201);
    expect(await t.rows()).toBe(1);
  });

  it('413 invalid_request for a Micropub create with 3 photos when INDIEWEB_MEDIA_MAX_UPLOAD_COUNT=2, nothing stored and no entry', async () => {
    const t = await app({ INDIEWEB_MEDIA_MAX_UPLOAD_COUNT: '2' });
    const response = await createWithPhotos(t, await t.token('create'), photos(3));
    expect(response.statusCode).toBe(413);
    expect(response.json()).toEqual(INVALID_REQUEST);
    await expectNothingStored(t);
    expect(await entryCount(t)).toBe(0);
    expect((await createWithPhotos(t, await t.token('create'), photos(2))).statusCode).toBe(201);
    expect(await t.rows()).toBe(2);
  });

  it('201 for a Micropub create with 11 photos when INDIEWEB_MEDIA_MAX_UPLOAD_COUNT=none (default is 10)', async () => {
    const t = await app({ INDIEWEB_MEDIA_MAX_UPLOAD_COUNT: 'none' });
    const response = await createWithPhotos(t, await t.token('create'), photos(11, 200));
    expect(response.statusCode).toBe(201);
    expect(await t.rows()).toBe(11);
  });

  it('413 invalid_request for a Micropub create over INDIEWEB_MEDIA_MAX_UPLOAD_TOTAL_BYTES (the first photo was stored), nothing left', async () => {
    const t = await app({ INDIEWEB_MEDIA_MAX_UPLOAD_TOTAL_BYTES: '3000' });
    const response = await createWithPhotos(t, await t.token('create'), photos(2, 2000));
    expect(response.statusCode).toBe(413);
    expect(response.json()).toEqual(INVALID_REQUEST);
    await expectNothingStored(t);
    expect(await entryCount(t)).toBe(0);
  });

  it('413 invalid_request for one media file over INDIEWEB_MEDIA_MAX_UPLOAD_TOTAL_BYTES with no per-file limit', async () => {
    const t = await app({ INDIEWEB_MEDIA_MAX_UPLOAD_TOTAL_BYTES: '3000', INDIEWEB_MEDIA_MAX_UPLOAD_BYTES: 'none' });
    const response = await upload(t.app, await t.token('media'), randomPng(3001));
    expect(response.statusCode).toBe(413);
    await expectNothingStored(t);
  });

  it('413 invalid_request for an upload of unknown size (chunked, no Content-Length), nothing stored', async () => {
    const t = await app({});
    const port = await listen(t.app);
    const { body, contentType } = multipart([filePart(randomPng())]);
    const response = await rawRequest(port, {
      path: MEDIA,
      headers: { 'content-type': contentType, authorization: `Bearer ${await t.token('media')}`, 'transfer-encoding': 'chunked' },
      write: (request) => {
        request.write(body.subarray(0, 100));
        request.end(body.subarray(100));
      },
    });
    expect(response.status).toBe(413);
    expect(JSON.parse(response.body)).toEqual(INVALID_REQUEST);
    await expectNothingStored(t);
  });

  it('201 for an upload of unknown size when INDIEWEB_MEDIA_MAX_UPLOAD_TOTAL_BYTES=none', async () => {
    const t = await app({ INDIEWEB_MEDIA_MAX_UPLOAD_TOTAL_BYTES: 'none' });
    const port = await listen(t.app);
    const content = randomPng(20_000);
    const { body, contentType } = multipart([filePart(content)]);
    const response = await rawRequest(port, {
      path: MEDIA,
      headers: { 'content-type': contentType, authorization: `Bearer ${await t.token('media')}`, 'transfer-encoding': 'chunked' },
      write: (request) => {
        request.write(body.subarray(0, 5000));
        request.end(body.subarray(5000));
      },
    });
    expect(response.status).toBe(201);
    expect(response.headers.location).toMatch(/^https?:\/\//);
    expect(await t.rows()).toBe(1);
  });
});

describe.each(BACKENDS)('POST /indieweb/media/ limit crossed mid-stream (%s storage)', (backend) => {
  let t: MediaApp;
  const consumed: number[] = [];
  const failures: unknown[] = [];
  beforeAll(async () => {
    // the storage sees how much of the file it received before the limit cut the stream
    const counting = (inner: MediaStorage): MediaStorage => ({
      ...inner,
      async save(key, content, mediaType) {
        const index = consumed.push(0) - 1;
        async function* count(): AsyncGenerator<Uint8Array> {
          for await (const chunk of content) {
            consumed[index]! += chunk.byteLength;
            yield chunk;
          }
        }
        try {
          return await inner.save(key, count(), mediaType);
        } catch (error) {
          failures.push(error);
          throw error;
        }
      },
    });
    t = await mountedMediaApp(backend, s3, { storage: counting, env: { INDIEWEB_MEDIA_MAX_UPLOAD_BYTES: String(6 * MiB) } });
  });
  afterAll(async () => {
    await t.close();
  });

  /**
   * Sends a 7 MiB video in 256 KiB pieces, so the storage gets (and writes) part of it before the 6 MiB limit is
   * crossed (a photo is spooled and cleaned before storage sees it: see photos.test.ts).
   */
  async function sendOverLimit() {
    const { body, contentType } = multipart([filePart(padded(FILES.mp4, 7 * MiB), 'clip.mp4', 'video/mp4')]);
    const pieces: Buffer[] = [];
    for (let offset = 0; offset < body.length; offset += 256 * 1024) pieces.push(body.subarray(offset, offset + 256 * 1024));
    return t.app.inject({
      method: 'POST',
      url: MEDIA,
      headers: { 'content-type': contentType, 'content-length': String(body.length), authorization: `Bearer ${await t.token('media')}` },
      payload: Readable.from(pieces),
    });
  }

  it('no object, partial file or row is left when the per-file limit is crossed after more than 5 MiB went to storage', async () => {
    consumed.length = 0;
    failures.length = 0;
    const response = await sendOverLimit();
    expect(response.statusCode).toBeGreaterThanOrEqual(400);
    expect(consumed).toHaveLength(1);
    expect(consumed[0]).toBeGreaterThan(5 * MiB);
    expect(failures).toHaveLength(1);
    await expectNothingStored(t);
  });

  it('413 invalid_request when the per-file limit is crossed after more than 5 MiB went to storage', async () => {
    const response = await sendOverLimit();
    expect(response.statusCode).toBe(413);
    expect(response.json()).toEqual(INVALID_REQUEST);
  });
});
