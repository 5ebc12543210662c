/**
 * Edit: an entry (`q=source&url=…`) in the form of its post type. On save
 * the form is compared with the properties it was shown with (kept in the
 * form, so a change made elsewhere meanwhile to a field left alone here is
 * not undone) and only the difference is sent, as one Micropub update
 * (update-diff.ts).
 * @module
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { MicropubProperties } from '../../contracts/micropub-types.js';
import { readParam } from '../../core/params.js';
import { html } from '../../web/html.js';
import { errorAlert } from '../../web/ui/messages.js';
import { sendFormExpired } from '../form-expired.js';
import { ADMIN, sendAdminPage } from '../layout.js';
import { sessionOf } from '../session.js';
import { cite, type Citation } from './cite.js';
import { MicropubRefusal } from './micropub-client.js';
import { isPostType, POST_TYPE_FORMS, postTypeOf } from './post-types.js';
import { MULTIPART_FORM_ROUTE, readSubmission } from './submission.js';
import { diffUpdate } from './update-diff.js';
import {
  checkValues,
  editableNames,
  propertiesOf,
  readValues,
  valuesOfEntry,
  withMedia,
  type Problems,
  type WriteValues,
} from './values.js';
import { citedUrlOf, clientOf, contentPreview, sendWriteForm, type FormState, type WritePagesDeps } from './write-page.js';
import { POSTS_PATH } from './posts-page.js';

const EDIT_PATH = `${ADMIN}/posts/edit`;

/** The properties an edit form was shown with: the editable ones of the entry. */
function editableOf(properties: MicropubProperties, names: readonly string[]): MicropubProperties {
  return Object.fromEntries(names.filter((name) => Object.hasOwn(properties, name)).map((name) => [name, properties[name]!]));
}

/** The properties a form carried back; null when the field was damaged. */
function parseOriginal(text: string): MicropubProperties | null {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
    return Object.values(value).every(Array.isArray) ? (value as MicropubProperties) : null;
  } catch {
    return null;
  }
}

interface Shown extends FormState {
  readonly url: string;
  readonly original: MicropubProperties;
}

export function editPages(app: FastifyInstance, deps: WritePagesDeps): void {
  const { baseUrl } = deps;

  const show = (request: FastifyRequest, reply: FastifyReply, shown: Shown): Promise<FastifyReply> =>
    sendWriteForm(deps, request, reply, shown, {
      action: EDIT_PATH,
      title: `Edit: ${POST_TYPE_FORMS[shown.values.type].label}`,
      intro: html`<p>Editing <a href="${shown.url}"><code>${shown.url}</code></a> · <a href="${POSTS_PATH}">Back to the posts</a></p>`,
      submitLabel: 'Save changes',
      fresh: false,
      syndication: false,
      edit: { url: shown.url, original: JSON.stringify(shown.original) },
    });

  function sendProblem(request: FastifyRequest, reply: FastifyReply, message: string, status: number): FastifyReply {
    return sendAdminPage(request, reply, {
      title: 'Edit',
      content: html`${errorAlert(message)}<p><a href="${POSTS_PATH}">Back to the posts</a></p>`,
      status,
    });
  }

  app.get('/posts/edit', async (request, reply) => {
    const url = (readParam(request.query, 'url') ?? '').trim();
    if (url === '') return sendProblem(request, reply, 'Give the URL of the post to edit.', 400);
    try {
      const entry = await clientOf(deps, request).source(url);
      const type = postTypeOf(entry.type, entry.properties);
      return await show(request, reply, {
        url,
        original: editableOf(entry.properties, editableNames(type)),
        values: valuesOfEntry(type, entry.properties),
      });
    } catch (error) {
      if (!(error instanceof MicropubRefusal)) throw error;
      return sendProblem(
        request,
        reply,
        error.status === 400 ? `No post of yours has this URL: ${url}` : error.sentence,
        error.status >= 400 && error.status < 600 ? error.status : 502,
      );
    }
  });

  app.post('/posts/edit', MULTIPART_FORM_ROUTE, async (request, reply) => {
    const submission = await readSubmission(request, deps);
    if (submission.csrf === 'refused') return sendFormExpired(request, reply);
    const { fields } = submission;
    const url = (readParam(fields, 'url') ?? '').trim();
    const original = parseOriginal(readParam(fields, 'original', 4_000_000) ?? '');
    const type = readParam(fields, 'type');
    if (url === '' || original === null || !isPostType(type))
      return sendProblem(request, reply, 'The form arrived incomplete. Open the post from the Posts page and edit it again.', 400);

    let values = readValues(fields, type);
    if (submission.stored !== null) values = withMedia(values, { url: submission.stored.url, alt: values.newAlt });
    const base = { url, original, values };
    if (submission.fileProblem !== null)
      return show(request, reply, { ...base, problems: new Map([['media', submission.fileProblem]]), status: 400 });
    if (readParam(fields, 'intent') === 'preview') {
      const cited = citedUrlOf(values);
      return show(request, reply, {
        ...base,
        citation: cited === null ? null : await cite(deps.outbound, cited),
        preview: contentPreview(values),
      });
    }
    const problems = checkValues(values, { uploading: false });
    if (problems.size > 0) return show(request, reply, { ...base, problems, status: 400 });

    const after = propertiesOf(values, { forEdit: true, ...(original.content === undefined ? {} : { keepContent: original.content }) });
    const operations = diffUpdate(original, after.properties, editableNames(type));
    if (operations === null) return reply.redirect(`${baseUrl}${POSTS_PATH}?done=unchanged&url=${encodeURIComponent(url)}`, 303);
    let location: string;
    try {
      location = await clientOf(deps, request).update(url, operations);
    } catch (error) {
      if (!(error instanceof MicropubRefusal)) throw error;
      request.log.info({ err: error }, 'edit: the endpoint refused the update');
      return show(request, reply, {
        ...base,
        alert: error.sentence,
        status: error.status >= 400 && error.status < 600 ? error.status : 502,
      });
    }
    request.log.info(
      { userId: sessionOf(request).user.id, changed: Object.keys({ ...operations.replace, ...operations.add }).length },
      'edit: post updated',
    );
    return reply.redirect(`${baseUrl}${POSTS_PATH}?done=updated&url=${encodeURIComponent(location)}`, 303);
  });
}
