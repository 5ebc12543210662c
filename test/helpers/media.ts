/**
 * Media test helpers: generated files (checked with file-type here), a
 * hand-built multipart encoder, an s3rver on loopback with a fresh bucket per
 * app, apps (standalone or mounted) on either storage backend, and raw HTTP
 * over loopback for chunked and aborted uploads.
 * @module
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { CreateBucketCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import Fastify, { type FastifyInstance, type LightMyRequestResponse } from 'fastify';
import { fileTypeFromBuffer } from 'file-type';
import { sql } from 'kysely';
import type { Config } from '../../src/config/config.js';
import { loadConfig } from '../../src/config/env.js';
import type { HostUser } from '../../src/contracts/accounts.js';
import type { MediaStorage } from '../../src/contracts/media-storage.js';
import type { MicropubHandler } from '../../src/contracts/micropub-handler.js';
import type { UrlPolicy } from '../../src/contracts/policies.js';
import { createManualClock } from '../../src/core/clock.js';
import { indieweb } from '../../src/app/plugin.js';
import { createLocalStorage } from '../../src/media/fs-storage.js';
import { createS3Storage } from '../../src/media/s3-storage.js';
import { profileUrlKey } from '../../src/core/url.js';
import type { DatabaseHandle } from '../../src/storage/connect.js';
import { createUsersRepository } from '../../src/storage/repositories/users.js';
import { CLIENT_ID } from './indieauth.js';
import { INVALID_REQUEST } from './micropub.js';
import { buildTestApp, TEST_SECRET } from './app.js';
import { openTestDatabase } from './databases.js';

export const BASE_URL = 'http://indiestack.test';
export const MEDIA = '/indieweb/media/';
export const MICROPUB = '/indieweb/micropub/';
export { INVALID_REQUEST };
export const NOT_IMPLEMENTED = { error: 'not_implemented' };

export type Backend = 'local' | 's3';
export const BACKENDS: readonly Backend[] = ['local', 's3'];

// ---------------------------------------------------------------- files

const PNG_1X1 = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a3d4b1a50000000049454e44ae426082',
  'hex',
);

function webp(): Buffer {
  const body = Buffer.concat([Buffer.from('WEBPVP8 '), Buffer.from([0x18, 0, 0, 0]), Buffer.alloc(24)]);
  const size = Buffer.alloc(4);
  size.writeUInt32LE(body.length);
  return Buffer.concat([Buffer.from('RIFF'), size, body]);
}

/** Generated files; the binary ones are checked against file-type below. */
export const FILES = {
  png: PNG_1X1,
  jpeg: Buffer.concat([Buffer.from('ffd8ffe000104a46494600010100000100010000', 'hex'), Buffer.alloc(200), Buffer.from('ffd9', 'hex')]),
  gif: Buffer.concat([
    Buffer.from('GIF89a'),
    Buffer.from('0100010080000000000000ffffff21f90401000000002c00000000010001000002024401003b', 'hex'),
  ]),
  webp: webp(),
  mp3: Buffer.concat([Buffer.from('ID3'), Buffer.from([3, 0, 0, 0, 0, 0, 0]), Buffer.from('fffb9064', 'hex'), Buffer.alloc(400)]),
  mp4: Buffer.concat([
    Buffer.from([0, 0, 0, 0x18]),
    Buffer.from('ftypisom'),
    Buffer.from([0, 0, 2, 0]),
    Buffer.from('isomiso2'),
    Buffer.from([0, 0, 0, 8]),
    Buffer.from('free'),
    Buffer.alloc(200),
  ]),
  pdf: Buffer.from('%PDF-1.4\n%\u00e2\u00e3\u00cf\u00d3\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n', 'latin1'),
  html: Buffer.from('<!DOCTYPE html><html><body><script>alert(document.cookie)</script></body></html>'),
  svg: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"><script>alert(1)</script></svg>'),
} as const;

