/**
 * Write: a form per post type that publishes through the Micropub endpoint
 * (micropub-client.ts). "Preview" stores the chosen file, fetches what a
 * cited URL is and shows the text as it will look, without publishing.
 * Anything refused shows the form again with every value typed and the
 * message next to its field.
 * @module
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { readParam } from '../../core/params.js';
import type { Outbound } from '../../outbound/fetch.js';
import type { Csrf } from '../../web/csrf.js';
import { html, type SafeHtml } from '../../web/html.js';
import { sendJson } from '../../web/reply.js';
import { sendFormExpired } from '../form-expired.js';
import { ADMIN, sendAdminPage } from '../layout.js';
import { sessionOf } from '../session.js';
import { cite, type Citation } from './cite.js';
import { markdownToHtml, contentValue } from './content.js';
import { writeForm } from './form-view.js';
import { MicropubRefusal, type MicropubClient, type SyndicationChoice } from './micropub-client.js';
import { CITED_URL_FIELDS, isPostType, POST_TYPES, POST_TYPE_FORMS, type PostType } from './post-types.js';
import { WRITE_SCRIPT_PATH } from './script.js';
import { MULTIPART_FORM_ROUTE, readSubmission } from './submission.js';
import type { UploadDeps } from './uploads.js';
import { checkValues, emptyValues, propertiesOf, readValues, withMedia, type Problems, type WriteValues } from './values.js';

export interface WritePagesDeps {
  readonly micropub: MicropubClient;
  readonly csrf: Csrf;
  readonly uploads: UploadDeps;
  readonly outbound: Outbound;
  readonly baseUrl: string;
}

export const WRITE_PATH = `${ADMIN}/write/`;
export const CITE_PATH = `${ADMIN}/write/cite`;

/** The Micropub client of the signed-in user of this request. */
export function clientOf(deps: Pick<WritePagesDeps, 'micropub'>, request: FastifyRequest) {
  return deps.micropub(sessionOf(request).user, request.host);
}

/** Category suggestions and syndication targets; a refusal (client policy, handler) is the page's alert, the form still shows. */
export async function formChoices(
  deps: Pick<WritePagesDeps, 'micropub'>,
  request: FastifyRequest,
  syndication: boolean,
): Promise<{ suggestions: string[]; targets: SyndicationChoice[]; alert?: string }> {
  const client = clientOf(deps, request);
  try {
    return { suggestions: await client.categories(), targets: syndication ? await client.syndicateTo() : [] };
  } catch (error) {
    if (!(error instanceof MicropubRefusal)) throw error;
    request.log.info({ err: error }, 'write: choices not available');
    return { suggestions: [], targets: [], alert: error.sentence };
  }
}

/** The cited URL of the values (a reply's, a like's …), when there is one. */
export function citedUrlOf(values: WriteValues): string | null {
  for (const name of CITED_URL_FIELDS) {
    const value = values.text[name]?.trim();
    if (value !== undefined && value !== '') return value;
  }
  return null;
}

/** The content as it will be shown (the preview), or null when there is none. */
export function contentPreview(values: WriteValues): string | null {
  const text = values.text.content ?? '';
  if (text.trim() === '') return null;
  if (values.format === 'markdown') return markdownToHtml(text);
  const value = contentValue(text, values.format);
  return typeof value === 'string' ? html`<p>${value}</p>`.toString() : (value as { html: string }).html;
}

function typeLinks(current: PostType) {
  const links = POST_TYPES.map((type) =>
    type === current
      ? html`<strong aria-current="page">${POST_TYPE_FORMS[type].label}</strong>`
      : html`<a href="${WRITE_PATH}?type=${type}">${POST_TYPE_FORMS[type].label}</a>`,
  );
  return html`<nav aria-label="Kind of post"><p>${links.map((link, index) => (index === 0 ? link : html` · ${link}`))}</p></nav>`;
}

/** What a form page shows again: the values as typed, the problems found, what was looked up. */
export interface FormState {
  readonly values: WriteValues;
  readonly problems?: Problems;
  readonly alert?: string;
  readonly citation?: Citation | null;
  readonly preview?: string | null;
  readonly status?: number;
}

