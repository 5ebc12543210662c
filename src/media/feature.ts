/**
 * The media feature: where uploads go, the upload pipeline (limits,
 * sniffing, storage), multipart reading behind the bearer guard, and the
 * `/media/` endpoint (with the local storage, the files themselves).
 * @module
 */
import type { Meter } from '../core/meter.js';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config/config.js';
import type { MediaStorage } from '../contracts/media-storage.js';
import type { Clock } from '../core/clock.js';
import type { BearerGuard } from '../indieauth/bearer.js';
import type { Content } from '../content/content.js';
import type { MediaRecord, MediaRepository } from '../storage/repositories/media.js';
import { trimEndOf } from '../core/text.js';
import { hasVariants } from './photo-variants.js';
import { createLocalStorage, type LocalMediaStorage } from './fs-storage.js';
import type { S3MediaStorage } from './s3-storage.js';
import { sweepUploadLeftovers, type SweepResult } from './leftovers.js';
import { createFormUpload, type FormUpload } from './form-upload.js';
import { createMediaLibrary, type MediaLibrary } from './library.js';
import { createReceiveRequest, type ReceiveRequest } from './receive.js';
import { mediaRoutes } from './routes.js';
import { createUploadPipeline, type UploadPipeline } from './upload.js';

export interface MediaFeature {
  readonly repository: MediaRepository;
  readonly pipeline: UploadPipeline;
  /** The files each user owns (the admin Media page). */
  readonly library: MediaLibrary;
  /** With the S3 storage, the bucket's public URL: indiestack answers the sized copies of the photos in it (s3-variants.ts). Null otherwise. */
  readonly photoBucketUrl: string | null;
  /** Reads a multipart request behind the bearer guard (Micropub creates with files use it too). */
  readonly receive: ReceiveRequest;
  /** Stores the file of one of our own upload forms (the admin Media page), checked by the form's CSRF token. */
  readonly formUpload: FormUpload;
  readonly routes: (app: FastifyInstance) => Promise<void>;
  /** Removes what uploads of a killed process left behind (partial files, spool directories); see leftovers.ts. */
  sweepLeftovers(): Promise<SweepResult>;
}

/** The storage `config.media.storage` names: a local directory (default) or an S3-compatible bucket. */
export async function openMediaStorage(config: Config): Promise<MediaStorage> {
  const storage = config.media.storage;
  // the AWS SDK is large: it loads only when the bucket storage is configured
  if (storage.kind === 's3') return (await import('./s3-storage.js')).createS3Storage(storage);
  return createLocalStorage({ dir: config.media.dir, baseUrl: config.baseUrl });
}

function isLocalStorage(storage: MediaStorage): storage is LocalMediaStorage {
  return (storage as Partial<LocalMediaStorage>).kind === 'local' && typeof (storage as Partial<LocalMediaStorage>).pathOf === 'function';
}

function isS3Storage(storage: MediaStorage): storage is S3MediaStorage {
  const candidate = storage as Partial<S3MediaStorage>;
  return candidate.kind === 's3' && typeof candidate.getObject === 'function' && typeof candidate.putObject === 'function';
}

export function createMedia(deps: {
  config: Pick<Config, 'baseUrl' | 'media' | 'maxBodyBytes' | 'limits' | 'trustProxy'>;
  clock: Clock;
  storage: MediaStorage;
  repository: MediaRepository;
  bearer: BearerGuard;
  /** The content handler lists, describes and deletes media; submitted URLs pass its URL policy. */
  content: Content;
  /** @defaultValue counts nothing */
  meter?: Meter;
}): MediaFeature {
  const { config, storage, repository, bearer } = deps;
  const pipeline = createUploadPipeline({
    storage,
    media: repository,
    limits: config.media,
    clock: deps.clock,
    ...(deps.meter === undefined ? {} : { meter: deps.meter }),
  });
  const receive = createReceiveRequest({
    pipeline,
    bearer,
    limits: config.media,
    fieldBytes: config.maxBodyBytes,
    requestLimits: config.limits,
    trustProxy: config.trustProxy,
  });
  const routeDeps = {
    bearer,
    handler: deps.content.handler,
    urlPolicy: deps.content.urlPolicy,
    receive,
    pipeline,
    repository,
    localStorage: isLocalStorage(storage) ? storage : null,
    s3Storage: isS3Storage(storage) ? storage : null,
  };
  // both built-in storages answer {base}/indieweb/media/<name>?w=N for a photo (the local one at the file's own URL)
  const base = trimEndOf(deps.config.baseUrl, '/');
  const servesSizes = routeDeps.localStorage !== null || routeDeps.s3Storage !== null;
  const sizedUrlOf = (file: MediaRecord): string | null =>
    servesSizes && hasVariants(file.mediaType) ? `${base}/${file.storageKey}` : null;
  return {
    repository,
    pipeline,
    library: createMediaLibrary({ repository, pipeline, sizedUrlOf }),
    photoBucketUrl: routeDeps.s3Storage === null ? null : routeDeps.s3Storage.publicBaseUrl,
    receive,
    formUpload: createFormUpload({ pipeline, limits: config.media, fieldBytes: config.maxBodyBytes, requestLimits: config.limits }),
    routes: (app) => mediaRoutes(app, routeDeps),
    sweepLeftovers: () => sweepUploadLeftovers({ mediaDir: isLocalStorage(storage) ? storage.dir : null, now: deps.clock.now() }),
  };
}
