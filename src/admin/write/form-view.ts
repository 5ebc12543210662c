/**
 * The Write and Edit form: the fields of the post type, its media with alt
 * text and a preview, categories (the handler's suggestions as checkboxes,
 * new ones typed), slug, syndication targets, draft, and the buttons. Every
 * message sits next to its field (`aria-describedby`), and every value
 * typed comes back when the form is shown again.
 * @module
 */
import { html, SafeHtml } from '../../web/html.js';
import { csrfField } from '../../web/ui/csrf-form.js';
import { errorAlert } from '../../web/ui/messages.js';
import type { SyndicationChoice } from './micropub-client.js';
import type { Citation } from './cite.js';
import { CONTENT_FORMATS, type ContentFormat } from './content.js';
import { CITED_URL_FIELDS, FIELD_LABELS, POST_TYPE_FORMS, RSVP_VALUES, URL_FIELDS, type MediaKind, type TextField } from './post-types.js';
import { FILE_FIELD } from './uploads.js';
import type { Problems, WriteValues } from './values.js';

export interface FormView {
  readonly action: string;
  readonly csrf: string;
  readonly values: WriteValues;
  readonly problems: Problems;
  /** A message for the whole form (the endpoint's refusal). */
  readonly alert?: string | undefined;
  /** What the cited URL is (after a preview). */
  readonly citation?: Citation | null | undefined;
  /** The content as it will be shown (after a preview). */
  readonly preview?: string | null | undefined;
  /** Category suggestions (q=category). */
  readonly suggestions: readonly string[];
  /** Syndication targets (q=syndicate-to); none on the edit form. */
  readonly syndication: readonly SyndicationChoice[] | null;
  /** The edit form: the entry's URL and the properties it was shown with. */
  readonly edit?: { readonly url: string; readonly original: string } | undefined;
  /** Where the script asks what a pasted URL is. */
  readonly citeUrl: string;
  /** Label of the main button. */
  readonly submitLabel: string;
}

const FORMAT_LABELS: Readonly<Record<ContentFormat, string>> = { text: 'Plain text', markdown: 'Markdown', html: 'HTML' };

function errorId(name: string): string {
  return `error-${name}`;
}

/** The message of a field, and the attributes tying its control to it. */
function problemOf(problems: Problems, name: string): { message: SafeHtml | ''; attributes: SafeHtml | '' } {
  const message = problems.get(name);
  if (message === undefined) return { message: '', attributes: '' };
  return {
    message: html`<span class="error" id="${errorId(name)}">${message}</span>`,
    attributes: html` aria-invalid="true" aria-describedby="${errorId(name)}"`,
  };
}

function textControl(name: TextField, value: string, view: FormView): SafeHtml {
  const id = `field-${name}`;
  const { message, attributes } = problemOf(view.problems, name);
  const required = POST_TYPE_FORMS[view.values.type].required.includes(name) ? html` required` : '';
  const label = html`<label for="${id}">${FIELD_LABELS[name]}${required === '' ? ' (optional)' : ''}</label>`;
  if (name === 'content' || name === 'description') {
    const rows = view.values.type === 'article' ? 14 : 6;
    return html`${label}<textarea id="${id}" name="${name}" rows="${rows}"${required}${attributes}>${value}</textarea>${message}`;
  }
  if (name === 'rsvp') {
    const options = [
      html`<option value="">Choose…</option>`,
      ...RSVP_VALUES.map((answer) => html`<option value="${answer}"${answer === value ? html` selected` : ''}>${answer}</option>`),
    ];
    return html`${label}<select id="${id}" name="rsvp"${required}${attributes}>${options}</select>${message}`;
  }
  const type = URL_FIELDS.has(name) ? 'url' : 'text';
  const cite = CITED_URL_FIELDS.includes(name) ? html` data-write-cite` : '';
  const hint = name === 'start' || name === 'end' ? html` placeholder="2026-05-01T19:00"` : '';
  return html`${label}<input type="${type}" id="${id}" name="${name}" value="${value}"${required}${attributes}${cite}${hint}>${message}`;
}

