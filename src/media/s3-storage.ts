/**
 * S3-compatible storage (AWS S3, MinIO, Garage, R2…). Uploads stream in
 * parts; an upload that fails or is aborted is aborted on the server too.
 * @module
 */
import { DeleteObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { Readable } from 'node:stream';
import type { MediaStorage } from '../contracts/media-storage.js';
import type { MediaStorageConfig } from '../config/config.js';

/** Bucket, region, endpoint, addressing, public URL prefix and credentials: the `s3` storage settings. */
export type S3StorageOptions = Omit<Extract<MediaStorageConfig, { kind: 's3' }>, 'kind'>;

export function createS3Storage(options: S3StorageOptions): MediaStorage & { readonly kind: 's3' } {
  const client = new S3Client({
    region: options.region,
    forcePathStyle: options.forcePathStyle,
    ...(options.endpoint === null ? {} : { endpoint: options.endpoint }),
    ...(options.credentials === null ? {} : { credentials: { ...options.credentials } }),
  });
  return {
    kind: 's3',
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
      const upload = new Upload({
        client,
        params: { Bucket: options.bucket, Key: key, Body: Readable.from(watched()), ContentType: mediaType, CacheControl: 'public, max-age=31536000, immutable' },
        queueSize: 2,
        partSize: 5 * 1024 * 1024,
        leavePartsOnError: false,
      });
      try {
        await upload.done();
      } catch (error) {
        await upload.abort().catch(() => {});
        // a small object may have been put in one request before the stream failed
        await client.send(new DeleteObjectCommand({ Bucket: options.bucket, Key: key })).catch(() => {});
        throw contentError ?? error;
      }
      return `${options.publicBaseUrl.replace(/\/+$/, '')}/${key}`;
    },
    async delete(key) {
      await client.send(new DeleteObjectCommand({ Bucket: options.bucket, Key: key }));
    },
  };
}