/** What file-type must make of each generated binary file. */
export const SNIFFED: Readonly<Record<'png' | 'jpeg' | 'gif' | 'webp' | 'mp3' | 'mp4' | 'pdf', { mime: string; ext: string }>> = {
  png: { mime: 'image/png', ext: 'png' },
  jpeg: { mime: 'image/jpeg', ext: 'jpg' },
  gif: { mime: 'image/gif', ext: 'gif' },
  webp: { mime: 'image/webp', ext: 'webp' },
  mp3: { mime: 'audio/mpeg', ext: 'mp3' },
  mp4: { mime: 'video/mp4', ext: 'mp4' },
  pdf: { mime: 'application/pdf', ext: 'pdf' },
};

for (const [name, expected] of Object.entries(SNIFFED)) {
  const detected = await fileTypeFromBuffer(FILES[name as keyof typeof SNIFFED]);
  if (detected?.mime !== expected.mime || detected.ext !== expected.ext) {
    throw new Error(`generated ${name} is sniffed as ${JSON.stringify(detected)}, not ${JSON.stringify(expected)}`);
  }
}
for (const name of ['html', 'svg'] as const) {
  const detected = await fileTypeFromBuffer(FILES[name]);
  if (detected !== undefined && !/xml|html|svg/.test(detected.mime)) throw new Error(`generated ${name} is sniffed as ${detected.mime}`);
}

/** A file padded with zeros (after its own bytes) to `size` bytes; still sniffed as the same type. */
export function padded(file: Uint8Array, size: number): Buffer {
  if (size < file.byteLength) throw new Error('padding cannot shrink a file');
  return Buffer.concat([file, Buffer.alloc(size - file.byteLength)]);
}

/** A PNG of `size` bytes whose tail is random, so stored copies can be told apart. */
export function randomPng(size = 2048): Buffer {
  return Buffer.concat([PNG_1X1, randomBytes(Math.max(0, size - PNG_1X1.length))]);
}

// ---------------------------------------------------------------- multipart

export type PartSpec =
  | { readonly name: string; readonly value: string }
  | { readonly name: string; readonly filename: string; readonly type?: string; readonly content: Uint8Array };

export interface MultipartBody {
  readonly body: Buffer;
  readonly contentType: string;
  /** Bytes of the body before the content of each file part, in order (for writing a body in pieces). */
  readonly fileOffsets: readonly number[];
}

/** multipart/form-data built by hand: one Content-Disposition per part, a Content-Type per file part. */
export function multipart(parts: readonly PartSpec[]): MultipartBody {
  const boundary = `----indiestack-test-${randomBytes(12).toString('hex')}`;
  const chunks: Buffer[] = [];
  const fileOffsets: number[] = [];
  let length = 0;
  const add = (chunk: Buffer) => {
    chunks.push(chunk);
    length += chunk.length;
  };
  for (const part of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"`;
    if ('filename' in part) {
      head += `; filename="${part.filename}"\r\n`;
      if (part.type !== undefined) head += `Content-Type: ${part.type}\r\n`;
      head += '\r\n';
      add(Buffer.from(head, 'utf8'));
      fileOffsets.push(length);
      add(Buffer.from(part.content));
    } else {
      add(Buffer.from(`${head}\r\n\r\n${part.value}`, 'utf8'));
    }
    add(Buffer.from('\r\n'));
  }
  add(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}`, fileOffsets };
}

/** The single `file` part of a media upload. */
export function filePart(content: Uint8Array, filename = 'upload.png', type: string | undefined = 'image/png'): PartSpec {
  return type === undefined ? { name: 'file', filename, content } : { name: 'file', filename, type, content };
}

// ---------------------------------------------------------------- S3

/** s3rver ships no types; this is the part of it the tests use. */
interface S3rverInstance {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
  on(event: 'event', listener: (event: S3rverEvent) => void): unknown;
}
/** The S3 event notification s3rver emits for each write and delete. */
interface S3rverEvent {
  Records: { eventName: string; s3: { bucket: { name: string }; object: { key: string } } }[];
}
type S3rverConstructor = new (options: {
  port: number;
  address: string;
  silent: boolean;
  directory: string;
  configureBuckets: { name: string; configs: string[] }[];
}) => S3rverInstance;

export interface S3Fixture {
  /** `http://127.0.0.1:PORT` */
  readonly endpoint: string;
  readonly client: S3Client;
  /** A fresh empty bucket, so each app can tell its own objects. */
  newBucket(): Promise<string>;
  /** Every object write (`ObjectCreated:Put`, …) and delete so far, in order, as `{ bucket, event, key }`. */
  readonly events: readonly { readonly bucket: string; readonly event: string; readonly key: string }[];
  close(): Promise<void>;
}

