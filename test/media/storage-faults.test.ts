/**
 * Storage faults on upload: an S3 endpoint that refuses connections, never
 * answers, or stores but never answers; a full disk (a 256 KiB tmpfs, for
 * the storage and for the spool); a media directory that cannot be made (a
 * regular file in its place). Each upload answers SPEC.md's empty 500 within
 * bounded time, leaves no object, file or row, and uploads work again once
 * the fault is gone, without a restart.
 * @see SPEC.md "Errors" (Micropub and media: 500 when the storage backend fails on upload), issue 15 deliver 5
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { mkdir, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MediaStorage } from '../../src/contracts/media-storage.js';
import { type FaultyPeer, startFaultyPeer } from '../helpers/faults.js';
import {
  type MediaApp,
  mediaGet,
  MICROPUB,
  mountedMediaApp,
  postMultipart,
  randomPng,
  type S3Fixture,
  startS3,
  upload,
} from '../helpers/media.js';

const KiB = 1024;

/** The configured storage, with every rejection of save() kept for the test to look at. */
function recording(rejected: unknown[]): (inner: MediaStorage) => MediaStorage {
  return (inner) => ({
    save: (key, content, mediaType) =>
      inner.save(key, content, mediaType).catch((error: unknown) => {
        rejected.push(error);
        throw error;
      }),
    delete: (key) => inner.delete(key),
  });
}

/** A Micropub multipart create with one photo part. */
function createWithPhoto(t: MediaApp, token: string, photo: Buffer) {
  return postMultipart(
    t.app,
    token,
    [
      { name: 'h', value: 'entry' },
      { name: 'content', value: 'a photo' },
      { name: 'photo', filename: 'a.png', type: 'image/png', content: photo },
    ],
    MICROPUB,
  );
}

/** Entries the in-memory handler holds (q=source list). */
async function entries(t: MediaApp, token: string): Promise<unknown[]> {
  const list = await t.app.inject({ method: 'GET', url: `${MICROPUB}?q=source`, headers: { authorization: `Bearer ${token}` } });
  expect(list.statusCode).toBe(200);
  return list.json<{ items: unknown[] }>().items;
}

/** SPEC.md's answer to a storage failure: 500 with an empty body. */
function expectEmpty500(response: { statusCode: number; body: string }): void {
  expect(response.statusCode).toBe(500);
  expect(response.body).toBe('');
}

/** Neither a media row nor a stored object is left. */
async function expectNothingStored(t: MediaApp): Promise<void> {
  expect(await t.rows()).toBe(0);
  expect(await t.stored()).toEqual([]);
}

async function timed<T>(work: Promise<T>): Promise<{ result: T; ms: number }> {
  const started = performance.now();
  const result = await work;
  return { result, ms: performance.now() - started };
}

/** Every file below `dir` (relative paths), partial ones included. */
async function filesBelow(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)))
    .sort();
}

