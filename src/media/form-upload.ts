/**
 * An upload from one of our own HTML forms (the admin Media page): the same
 * multipart reading, limits, sniffing and storage as the media endpoint,
 * with the form's own check (a CSRF token among the fields, and the
 * signed-in user) in place of the bearer token. The check runs before the
 * first file is stored, or at the end when the token comes after the file.
 * @module
 */
import type { FastifyRequest } from 'fastify';
import type { MediaConfig } from '../config/config.js';
import type { HostUser } from '../contracts/accounts.js';
import { forClient, InvalidRequestError } from '../core/errors.js';
import type { RequestLimits } from '../core/request-limits.js';
import type { MediaRecord } from '../storage/repositories/media.js';
import { receiveMultipart, type MultipartFields } from './receive.js';
import type { UploadPipeline } from './upload.js';

/** The file part of an upload form. */
export const FORM_FILE_FIELD = 'file';

export interface FormUploadCheck {
  /** Whether the fields seen so far hold what the check needs (the form's token). */
  readonly ready: (fields: MultipartFields) => boolean;
  /** The user the file is stored for; throws (and nothing is stored) when the form is not accepted. */
  readonly authorize: (fields: MultipartFields) => Promise<HostUser>;
}

/** Stores the one file of an upload form; throws the media endpoint's errors (400, 413, 415) for what it refuses. */
export type FormUpload = (request: FastifyRequest, check: FormUploadCheck) => Promise<MediaRecord>;

export function createFormUpload(deps: {
  pipeline: UploadPipeline;
  limits: MediaConfig;
  fieldBytes: number;
  requestLimits: RequestLimits;
}): FormUpload {
  const { pipeline } = deps;
  return async (request, check) => {
    if (!(request.headers['content-type'] ?? '').toLowerCase().startsWith('multipart/form-data'))
      throw new InvalidRequestError(forClient('the form was not sent as multipart/form-data'));
    const received = await receiveMultipart(request, {
      pipeline,
      limits: deps.limits,
      fieldBytes: deps.fieldBytes,
      requestLimits: deps.requestLimits,
      acceptsFile: (name) => name === FORM_FILE_FIELD,
      hasCredential: check.ready,
      authenticate: async (fields) => {
        await check.authorize(fields);
      },
      authorize: check.authorize,
    });
    const [file, ...more] = received.stored;
    if (file === undefined || more.length > 0) {
      await pipeline.discard(received.stored);
      throw new InvalidRequestError(forClient(file === undefined ? 'no file was chosen' : 'choose one file at a time'));
    }
    return file;
  };
}