let bucketCounter = 0;

/** A real S3-compatible server (s3rver) on loopback, with a bucket named `media`. */
export async function startS3(): Promise<S3Fixture> {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'indiestack-s3rver-'));
  const S3rver = createRequire(import.meta.url)('s3rver') as S3rverConstructor;
  const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory, configureBuckets: [{ name: 'media', configs: [] }] });
  const events: { bucket: string; event: string; key: string }[] = [];
  server.on('event', (event) => {
    for (const record of event.Records)
      events.push({ bucket: record.s3.bucket.name, event: record.eventName, key: decodeURIComponent(record.s3.object.key) });
  });
  const address = await server.run();
  const endpoint = `http://127.0.0.1:${address.port}`;
  const client = new S3Client({
    region: 'us-east-1',
    endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  return {
    endpoint,
    client,
    events,
    async newBucket() {
      const name = `media-${process.pid}-${bucketCounter++}`;
      await client.send(new CreateBucketCommand({ Bucket: name }));
      return name;
    },
    async close() {
      client.destroy();
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

// ---------------------------------------------------------------- backends

export interface MediaBackend {
  readonly kind: Backend;
  /** INDIEWEB_* settings selecting this storage. */
  readonly env: Readonly<Record<string, string>>;
  /** Directory of the local storage, or the bucket of the S3 storage. */
  readonly location: string;
  /** Every stored file (relative path) or object (key), partial ones included. */
  stored(): Promise<string[]>;
  dispose(): Promise<void>;
}

async function listFiles(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'))
    .sort();
}

export async function prepareBackend(kind: Backend, s3: S3Fixture | null): Promise<MediaBackend> {
  if (kind === 'local') {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'indiestack-media-'));
    return {
      kind,
      env: { INDIEWEB_MEDIA_STORAGE: 'local', INDIEWEB_MEDIA_DIR: dir },
      location: dir,
      stored: () => listFiles(dir),
      dispose: () => rm(dir, { recursive: true, force: true }),
    };
  }
  if (s3 === null) throw new Error('the s3 backend needs startS3()');
  const bucket = await s3.newBucket();
  return {
    kind,
    env: {
      INDIEWEB_MEDIA_STORAGE: 's3',
      INDIEWEB_S3_BUCKET: bucket,
      INDIEWEB_S3_ENDPOINT: s3.endpoint,
      INDIEWEB_S3_FORCE_PATH_STYLE: 'true',
      INDIEWEB_S3_REGION: 'us-east-1',
      INDIEWEB_S3_ACCESS_KEY_ID: 'S3RVER',
      INDIEWEB_S3_SECRET_ACCESS_KEY: 'S3RVER',
    },
    location: bucket,
    async stored() {
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const page = await s3.client.send(
          new ListObjectsV2Command({ Bucket: bucket, ...(token === undefined ? {} : { ContinuationToken: token }) }),
        );
        for (const object of page.Contents ?? []) if (object.Key !== undefined) keys.push(object.Key);
        token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
      } while (token !== undefined);
      return keys.sort();
    },
    dispose: async () => {},
  };
}

/** The storage a config names, built the way the plugin builds it (for wrapping in tests). */
export function configuredStorage(config: Config): MediaStorage {
  const storage = config.media.storage;
  if (storage.kind === 's3') return createS3Storage(storage);
  return createLocalStorage({ dir: config.media.dir, baseUrl: config.baseUrl });
}

// ---------------------------------------------------------------- apps

export interface MediaApp {
  readonly app: FastifyInstance;
  readonly database: DatabaseHandle;
  readonly config: Config;
  readonly clock: ReturnType<typeof createManualClock>;
  readonly backend: MediaBackend;
  /** alice */
  readonly user: HostUser;
  /** A token of alice's (or of `user`) with exactly this scope. */
  token(scope?: string, user?: HostUser): Promise<string>;
  /** Adds another user. */
  addUser(name: string): Promise<HostUser>;
  /** Rows in indieweb_media. */
  rows(): Promise<number>;
  stored(): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * Adds a user straight through the repository (as test/helpers/micropub.ts
 * does): no password hashing, since these tests never sign in.
 */
async function insertUser(app: FastifyInstance, database: DatabaseHandle, name: string): Promise<HostUser> {
  const me = `https://${name}.example/`;
  await createUsersRepository(database.db).insert({
    id: randomUUID(),
    name,
    passwordHash: 'not-used',
    profileUrls: [{ url: me, key: profileUrlKey(me)! }],
    now: new Date().toISOString(),
  });
  return (await app.indieweb.users!.findByName(name))!;
}

function finish(parts: {
  app: FastifyInstance;
  database: DatabaseHandle;
  config: Config;
  clock: ReturnType<typeof createManualClock>;
  backend: MediaBackend;
  user: HostUser;
  close: () => Promise<void>;
}): MediaApp {
  const { app, database, backend } = parts;
  return {
    ...parts,
    async token(scope = 'media create', user = parts.user) {
      const { token } = await app.indieweb.tokens.issue({ userId: user.id, clientId: CLIENT_ID, me: user.me[0]!, scope, expiresIn: 3600 });
      return token;
    },
    addUser: (name) => insertUser(app, database, name),
    async rows() {
      const result = await sql<{ n: number | string }>`select count(*) as n from indieweb_media`.execute(database.db);
      return Number(result.rows[0]?.n);
    },
    stored: () => backend.stored(),
    async close() {
      await parts.close();
      await backend.dispose();
    },
  };
}

/** The standalone server (buildTestApp) with alice, on the backend. */
export async function standaloneMediaApp(kind: Backend, s3: S3Fixture | null, env: Record<string, string> = {}): Promise<MediaApp> {
  const backend = await prepareBackend(kind, s3);
  const t = await buildTestApp({ env: { ...backend.env, ...env } });
  const user = await insertUser(t.app, t.database, 'alice');
  return finish({ app: t.app, database: t.database, config: t.config, clock: t.clock, backend, user, close: () => t.close() });
}

export interface MountedMediaOptions {
  /** Without it: the built-in in-memory handler with its media hooks. */
  readonly handler?: MicropubHandler;
  /** Wraps (or replaces) the storage the config names. */
  readonly storage?: (configured: MediaStorage) => MediaStorage;
  readonly urlPolicy?: UrlPolicy;
  readonly env?: Record<string, string>;
}

/** The plugin registered on a bare Fastify with `{ database, config, secret, handler, storage, urlPolicy }`. */
export async function mountedMediaApp(kind: Backend, s3: S3Fixture | null, options: MountedMediaOptions = {}): Promise<MediaApp> {
  const backend = await prepareBackend(kind, s3);
  const database = await openTestDatabase('sqlite');
  const config = loadConfig({ env: { INDIEWEB_BASE_URL: BASE_URL, ...backend.env, ...options.env } });
  const clock = createManualClock(new Date());
  const app = Fastify();
  await app.register(indieweb, {
    database,
    config,
    secret: TEST_SECRET,
    clock,
    ...(options.handler === undefined ? {} : { handler: options.handler }),
    ...(options.storage === undefined ? {} : { storage: options.storage(configuredStorage(config)) }),
    ...(options.urlPolicy === undefined ? {} : { urlPolicy: options.urlPolicy }),
  });
  await app.ready();
  const user = await insertUser(app, database, 'alice');
  return finish({
    app,
    database,
    config,
    clock,
    backend,
    user,
    close: async () => {
      await app.close();
      await database.dispose();
    },
  });
}

// ---------------------------------------------------------------- requests

function bearer(token: string | null): Record<string, string> {
  return token === null ? {} : { authorization: `Bearer ${token}` };
}

/** POST multipart parts to a path (the media endpoint by default) through inject. */
export function postMultipart(
  app: FastifyInstance,
  token: string | null,
  parts: readonly PartSpec[],
  url = MEDIA,
): Promise<LightMyRequestResponse> {
  const { body, contentType } = multipart(parts);
  return app.inject({ method: 'POST', url, headers: { 'content-type': contentType, ...bearer(token) }, payload: body });
}

/** Uploads one file to the media endpoint. */
export function upload(
  app: FastifyInstance,
  token: string | null,
  content: Uint8Array,
  filename = 'upload.png',
  type: string | undefined = 'image/png',
): Promise<LightMyRequestResponse> {
  return postMultipart(app, token, [filePart(content, filename, type)]);
}

/** GET /indieweb/media/ with a query. */
export function mediaGet(app: FastifyInstance, token: string | null, query: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  const search = new URLSearchParams(query).toString();
  return app.inject({ method: 'GET', url: `${MEDIA}${search === '' ? '' : `?${search}`}`, headers: bearer(token) });
}

/** POST a form body to the media endpoint. */
export function mediaPostForm(app: FastifyInstance, token: string | null, fields: Record<string, string>): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url: MEDIA,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...bearer(token) },
    payload: new URLSearchParams(fields).toString(),
  });
}