function formatControl(format: ContentFormat): SafeHtml {
  const options = CONTENT_FORMATS.map(
    (choice) => html`<option value="${choice}"${choice === format ? html` selected` : ''}>${FORMAT_LABELS[choice]}</option>`,
  );
  return html`<label for="field-format">Write the text in</label><select id="field-format" name="format">${options}</select>`;
}

function citationBox(citation: Citation | null | undefined): SafeHtml {
  if (citation === undefined || citation === null) return html`<p data-write-citation hidden></p>`;
  if (!citation.ok) return html`<p data-write-citation class="error">${citation.reason}</p>`;
  const title = citation.title ?? 'a page without a title';
  const by = citation.author === null ? '' : html` by ${citation.author}`;
  return html`<p data-write-citation class="notice">You are citing <cite>${title}</cite>${by}.</p>`;
}

function mediaPreview(kind: MediaKind, url: string, alt: string): SafeHtml {
  if (kind === 'photo') return html`<img src="${url}" alt="${alt}" width="240">`;
  if (kind === 'audio') return html`<audio controls preload="none" src="${url}"></audio>`;
  return html`<video controls preload="none" width="320" src="${url}"></video>`;
}

const ACCEPT: Readonly<Record<MediaKind, string>> = { photo: 'image/*', audio: 'audio/*', video: 'video/*' };
const KIND_LABEL: Readonly<Record<MediaKind, string>> = { photo: 'Photo', audio: 'Audio file', video: 'Video' };

function mediaSection(kind: MediaKind, view: FormView): SafeHtml {
  const { values } = view;
  const items = values.media.map((item, index) => {
    const alt =
      kind === 'photo'
        ? html`<label for="media-alt-${index}">Alt text: what the photo shows, for people who cannot see it</label>
<input type="text" id="media-alt-${index}" name="media-alt-${index}" value="${item.alt}">`
        : '';
    const preview = mediaPreview(kind, item.url, item.alt);
    return html`<li class="media-item">${preview}<input type="hidden" name="media-url-${index}" value="${item.url}">${alt}
<label><input type="checkbox" name="media-remove-${index}" value="1"> Remove this ${kind === 'photo' ? 'photo' : 'file'}</label></li>`;
  });
  const { message, attributes } = problemOf(view.problems, 'media');
  const newAlt =
    kind === 'photo'
      ? html`<label for="media-alt-new">Alt text of the new photo</label>
<input type="text" id="media-alt-new" name="media-alt-new" value="${values.newAlt}" data-write-alt>`
      : '';
  const noun = kind === 'photo' ? 'photo' : kind === 'audio' ? 'audio file' : 'video';
  const fileLabel = values.media.length === 0 ? `Choose a${kind === 'photo' ? '' : 'n'} ${noun}` : 'Add another';
  return html`<fieldset><legend>${KIND_LABEL[kind]}</legend>
<input type="hidden" name="media-count" value="${values.media.length}">
${items.length === 0 ? '' : html`<ul class="media">${items}</ul>`}
<label for="${FILE_FIELD}">${fileLabel}</label>
<input type="file" id="${FILE_FIELD}" name="${FILE_FIELD}" accept="${ACCEPT[kind]}"${attributes} data-write-file>${message}
${kind === 'photo' ? html`<img data-write-preview alt="" width="240" hidden>` : ''}
${newAlt}
</fieldset>`;
}

