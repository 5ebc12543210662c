/**
 * A submitted Write or Edit form, whichever way it came: form-encoded (the
 * admin guard checked its CSRF token) or multipart with a file (its CSRF
 * token is checked here, before the file is stored; see uploads.ts).
 * @module
 */
import type { FastifyRequest } from 'fastify';
import type { Csrf } from '../../web/csrf.js';
import type { MediaRecord } from '../../storage/repositories/media.js';
import { sessionOf } from '../session.js';
import { readMultipartForm, type UploadDeps } from './uploads.js';
import type { SubmittedFields } from './values.js';

export type Submission =
  | { readonly csrf: 'refused' }
  | { readonly csrf: 'valid'; readonly fields: SubmittedFields; readonly stored: MediaRecord | null; readonly fileProblem: string | null };

export function isMultipart(request: FastifyRequest): boolean {
  return (request.headers['content-type'] ?? '').toLowerCase().startsWith('multipart/form-data');
}

export async function readSubmission(request: FastifyRequest, deps: { csrf: Csrf; uploads: UploadDeps }): Promise<Submission> {
  if (!isMultipart(request)) {
    const body = request.body;
    const fields = typeof body === 'object' && body !== null ? (body as SubmittedFields) : {};
    return { csrf: 'valid', fields, stored: null, fileProblem: null };
  }
  const { user } = sessionOf(request);
  return readMultipartForm(request, user, (token) => deps.csrf.isValid(request, user.id, token), deps.uploads);
}

/** Route config of the routes that take multipart forms: the guard leaves their CSRF check to {@link readSubmission}. */
export const MULTIPART_FORM_ROUTE = { config: { csrfInMultipart: true } } as const;
