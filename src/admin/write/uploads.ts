/**
 * Reading a Write or Edit form sent as multipart (it carries a file): the
 * text fields, and the file stored through the media upload pipeline (the
 * media endpoint's limits, sniffing and allow-list; the file is the
 * signed-in user's, as an upload with a `media` token of theirs would be).
 *
 * The CSRF field comes before the file in the form, and is checked before
 * a byte of the file is stored. A file that is refused (too large, a type
 * not allowed, not what the post type takes) is reported for its field and
 * the rest of the form is still read, so nothing typed is lost.
 * @module
 */
import type { FastifyRequest } from 'fastify';
import type { HostUser } from '../../contracts/accounts.js';
import type { MediaConfig } from '../../config/config.js';
import { isIndieWebError } from '../../core/errors.js';
import type { RequestLimits } from '../../core/request-limits.js';
import { addField, readFormParts } from '../../media/form-parts.js';
import { UploadBudget, type UploadPipeline } from '../../media/upload.js';
import type { MediaRecord } from '../../storage/repositories/media.js';
import { CSRF_FIELD } from '../../web/csrf-token.js';
import { isPostType, POST_TYPE_FORMS, type MediaKind } from './post-types.js';

/** The name of the form's file input. */
export const FILE_FIELD = 'media-file';

export interface UploadDeps {
  readonly pipeline: UploadPipeline;
  readonly limits: MediaConfig;
  /** Bytes of all text fields together. */
  readonly fieldBytes: number;
  readonly requestLimits: Pick<RequestLimits, 'multipartFields' | 'fieldNameBytes'>;
}

export type ReadForm =
  | { readonly csrf: 'refused' }
  | {
      readonly csrf: 'valid';
      readonly fields: Record<string, string | string[]>;
      /** The file stored with this form, if one came and was accepted. */
      readonly stored: MediaRecord | null;
      /** Why the file that came was not stored (shown by the file field). */
      readonly fileProblem: string | null;
    };

function kindOf(fields: Record<string, string | string[]>): MediaKind | null {
  const type = fields.type;
  return isPostType(type) ? POST_TYPE_FORMS[type].media : null;
}

const KIND_WORDS: Readonly<Record<MediaKind, string>> = { photo: 'an image', audio: 'an audio file', video: 'a video' };

/** What a refused file is told, from the pipeline's error. */
function fileProblemOf(error: unknown): string {
  if (isIndieWebError(error) && error.status === 413)
    return `The file is larger than this server accepts (${error.description ?? 'too large'}). Nothing else was lost: choose a smaller file.`;
  if (isIndieWebError(error) && error.status === 415) return 'This server does not accept files of this type.';
  if (isIndieWebError(error) && error.description !== undefined) return `The file was refused: ${error.description}.`;
  return 'The file could not be stored. Try again.';
}

/**
 * Reads the multipart body of a Write or Edit form of `user`. `csrfValid`
 * checks the form's CSRF token. Any stored file is the caller's to use (or
 * discard when the request fails later).
 */
export async function readMultipartForm(
  request: FastifyRequest,
  user: HostUser,
  csrfValid: (token: unknown) => boolean,
  deps: UploadDeps,
): Promise<ReadForm> {
  const fields = Object.create(null) as Record<string, string | string[]>;
  const budget = new UploadBudget(deps.limits);
  let stored: MediaRecord | null = null;
  let fileProblem: string | null = null;
  let checked = false;
  const checkCsrf = () => {
    checked = true;
    return csrfValid(fields[CSRF_FIELD]);
  };
  try {
    const parts = readFormParts(request.raw, deps);
    for await (const part of parts) {
      if (part.type === 'field') {
        addField(fields, part.name, part.value);
        continue;
      }
      // a file input left empty still sends a part, with no name and no bytes
      if (part.filename === '' || part.name !== FILE_FIELD || stored !== null) continue;
      if (!checked && !checkCsrf()) return { csrf: 'refused' };
      const kind = kindOf(fields);
      if (kind === null) {
        fileProblem = 'This kind of post takes no file.';
        continue;
      }
      try {
        const record = await deps.pipeline.store({ filename: part.filename, mimetype: part.mimetype, content: part.stream }, user, budget);
        if (!record.mediaType.startsWith(`${kind}/`) && !(kind === 'photo' && record.mediaType.startsWith('image/'))) {
          await deps.pipeline.discard([record]);
          fileProblem = `This is not ${KIND_WORDS[kind]}: choose ${KIND_WORDS[kind]}.`;
        } else stored = record;
      } catch (error) {
        if (!isIndieWebError(error)) request.log.error({ err: error }, 'write form: upload failed');
        else request.log.info({ err: error }, 'write form: upload refused');
        fileProblem = fileProblemOf(error);
      }
    }
  } catch (error) {
    if (stored !== null) await deps.pipeline.discard([stored]);
    throw error;
  }
  if (!checked && !checkCsrf()) {
    if (stored !== null) await deps.pipeline.discard([stored]);
    return { csrf: 'refused' };
  }
  return { csrf: 'valid', fields, stored, fileProblem };
}
