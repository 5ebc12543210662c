/**
 * Upload failures: a storage that fails mid-write (500, empty body, nothing
 * left) and a client that disconnects mid-upload (nothing left behind).
 * @see SPEC.md "Errors" (500), issue 5 "Failures"
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MediaStorage } from '../../src/contracts/media-storage.js';
import {
  BACKENDS,
  eventually,
  filePart,
  FILES,
  listen,
  type MediaApp,
  MEDIA,
  MICROPUB,
  mountedMediaApp,
  multipart,
  padded,
  postMultipart,
  randomPng,
  type S3Fixture,
  startS3,
  upload,
  writeChunk,
} from '../helpers/media.js';

let s3: S3Fixture;
beforeAll(async () => {
  s3 = await startS3();
});
afterAll(async () => {
  await s3.close();
});

const MiB = 1024 * 1024;

describe('POST /indieweb/media/ with a storage whose save() rejects', () => {
  let t: MediaApp;
  const consumed: number[] = [];
  beforeAll(async () => {
    const failing: MediaStorage = {
      async save(_key, content) {
        let bytes = 0;
        for await (const chunk of content) {
          bytes += chunk.byteLength;
          if (bytes >= 4096) break;
        }
        consumed.push(bytes);
        throw new Error('disk full (secret detail)');
      },
      async delete() {},
    };
    t = await mountedMediaApp('local', null, { storage: () => failing });
  });
  afterAll(async () => {
    await t.close();
  });

  it('500 with an empty body and no row in indieweb_media', async () => {
    const response = await upload(t.app, await t.token('media'), randomPng(20_000));
    expect(response.statusCode).toBe(500);
    expect(response.body).toBe('');
    expect(consumed.at(-1)).toBeGreaterThanOrEqual(4096);
    expect(await t.rows()).toBe(0);
  });

  it('500 with an empty body for a Micropub multipart create, and no entry and no row', async () => {
    const token = await t.token('create update');
    const response = await postMultipart(
      t.app,
      token,
      [
        { name: 'h', value: 'entry' },
        { name: 'content', value: 'x' },
        { name: 'photo', filename: 'a.png', type: 'image/png', content: randomPng(20_000) },
      ],
      MICROPUB,
    );
    expect(response.statusCode).toBe(500);
    expect(response.body).toBe('');
    expect(await t.rows()).toBe(0);
    const list = await t.app.inject({ method: 'GET', url: `${MICROPUB}?q=source`, headers: { authorization: `Bearer ${token}` } });
    expect(list.json()).toMatchObject({ items: [] });
  });
});

describe.each(BACKENDS)('POST /indieweb/media/ failures of the %s storage', (backend) => {
  let t: MediaApp;
  let breakAfter: number | null = null;
  const consumed: number[] = [];
  const rejected: unknown[] = [];
  beforeAll(async () => {
    // the real storage, fed through a counter that can break the write part-way
    const instrumented = (inner: MediaStorage): MediaStorage => ({
      ...inner,
      async save(key, content, mediaType) {
        const index = consumed.push(0) - 1;
        async function* feed(): AsyncGenerator<Uint8Array> {
          for await (const chunk of content) {
            consumed[index]! += chunk.byteLength;
            yield chunk;
            if (breakAfter !== null && consumed[index]! >= breakAfter) throw new Error('storage write failed');
          }
        }
        try {
          return await inner.save(key, feed(), mediaType);
        } catch (error) {
          rejected.push(error);
          throw error;
        }
      },
    });
    t = await mountedMediaApp(backend, s3, { storage: instrumented });
  });
  afterAll(async () => {
    await t.close();
  });

  it('500 with an empty body when the write fails part-way, and no object, partial file or row is left', async () => {
    breakAfter = 64 * 1024;
    consumed.length = 0;
    rejected.length = 0;
    const response = await upload(t.app, await t.token('media'), randomPng(512 * 1024));
    breakAfter = null;
    expect(response.statusCode).toBe(500);
    expect(response.body).toBe('');
    expect(consumed[0]).toBeGreaterThanOrEqual(64 * 1024);
    expect(rejected).toHaveLength(1);
    expect(await t.rows()).toBe(0);
    expect(await t.stored()).toEqual([]);
  });

  it('nothing is left (no file, no .partial file, no object, no row) when the client disconnects mid-upload, and the server goes on', async () => {
    consumed.length = 0;
    rejected.length = 0;
    const port = await listen(t.app);
    const size = 8 * MiB;
    // a video streams into storage as it arrives (a photo is spooled and cleaned first: see photos.test.ts)
    const { body, contentType } = multipart([filePart(padded(FILES.mp4, size), 'clip.mp4', 'video/mp4')]);
    const request = http.request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: MEDIA,
      agent: false,
      headers: { 'content-type': contentType, 'content-length': String(body.length), authorization: `Bearer ${await t.token('media')}` },
    });
    const outcome = new Promise<string>((resolve) => {
      request.on('error', (error) => resolve(`error ${error.message}`));
      request.on('response', (response) => resolve(`response ${response.statusCode}`));
      request.on('close', () => resolve('closed'));
    });
    // more than one 5 MiB S3 part, so the S3 storage has begun a multipart upload
    const sent = 6 * MiB;
    await writeChunk(request, body.subarray(0, sent));
    expect(await eventually(() => (consumed[0] ?? 0) > 5 * MiB + 256 * 1024, 5000)).toBe(true);
    if (backend === 'local') expect((await t.stored()).some((name) => name.endsWith('.partial'))).toBe(true);
    request.destroy();
    expect(await outcome).not.toMatch(/^response/);

    expect(await eventually(async () => rejected.length === 1 && (await t.stored()).length === 0 && (await t.rows()) === 0)).toBe(true);
    expect(consumed[0]).toBeLessThan(size);
    expect(await t.stored()).toEqual([]);
    expect(await t.rows()).toBe(0);

    const after = await upload(t.app, await t.token('media'), randomPng());
    expect(after.statusCode).toBe(201);
  });
});