describe('POST /indieweb/media/ and Micropub create while the S3 endpoint fails (INDIEWEB_S3_TIMEOUT=1)', () => {
  let s3: S3Fixture;
  let peer: FaultyPeer;
  let t: MediaApp;
  const rejected: unknown[] = [];

  beforeAll(async () => {
    s3 = await startS3();
    // the app's endpoint is this port: nothing listens at first, later it is silent, swallows answers, then forwards to s3rver
    peer = await startFaultyPeer('refuse', { forwardTo: Number(new URL(s3.endpoint).port) });
    t = await mountedMediaApp('s3', s3, {
      env: { INDIEWEB_S3_ENDPOINT: peer.origin, INDIEWEB_S3_TIMEOUT: '1' },
      storage: recording(rejected),
    });
  });
  afterAll(async () => {
    await t.close();
    await peer.close();
    await s3.close();
  });

  it('500 with an empty body at once when the endpoint refuses connections, and no object or row', async () => {
    rejected.length = 0;
    const { result: response, ms } = await timed(upload(t.app, await t.token('media'), randomPng(20 * KiB)));
    expectEmpty500(response);
    expect(ms).toBeLessThan(5000);
    expect(rejected).toHaveLength(1);
    await expectNothingStored(t);
  });

  it('500 with an empty body for a Micropub create with a photo when the endpoint refuses connections, and no entry and no row', async () => {
    const token = await t.token('create update');
    const { result: response, ms } = await timed(createWithPhoto(t, token, randomPng(20 * KiB)));
    expectEmpty500(response);
    expect(ms).toBeLessThan(5000);
    expect(await entries(t, token)).toEqual([]);
    await expectNothingStored(t);
  });

  it('500 with an empty body within a few seconds when the endpoint accepts and never answers, no object or row, and other requests are answered meanwhile', async () => {
    await peer.setMode('silent');
    rejected.length = 0;
    const accepted = peer.accepted;
    const token = await t.token('media');
    const pending = timed(upload(t.app, token, randomPng(20 * KiB)));
    const other = await timed(mediaGet(t.app, token, { q: 'source' }));
    expect(other.result.statusCode).toBe(200);
    expect(other.ms).toBeLessThan(1000);
    const { result: response, ms } = await pending;
    expectEmpty500(response);
    // it waited for the silent endpoint (at least one timeout), and not for long
    expect(ms).toBeGreaterThanOrEqual(1000);
    expect(ms).toBeLessThan(15_000);
    expect(peer.accepted).toBeGreaterThan(accepted);
    expect(rejected).toHaveLength(1);
    await expectNothingStored(t);
  });

  it('500 with an empty body within a few seconds for a Micropub create with a photo when the endpoint never answers, and no entry and no row', async () => {
    await peer.setMode('silent');
    const token = await t.token('create update');
    const { result: response, ms } = await timed(createWithPhoto(t, token, randomPng(20 * KiB)));
    expectEmpty500(response);
    expect(ms).toBeLessThan(15_000);
    expect(await entries(t, token)).toEqual([]);
    await expectNothingStored(t);
  });

  it('500 with an empty body within a few seconds for an upload large enough for a multipart upload (6 MiB) when the endpoint never answers', async () => {
    await peer.setMode('silent');
    rejected.length = 0;
    const { result: response, ms } = await timed(upload(t.app, await t.token('media'), randomPng(6 * 1024 * KiB)));
    expectEmpty500(response);
    expect(ms).toBeLessThan(15_000);
    expect(rejected).toHaveLength(1);
    await expectNothingStored(t);
  });

  it('500 with an empty body when the endpoint stores the object but its answers never come back, and the object is removed again', async () => {
    await peer.setMode('swallow');
    rejected.length = 0;
    const { result: response, ms } = await timed(upload(t.app, await t.token('media'), randomPng(20 * KiB)));
    expectEmpty500(response);
    expect(ms).toBeLessThan(15_000);
    expect(rejected).toHaveLength(1);
    await expectNothingStored(t);
  });

  it('201 again once the endpoint answers, without a restart: a media upload and a Micropub create with a photo', async () => {
    await peer.setMode('forward');
    const response = await upload(t.app, await t.token('media'), randomPng(20 * KiB));
    expect(response.statusCode).toBe(201);
    expect(await t.rows()).toBe(1);
    expect(await t.stored()).toHaveLength(1);

    const token = await t.token('create update');
    const created = await createWithPhoto(t, token, randomPng(20 * KiB));
    expect(created.statusCode).toBe(201);
    expect(await entries(t, token)).toHaveLength(1);
    expect(await t.rows()).toBe(2);
    expect(await t.stored()).toHaveLength(2);
  });
});

/** A tmpfs mounted with `options`, when this process may mount one (root in a sandbox); otherwise why not. */
function mountTmpfs(options: string): { dir: string } | { reason: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'indiestack-tmpfs-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', dir], { stdio: 'pipe' });
    return { dir };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    return { reason: (error as Error).message.split('\n')[0] ?? 'mount failed' };
  }
}

