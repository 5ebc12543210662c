/**
 * S3-compatible storage (AWS S3, MinIO, Garage, R2…). Uploads stream in
 * parts; an upload that fails or is aborted is aborted on the server too.
 * Every request has bounded waits (connecting, then silence on the socket)
 * and at most {@link S3_MAX_ATTEMPTS} tries, so an endpoint that refuses or
 * never answers fails the upload instead of holding it. Besides the
 * {@link MediaStorage} contract it reads, checks and writes single objects
 * for the sized copies of photos (s3-variants.ts), and deleting a photo
 * deletes its copies too.
 * @module
 */
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { Readable } from 'node:stream';
import type { MediaStorage } from '../contracts/media-storage.js';
import type { MediaStorageConfig } from '../config/config.js';
import { trimEndOf } from '../core/text.js';
import { variantKeysOf } from './variant-keys.js';

/** Bucket, region, endpoint, addressing, public URL prefix, credentials and timeout: the `s3` storage settings. */
export type S3StorageOptions = Omit<Extract<MediaStorageConfig, { kind: 's3' }>, 'kind'>;

/** Tries of one S3 request: one retry for a timeout, a refused connection, a 5xx or a throttle. */
export const S3_MAX_ATTEMPTS = 2;

/** A stored object as read back: its bytes as a stream, and its length when the endpoint tells it. */
export interface StoredObject {
  readonly body: Readable;
  readonly size: number | null;
}

/** The S3 storage, with the single-object reads and writes the sized copies need. */
export interface S3MediaStorage extends MediaStorage {
  readonly kind: 's3';
  /** Where the bucket's objects are public, without a trailing slash: an object's URL is `{publicBaseUrl}/{key}`. */
  readonly publicBaseUrl: string;
  /** The object under `key`, or null when there is none. */
  getObject(key: string): Promise<StoredObject | null>;
  /** Whether an object is stored under `key`. */
  hasObject(key: string): Promise<boolean>;
  /** Writes a small object in one request (S3 makes it visible whole or not at all). */
  putObject(key: string, content: Uint8Array, mediaType: string): Promise<void>;
}

/** A 404 from the endpoint (`NoSuchKey` from GetObject, `NotFound` from HeadObject). */
function isNotFound(error: unknown): boolean {
  const failure = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return failure.name === 'NoSuchKey' || failure.name === 'NotFound' || failure.$metadata?.httpStatusCode === 404;
}

export function createS3Storage(options: S3StorageOptions): S3MediaStorage {
  const timeoutMs = options.timeout * 1000;
  const client = new S3Client({
    region: options.region,
    forcePathStyle: options.forcePathStyle,
    maxAttempts: S3_MAX_ATTEMPTS,
    // socketTimeout is the wait for data; requestTimeout would cap a whole part's transfer (and only warns unless told to throw)
    requestHandler: new NodeHttpHandler({ connectionTimeout: timeoutMs, socketTimeout: timeoutMs }),
    ...(options.endpoint === null ? {} : { endpoint: options.endpoint }),
    ...(options.credentials === null ? {} : { credentials: { ...options.credentials } }),
  });

  /** Best-effort removal after a failed upload: one try within one timeout, so a dead endpoint does not double the wait. */
  async function removeQuietly(key: string): Promise<boolean> {
    try {
      await client.send(new DeleteObjectCommand({ Bucket: options.bucket, Key: key }), { abortSignal: AbortSignal.timeout(timeoutMs) });
      return true;
    } catch {
      return false;
    }
  }

  const deleteObject = async (key: string): Promise<void> => {
    await client.send(new DeleteObjectCommand({ Bucket: options.bucket, Key: key }));
  };

  return {
    kind: 's3',
    publicBaseUrl: trimEndOf(options.publicBaseUrl, '/'),
    async save(key, content, mediaType) {
      // the content's own failure (a 413, a client gone) is the one to report, not a failed abort after it
      let contentError: unknown;
      async function* watched(): AsyncGenerator<Uint8Array> {
        try {
          yield* content;
        } catch (error) {
          contentError = error;
          throw error;
        }
      }
      const body = Readable.from(watched());
      const upload = new Upload({
        client,
        params: {
          Bucket: options.bucket,
          Key: key,
          Body: body,
          ContentType: mediaType,
          CacheControl: 'public, max-age=31536000, immutable',
        },
        queueSize: 2,
        partSize: 5 * 1024 * 1024,
        leavePartsOnError: false,
      });
      try {
        await upload.done();
      } catch (error) {
        await upload.abort().catch(() => {});
        // stop reading the client's file: nothing more of it will be stored
        body.destroy();
        // a small object may have been put in one request before the stream failed
        const removed = await removeQuietly(key);
        if (contentError !== undefined) throw contentError;
        if (!removed) throw new Error(`S3 upload of ${key} failed, and removing what may have been stored failed too`, { cause: error });
        throw error;
      }
      return `${trimEndOf(options.publicBaseUrl, '/')}/${key}`;
    },
    async delete(key) {
      // the copies first: when one cannot be deleted the original stays, and deleting again finishes the job
      await Promise.all(variantKeysOf(key).map(deleteObject));
      await deleteObject(key);
    },
    async getObject(key) {
      try {
        const answer = await client.send(new GetObjectCommand({ Bucket: options.bucket, Key: key }));
        if (answer.Body === undefined) return null;
        return { body: answer.Body as Readable, size: answer.ContentLength ?? null };
      } catch (error) {
        if (isNotFound(error)) return null;
        throw error;
      }
    },
    async hasObject(key) {
      try {
        await client.send(new HeadObjectCommand({ Bucket: options.bucket, Key: key }));
        return true;
      } catch (error) {
        if (isNotFound(error)) return false;
        throw error;
      }
    },
    async putObject(key, content, mediaType) {
      await client.send(
        new PutObjectCommand({
          Bucket: options.bucket,
          Key: key,
          Body: content,
          ContentType: mediaType,
          CacheControl: 'public, max-age=31536000, immutable',
        }),
      );
    },
  };
}
