/**
 * Media: uploading a file (a plain multipart form, checked by its CSRF
 * token and stored through the media endpoint's pipeline: the same limits
 * and sniffing), the user's uploads with a preview and their URL, and
 * deleting one.
 * @module
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { MediaConfig } from '../config/config.js';
import { isIndieWebError } from '../core/errors.js';
import { readParam } from '../core/params.js';
import { FORM_FILE_FIELD, type FormUpload } from '../media/form-upload.js';
import type { MediaLibrary } from '../media/library.js';
import { photoSrcset } from '../media/photo-srcset.js';
import type { MediaRecord } from '../storage/repositories/media.js';
import type { Csrf } from '../web/csrf.js';
import { CSRF_FIELD } from '../web/csrf-token.js';
import { html, type SafeHtml } from '../web/html.js';
import { buttonForm, csrfField } from '../web/ui/csrf-form.js';
import { fieldError, invalidAttributes } from '../web/ui/field.js';
import { byteSize, timestamp } from '../web/ui/format.js';
import { ADMIN, redirectDone, sendAdminPage } from './layout.js';
import { sessionOf } from './session.js';

export interface MediaPageDeps {
  readonly media: MediaLibrary;
  /** Stores the upload form's file (media/form-upload.ts). */
  readonly upload: FormUpload;
  /** What the form tells about the limits. */
  readonly limits: Pick<MediaConfig, 'maxUploadBytes' | 'allowedTypes'>;
  readonly csrf: Csrf;
  readonly baseUrl: string;
}

/** The upload route: its CSRF token is checked in the multipart body, before the file is stored (see `guardAdminPages`). */
export const UPLOAD_PATH = '/media/upload';
const FILE_INPUT = 'media-file';

/** Images, audio and video play in the page (the CSP allows media from us and https); other types show none. */
function preview(file: MediaRecord, media: MediaLibrary): SafeHtml | '' {
  // a photo of ours shows a small copy (alt is empty: the file's name is the text beside it)
  const srcset = photoSrcset(media.sizedUrlOf(file), 640);
  if (srcset !== null) return html`<img src="${file.url}" srcset="${srcset}" sizes="12rem" alt="" loading="lazy">`;
  if (file.mediaType.startsWith('image/')) return html`<img src="${file.url}" alt="" loading="lazy" width="160">`;
  if (file.mediaType.startsWith('audio/')) return html`<audio controls preload="none" src="${file.url}"></audio>`;
  if (file.mediaType.startsWith('video/')) return html`<video controls preload="none" width="240" src="${file.url}"></video>`;
  return '';
}

function mediaItem(file: MediaRecord, csrf: string, media: MediaLibrary): SafeHtml {
  const thumb = preview(file, media);
  const added = timestamp(file.createdAt);
  return html`<li class="media-item">${thumb}<p>${file.name} · ${file.mediaType} · ${byteSize(file.size)} · ${added}</p>
<label>URL <input type="text" readonly value="${file.url}"></label>
${buttonForm({ action: `${ADMIN}/media/delete`, csrf, hidden: { id: file.id }, label: 'Delete' })}</li>`;
}

function limitsHint(limits: MediaPageDeps['limits']): string {
  const size = limits.maxUploadBytes === null ? '' : ` Up to ${byteSize(limits.maxUploadBytes)}.`;
  const types =
    limits.allowedTypes === null
      ? ' Images, audio, video and documents; never pages or scripts.'
      : ` Allowed: ${limits.allowedTypes.join(', ')}.`;
  return `The file is checked like an upload from an app: its content must be what its name says.${types}${size}`;
}

function uploadForm(csrf: string, limits: MediaPageDeps['limits'], problem: string | undefined): SafeHtml {
  const hintId = `${FILE_INPUT}-hint`;
  const invalid = invalidAttributes(FILE_INPUT, problem === undefined ? 0 : 1, hintId);
  const error = problem === undefined ? '' : fieldError(problem, FILE_INPUT);
  return html`<section class="panel" aria-labelledby="upload-heading"><h2 id="upload-heading">Upload a file</h2>
<form method="post" action="${ADMIN}${UPLOAD_PATH}" enctype="multipart/form-data">
${csrfField(csrf)}
<label for="${FILE_INPUT}">File</label><span class="hint" id="${hintId}">${limitsHint(limits)}</span>
<input type="file" id="${FILE_INPUT}" name="${FORM_FILE_FIELD}" required${invalid}>${error}
<button type="submit">Upload</button>
</form></section>`;
}

export function mediaPage(app: FastifyInstance, deps: MediaPageDeps): void {
  const { media, baseUrl } = deps;

  async function sendMediaPage(
    request: FastifyRequest,
    reply: FastifyReply,
    problem?: { readonly message: string; readonly status: number },
  ): Promise<FastifyReply> {
    const { user, csrf } = sessionOf(request);
    const files = await media.listOwned(user);
    const list =
      files.length === 0 ? html`<p>No uploads yet.</p>` : html`<ul class="media">${files.map((file) => mediaItem(file, csrf, media))}</ul>`;
    const content = html`${uploadForm(csrf, deps.limits, problem?.message)}
<h2>Your files</h2>
${list}`;
    return sendAdminPage(request, reply, { title: 'Media', content, status: problem?.status ?? 200 });
  }

  app.get('/media/', async (request, reply) => sendMediaPage(request, reply));

  app.post(UPLOAD_PATH, { config: { csrfInMultipart: true } }, async (request, reply) => {
    const { user } = sessionOf(request);
    try {
      const file = await deps.upload(request, {
        ready: (fields) => fields[CSRF_FIELD] !== undefined,
        authorize: async (fields) => {
          if (!deps.csrf.isValid(request, user.id, fields[CSRF_FIELD])) throw new FormExpired();
          return user;
        },
      });
      request.log.info({ userId: user.id, mediaType: file.mediaType, size: file.size }, 'media uploaded from admin');
    } catch (error) {
      if (error instanceof FormExpired) {
        request.log.info('admin upload rejected: csrf token missing or expired');
        return sendMediaPage(request, reply, {
          status: 403,
          message: 'The form expired or did not come from this site. Reload the page and choose the file again.',
        });
      }
      if (!isIndieWebError(error) || error.status >= 500) throw error;
      request.log.info({ userId: user.id, status: error.status, reason: error.message }, 'admin upload refused');
      return sendMediaPage(request, reply, {
        status: error.status,
        message: `Not uploaded: ${error.description ?? 'the file was refused'}.`,
      });
    }
    return redirectDone(reply, baseUrl, '/media/', 'uploaded');
  });

  // another user's file answers like a deleted one: the same redirect, nothing removed
  app.post('/media/delete', async (request, reply) => {
    await media.deleteOwned(sessionOf(request).user, readParam(request.body, 'id') ?? '');
    return redirectDone(reply, baseUrl, '/media/', 'deleted');
  });
}

/** The upload form's token was missing, forged or expired: nothing is stored. */
class FormExpired extends Error {}