/** Where the Write and Edit pages differ. */
export interface FormPage {
  readonly action: string;
  readonly title: string;
  /** Shown above the form. */
  readonly intro: SafeHtml;
  readonly submitLabel: string;
  /** A new, untouched form: syndication targets checked by their defaults. */
  readonly fresh: boolean;
  /** Whether to offer syndication targets (`q=syndicate-to`). */
  readonly syndication: boolean;
  /** The entry being edited and its properties when the form was opened. */
  readonly edit?: { readonly url: string; readonly original: string };
}

/** The Write or Edit page with its form, the category suggestions and syndication targets asked of Micropub. */
export async function sendWriteForm(
  deps: WritePagesDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  state: FormState,
  page: FormPage,
): Promise<FastifyReply> {
  const { csrf } = sessionOf(request);
  const choices = await formChoices(deps, request, page.syndication);
  const form = writeForm(
    {
      action: page.action,
      csrf,
      values: state.values,
      problems: state.problems ?? new Map(),
      alert: state.alert ?? choices.alert,
      citation: state.citation,
      preview: state.preview,
      suggestions: choices.suggestions,
      syndication: page.syndication ? choices.targets : null,
      ...(page.edit === undefined ? {} : { edit: page.edit }),
      citeUrl: `${deps.baseUrl}${CITE_PATH}`,
      submitLabel: page.submitLabel,
    },
    { fresh: page.fresh },
  );
  return sendAdminPage(request, reply, {
    title: page.title,
    content: html`${page.intro}${form}`,
    status: state.status ?? 200,
    scripts: [`${deps.baseUrl}${WRITE_SCRIPT_PATH}`],
    connect: [`${deps.baseUrl}${CITE_PATH}`],
  });
}

interface Shown extends FormState {
  readonly fresh?: boolean;
}

export function writePages(app: FastifyInstance, deps: WritePagesDeps): void {
  const { baseUrl } = deps;

  const show = (request: FastifyRequest, reply: FastifyReply, shown: Shown): Promise<FastifyReply> =>
    sendWriteForm(deps, request, reply, shown, {
      action: WRITE_PATH,
      title: `Write: ${POST_TYPE_FORMS[shown.values.type].label}`,
      intro: typeLinks(shown.values.type),
      submitLabel: 'Publish',
      fresh: shown.fresh === true,
      syndication: true,
    });

  app.get('/write/', async (request, reply) => {
    const wanted = readParam(request.query, 'type');
    return show(request, reply, { values: emptyValues(isPostType(wanted) ? wanted : 'note'), fresh: true });
  });

  app.post('/write/', MULTIPART_FORM_ROUTE, async (request, reply) => {
    const submission = await readSubmission(request, deps);
    if (submission.csrf === 'refused') return sendFormExpired(request, reply);
    let values = readValues(submission.fields);
    if (submission.stored !== null) values = withMedia(values, { url: submission.stored.url, alt: values.newAlt });
    const intent = readParam(submission.fields, 'intent') ?? 'publish';

    if (submission.fileProblem !== null)
      return show(request, reply, { values, problems: new Map([['media', submission.fileProblem]]), status: 400 });
    if (intent === 'preview') {
      const url = citedUrlOf(values);
      return show(request, reply, {
        values,
        citation: url === null ? null : await cite(deps.outbound, url),
        preview: contentPreview(values),
      });
    }

    const problems = checkValues(values, { uploading: false });
    if (problems.size > 0) return show(request, reply, { values, problems, status: 400 });
    let location: string;
    try {
      location = await clientOf(deps, request).create(propertiesOf(values, { forEdit: false }));
    } catch (error) {
      if (!(error instanceof MicropubRefusal)) throw error;
      request.log.info({ err: error }, 'write: the endpoint refused the post');
      return show(request, reply, {
        values,
        alert: error.sentence,
        status: error.status >= 400 && error.status < 600 ? error.status : 502,
      });
    }
    request.log.info({ userId: sessionOf(request).user.id, type: values.type }, 'write: post created');
    const done = values.draft ? 'draft-saved' : 'published';
    return reply.redirect(`${baseUrl}${ADMIN}/posts/?done=${done}&url=${encodeURIComponent(location)}`, 303);
  });

  // the write script's preview of a pasted URL (the form's Preview button does the same without JavaScript)
  app.post('/write/cite', async (request, reply) => {
    const url = readParam(request.body, 'url') ?? '';
    reply.header('cache-control', 'no-store');
    return sendJson(reply, 200, await cite(deps.outbound, url));
  });
}