function categoriesSection(view: FormView): SafeHtml {
  const { values } = view;
  const known = [...new Set([...view.suggestions, ...values.categories])];
  const typedNew = new Set(values.categoryText.split(',').map((value) => value.trim()));
  const boxes = known
    .filter((category) => !typedNew.has(category))
    .map((category, index) => {
      const id = `category-${index}`;
      const checked = values.categories.includes(category) ? html` checked` : '';
      return html`<label for="${id}"><input type="checkbox" id="${id}" name="category" value="${category}"${checked}> ${category}</label>`;
    });
  const datalist =
    view.suggestions.length === 0
      ? ''
      : html`<datalist id="category-suggestions">${view.suggestions.map((category) => html`<option value="${category}">`)}</datalist>`;
  const list = view.suggestions.length === 0 ? '' : html` list="category-suggestions"`;
  return html`<fieldset><legend>Categories (optional)</legend>${boxes}
<label for="category-new">${known.length === 0 ? 'Categories, separated by commas' : 'New categories, separated by commas'}</label>
<input type="text" id="category-new" name="category-new" value="${values.categoryText}"${list}>${datalist}</fieldset>`;
}

function syndicationSection(targets: readonly SyndicationChoice[], chosen: readonly string[], fresh: boolean): SafeHtml | '' {
  if (targets.length === 0) return '';
  const boxes = targets.map((target, index) => {
    const { uid, name } = target;
    const id = `syndicate-${index}`;
    const checked = (fresh ? target.checked : chosen.includes(uid)) ? html` checked` : '';
    return html`<label for="${id}"><input type="checkbox" id="${id}" name="mp-syndicate-to" value="${uid}"${checked}> ${name}</label>`;
  });
  return html`<fieldset><legend>Also post to</legend>${boxes}</fieldset>`;
}

/** The whole form. `fresh`: shown for the first time (syndication targets take their advertised `checked`). */
export function writeForm(view: FormView, options: { fresh: boolean }): SafeHtml {
  const { values } = view;
  const form = POST_TYPE_FORMS[values.type];
  const fields = form.fields.map((name) => {
    const control = textControl(name, values.text[name] ?? '', view);
    if (name === 'content' && values.type === 'article') return html`${formatControl(values.format)}${control}`;
    if (CITED_URL_FIELDS.includes(name)) return html`${control}${citationBox(view.citation)}`;
    return control;
  });
  const preview =
    view.preview === undefined || view.preview === null
      ? ''
      : html`<section aria-labelledby="preview-heading">
<h2 id="preview-heading">Preview</h2><div>${new SafeHtml(view.preview)}</div></section>`;
  const enctype = form.media === null ? '' : html` enctype="multipart/form-data"`;
  const edit =
    view.edit === undefined
      ? ''
      : html`<input type="hidden" name="url" value="${view.edit.url}"><input type="hidden" name="original" value="${view.edit.original}">`;
  const slug =
    view.edit === undefined
      ? html`<label for="field-mp-slug">Slug: the last part of the post's address (optional)</label>
<input type="text" id="field-mp-slug" name="mp-slug" value="${values.slug}">`
      : '';
  const draft = values.draft ? html` checked` : '';
  return html`${view.alert === undefined ? '' : errorAlert(view.alert)}${problemsSummary(view.problems)}
<form method="post" action="${view.action}"${enctype} data-write-form data-cite-url="${view.citeUrl}">
${csrfField(view.csrf)}<input type="hidden" name="type" value="${values.type}">${edit}
${fields}
${form.media === null ? '' : mediaSection(form.media, view)}
${form.categories ? categoriesSection(view) : ''}
${slug}
${view.syndication === null ? '' : syndicationSection(view.syndication, values.syndicateTo, options.fresh)}
<label for="field-draft"><input type="checkbox" id="field-draft" name="draft" value="1"${draft}> Draft: keep it unpublished</label>
<button type="submit" name="intent" value="publish">${view.submitLabel}</button>
<button type="submit" name="intent" value="preview">Preview</button>
</form>
${preview}`;
}

function problemsSummary(problems: Problems): SafeHtml | '' {
  if (problems.size === 0) return '';
  const count = problems.size === 1 ? 'One field needs' : `${problems.size} fields need`;
  return html`<p class="error" role="alert">Nothing was published yet: ${count} your attention. What you typed is still here.</p>`;
}