function unmount(dir: string): void {
  try {
    execFileSync('umount', [dir], { stdio: 'pipe' });
  } catch {
    // something still holds a file open after a failed test: detach it anyway
    execFileSync('umount', ['-l', dir], { stdio: 'pipe' });
  }
  rmSync(dir, { recursive: true, force: true });
}

const small = mountTmpfs('size=256k');
const fullDisk = 'dir' in small ? small.dir : null;
const readOnly = fullDisk === null ? null : mountTmpfs('ro,size=64k');
const readOnlyDisk = readOnly !== null && 'dir' in readOnly ? readOnly.dir : null;
const skipReason = 'reason' in small ? ` (skipped: mounting a tmpfs is not permitted here: ${small.reason})` : '';

afterAll(() => {
  if (fullDisk !== null) unmount(fullDisk);
  if (readOnlyDisk !== null) unmount(readOnlyDisk);
});

describe('POST /indieweb/media/ on a full disk (local storage on a 256 KiB tmpfs)', () => {
  let t: MediaApp;
  const rejected: unknown[] = [];

  beforeAll(async () => {
    if (fullDisk === null) return;
    t = await mountedMediaApp('local', null, { env: { INDIEWEB_MEDIA_DIR: path.join(fullDisk, 'media') }, storage: recording(rejected) });
  });
  afterAll(async () => {
    await t?.close();
    if (fullDisk !== null) await rm(path.join(fullDisk, 'media'), { recursive: true, force: true });
  });

  it.skipIf(fullDisk === null)(
    `500 with an empty body when the disk fills part-way; no file, no .partial file, no row, the space is free again and a smaller upload works${skipReason}`,
    async () => {
      const dir = path.join(fullDisk!, 'media');
      const token = await t.token('media create update');
      const first = await upload(t.app, token, randomPng(16 * KiB));
      expect(first.statusCode).toBe(201);
      const stored = await filesBelow(dir);
      expect(stored).toHaveLength(1);
      const free = statfsSync(dir).bfree;

      const full = await upload(t.app, token, randomPng(512 * KiB));
      expect(full.statusCode).toBe(500);
      expect(full.body).toBe('');
      expect(rejected.map((error) => (error as NodeJS.ErrnoException).code)).toEqual(['ENOSPC']);
      expect(await filesBelow(dir)).toEqual(stored);
      expect(await t.rows()).toBe(1);
      // the partial file is closed as well as removed: its blocks are back
      expect(statfsSync(dir).bfree).toBe(free);

      const photo = await createWithPhoto(t, token, randomPng(512 * KiB));
      expect(photo.statusCode).toBe(500);
      expect(photo.body).toBe('');
      expect(await entries(t, token)).toEqual([]);
      expect(await filesBelow(dir)).toEqual(stored);
      expect(await t.rows()).toBe(1);

      const smaller = await upload(t.app, token, randomPng(64 * KiB));
      expect(smaller.statusCode).toBe(201);
      expect(await filesBelow(dir)).toHaveLength(2);
      expect(await t.rows()).toBe(2);
    },
  );
});