/** Waits until `check` holds (polling), up to `timeoutMs`; returns its last verdict. */
export async function eventually(check: () => Promise<boolean> | boolean, timeoutMs = 2000, intervalMs = 25): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Listens on an ephemeral loopback port (once per app) and returns the port. */
export async function listen(app: FastifyInstance): Promise<number> {
  const existing = app.server.address();
  if (existing !== null && typeof existing === 'object') return existing.port;
  await app.listen({ port: 0, host: '127.0.0.1' });
  return (app.server.address() as AddressInfo).port;
}

export interface RawResponse {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

/**
 * A real HTTP request over loopback. `write` gets the request stream and
 * decides how the body goes out (all at once, chunked, in pieces); it must
 * end it. Without a content-length header Node sends the body chunked.
 */
export function rawRequest(
  port: number,
  options: {
    method?: string;
    path: string;
    headers: http.OutgoingHttpHeaders;
    write: (request: http.ClientRequest) => Promise<void> | void;
  },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      { host: '127.0.0.1', port, method: options.method ?? 'POST', path: options.path, headers: options.headers, agent: false },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    Promise.resolve(options.write(request)).catch(reject);
  });
}

/** Writes `chunk` and resolves once it is flushed to the socket. */
export function writeChunk(request: http.ClientRequest, chunk: Uint8Array): Promise<void> {
  return new Promise((resolve, reject) => request.write(chunk, (error) => (error ? reject(error) : resolve())));
}

/** Extracts the storage key (`indieweb/media/…`) from a stored file's URL. */
export function keyOf(url: string): string {
  const match = /(indieweb\/media\/[^/?#]+)$/.exec(new URL(url).pathname);
  if (match === null) throw new Error(`no media key in ${url}`);
  return match[1]!;
}
