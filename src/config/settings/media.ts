/**
 * Rows of the settings table: upload limits and allowed types, and where
 * uploads are kept (a local directory, or an S3-compatible bucket whose
 * variables are read only when `INDIEWEB_MEDIA_STORAGE=s3`).
 * @module
 */
import path from 'node:path';
import {
  DEFAULT_MEDIA_ALLOWED_TYPES,
  DEFAULT_MEDIA_MAX_UPLOAD_BYTES,
  DEFAULT_MEDIA_MAX_UPLOAD_COUNT,
  DEFAULT_MEDIA_MAX_UPLOAD_TOTAL_BYTES,
  DEFAULT_S3_TIMEOUT_S,
} from '../config.js';
import { boolean, directory, httpUrl, integer, limit, list, noneOr, oneOf, text } from '../parsers.js';
import { defineSetting, type Resolved, type Setting } from '../setting.js';

export const MEDIA_LIMIT_SETTINGS: readonly Setting[] = [
  defineSetting({
    name: 'INDIEWEB_MEDIA_MAX_UPLOAD_BYTES',
    key: 'media.maxUploadBytes',
    parser: limit(),
    default: DEFAULT_MEDIA_MAX_UPLOAD_BYTES,
    description: 'Bytes per uploaded file, or `none`.',
  }),
  defineSetting({
    name: 'INDIEWEB_MEDIA_MAX_UPLOAD_COUNT',
    key: 'media.maxUploadCount',
    parser: limit(),
    default: DEFAULT_MEDIA_MAX_UPLOAD_COUNT,
    description: 'Files per request, or `none`.',
  }),
  defineSetting({
    name: 'INDIEWEB_MEDIA_MAX_UPLOAD_TOTAL_BYTES',
    key: 'media.maxUploadTotalBytes',
    parser: limit(),
    default: DEFAULT_MEDIA_MAX_UPLOAD_TOTAL_BYTES,
    description: 'Bytes across all files of one request, or `none`.',
  }),
  defineSetting({
    name: 'INDIEWEB_MEDIA_ALLOWED_TYPES',
    key: 'media.allowedTypes',
    parser: noneOr(
      list({
        lowercase: true,
        check: (type) => (/^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(type) ? null : `"${type}" is not a MIME type`),
      }),
    ),
    default: DEFAULT_MEDIA_ALLOWED_TYPES,
    shownDefault: 'common image, audio and video types',
    description: 'Allowed MIME types, comma- or whitespace-separated, or `none` to switch the allow-list off.',
  }),
  defineSetting({
    name: 'INDIEWEB_MEDIA_KEEP_METADATA',
    key: 'media.keepMetadata',
    parser: boolean(),
    default: false,
    description:
      'Store uploaded photos as sent, with their EXIF (GPS position, camera serial numbers), XMP and IPTC; by default these are removed and the photo turned upright.',
  }),
];

const s3 = ({ get }: Resolved): boolean => get('media.storage.kind') === 's3';

export const MEDIA_STORAGE_SETTINGS: readonly Setting[] = [
  defineSetting({
    name: 'INDIEWEB_MEDIA_DIR',
    key: 'media.dir',
    parser: directory(),
    default: ({ get }) => path.join(get('dataDir'), 'media'),
    shownDefault: 'DATA_DIR/media',
    description: 'Directory of the local media storage.',
  }),
  defineSetting({
    name: 'INDIEWEB_MEDIA_STORAGE',
    key: 'media.storage.kind',
    parser: oneOf(['local', 's3'], { expected: 'local or s3' }),
    default: 'local',
    description: '`local` (files under INDIEWEB_MEDIA_DIR, served by indiestack) or `s3` (an S3-compatible bucket).',
  }),
  defineSetting({
    name: 'INDIEWEB_S3_BUCKET',
    key: 'media.storage.bucket',
    parser: text(),
    default: '',
    shownDefault: '(unset)',
    when: s3,
    description: 'Bucket for `s3` storage (required then).',
  }),
  defineSetting({
    name: 'INDIEWEB_S3_REGION',
    key: 'media.storage.region',
    parser: text(),
    default: 'us-east-1',
    when: s3,
    description: 'Region of the bucket.',
  }),
  defineSetting({
    name: 'INDIEWEB_S3_ENDPOINT',
    key: 'media.storage.endpoint',
    parser: httpUrl(),
    default: null,
    shownDefault: '(AWS)',
    when: s3,
    description: 'Endpoint URL of an S3-compatible service (MinIO, Garage, R2…).',
  }),
  defineSetting({
    name: 'INDIEWEB_S3_FORCE_PATH_STYLE',
    key: 'media.storage.forcePathStyle',
    parser: boolean(),
    default: false,
    when: s3,
    description: 'Path-style addressing (`endpoint/bucket/key`), needed by most self-hosted services.',
  }),
  defineSetting({
    name: 'INDIEWEB_S3_PUBLIC_BASE_URL',
    key: 'media.storage.publicBaseUrl',
    parser: httpUrl(),
    default: ({ get }) => {
      const endpoint = get('media.storage.endpoint');
      const bucket = get('media.storage.bucket');
      return endpoint !== null ? `${endpoint}/${bucket}` : `https://${bucket}.s3.${get('media.storage.region')}.amazonaws.com`;
    },
    shownDefault: 'ENDPOINT/BUCKET',
    when: s3,
    description: 'Public URL prefix of stored objects: `{prefix}/indieweb/media/…`.',
  }),
  defineSetting({
    name: 'INDIEWEB_S3_ACCESS_KEY_ID',
    key: 'media.storage.credentials.accessKeyId',
    parser: text(),
    shownDefault: '(AWS default chain)',
    when: s3,
    description: 'Access key; without it the AWS SDK finds credentials itself (AWS_* variables, profiles, roles).',
  }),
  defineSetting({
    name: 'INDIEWEB_S3_SECRET_ACCESS_KEY',
    key: 'media.storage.credentials.secretAccessKey',
    parser: text(),
    shownDefault: '(AWS default chain)',
    when: s3,
    description: 'Secret key belonging to INDIEWEB_S3_ACCESS_KEY_ID.',
  }),
  defineSetting({
    name: 'INDIEWEB_S3_TIMEOUT',
    key: 'media.storage.timeout',
    parser: integer({ min: 1, max: 3600 }),
    default: DEFAULT_S3_TIMEOUT_S,
    when: s3,
    description:
      'Seconds one S3 request may wait for a connection, and then for data; a request is tried at most twice, so a silent endpoint fails an upload (500) after about three times this.',
  }),
];