describe('POST /indieweb/media/ with the file spooled before the token is known, on a full temporary directory', () => {
  let t: MediaApp;

  beforeAll(async () => {
    if (fullDisk === null) return;
    t = await mountedMediaApp('local', null);
  });
  afterAll(async () => {
    await t?.close();
  });

  it.skipIf(fullDisk === null)(
    `500 with an empty body when the spool fills the disk; no spool directory, no file, no row, and the next upload works${skipReason}`,
    async () => {
      const spoolRoot = path.join(fullDisk!, 'tmp');
      await mkdir(spoolRoot);
      const token = await t.token('media');
      // the token comes as a field after the file, so the file is spooled to os.tmpdir() first
      const parts = (size: number) => [
        { name: 'file', filename: 'a.png', type: 'image/png', content: randomPng(size) },
        { name: 'access_token', value: token },
      ];
      const saved = process.env.TMPDIR;
      process.env.TMPDIR = spoolRoot;
      try {
        expect(os.tmpdir()).toBe(spoolRoot);
        const full = await postMultipart(t.app, null, parts(512 * KiB));
        expect(full.statusCode).toBe(500);
        expect(full.body).toBe('');
        expect(await readdir(spoolRoot)).toEqual([]);
        await expectNothingStored(t);

        const smaller = await postMultipart(t.app, null, parts(64 * KiB));
        expect(smaller.statusCode).toBe(201);
        expect(await readdir(spoolRoot)).toEqual([]);
        expect(await t.rows()).toBe(1);
      } finally {
        if (saved === undefined) delete process.env.TMPDIR;
        else process.env.TMPDIR = saved;
        await rm(spoolRoot, { recursive: true, force: true });
      }
    },
  );
});

describe('POST /indieweb/media/ when the media directory cannot be made (a regular file in its place)', () => {
  let t: MediaApp;
  let holder: string;
  let dir: string;
  const rejected: unknown[] = [];

  beforeAll(async () => {
    holder = mkdtempSync(path.join(os.tmpdir(), 'indiestack-not-a-dir-'));
    dir = path.join(holder, 'media');
    writeFileSync(dir, 'not a directory');
    t = await mountedMediaApp('local', null, { env: { INDIEWEB_MEDIA_DIR: dir }, storage: recording(rejected) });
  });
  afterAll(async () => {
    await t.close();
    rmSync(holder, { recursive: true, force: true });
  });

  it('500 with an empty body for every upload, nothing stored, the server keeps answering, and uploads work once the directory can be made', async () => {
    const token = await t.token('media create update');
    for (const send of [() => upload(t.app, token, randomPng(16 * KiB)), () => createWithPhoto(t, token, randomPng(16 * KiB))]) {
      const response = await send();
      expectEmpty500(response);
    }
    expect(rejected.map((error) => (error as NodeJS.ErrnoException).code)).toEqual(['ENOTDIR', 'ENOTDIR']);
    expect(readFileSync(dir, 'utf8')).toBe('not a directory');
    expect(await readdir(holder)).toEqual(['media']);
    expect(await t.rows()).toBe(0);
    expect(await entries(t, token)).toEqual([]);
    expect((await mediaGet(t.app, token, { q: 'source' })).statusCode).toBe(200);

    rmSync(dir);
    const response = await upload(t.app, token, randomPng(16 * KiB));
    expect(response.statusCode).toBe(201);
    expect(await filesBelow(dir)).toHaveLength(1);
    expect(await t.rows()).toBe(1);
  });
});

describe('POST /indieweb/media/ when the media directory is on a read-only filesystem', () => {
  let t: MediaApp;
  const rejected: unknown[] = [];

  beforeAll(async () => {
    if (readOnlyDisk === null) return;
    t = await mountedMediaApp('local', null, { env: { INDIEWEB_MEDIA_DIR: readOnlyDisk }, storage: recording(rejected) });
  });
  afterAll(async () => {
    await t?.close();
  });

  it.skipIf(readOnlyDisk === null)(
    `500 with an empty body, nothing written, no row, and the server keeps answering${skipReason}`,
    async () => {
      const token = await t.token('media create update');
      const response = await upload(t.app, token, randomPng(16 * KiB));
      expectEmpty500(response);
      // Node's recursive mkdir reports a read-only parent as ENOENT, not EROFS
      expect(rejected).toEqual([expect.objectContaining({ syscall: 'mkdir' })]);
      expect(await readdir(readOnlyDisk!)).toEqual([]);
      expect(await t.rows()).toBe(0);
      expect((await mediaGet(t.app, token, { q: 'source' })).statusCode).toBe(200);
    },
  );
});
