/**
 * The values of a Write or Edit form: read from the submitted fields, checked
 * field by field (the messages shown next to them), turned into Micropub
 * properties, and read back from an existing entry for editing.
 * @module
 */
import type { MicropubProperties } from '../../contracts/micropub-types.js';
import { parseStrictHttpUrl } from '../../core/url.js';
import { postStatusOf } from '../../core/visibility.js';
import { contentText, contentValue, isContentFormat, type ContentFormat } from './content.js';
import { isPostType, POST_TYPE_FORMS, RSVP_VALUES, URL_FIELDS, type MediaKind, type PostType, type TextField } from './post-types.js';

/** Media items a form carries at most (uploaded earlier, kept across a re-shown form). */
export const MAX_MEDIA_ITEMS = 10;
/** Longest text field accepted (the body limit bounds the whole form anyway). */
export const MAX_TEXT_LENGTH = 200_000;

export interface MediaItem {
  readonly url: string;
  readonly alt: string;
}

export interface WriteValues {
  readonly type: PostType;
  readonly text: Readonly<Partial<Record<TextField, string>>>;
  readonly format: ContentFormat;
  /** Known categories ticked, then new ones typed (comma-separated), without repeats. */
  readonly categories: readonly string[];
  /** The new-categories field as typed. */
  readonly categoryText: string;
  readonly slug: string;
  readonly draft: boolean;
  readonly syndicateTo: readonly string[];
  /** Media of the form's kind already stored (uploaded earlier, or the entry's), with alt text. */
  readonly media: readonly MediaItem[];
  /** Alt text for the file being uploaded now. */
  readonly newAlt: string;
}

/** Field name → what is wrong with it. */
export type Problems = Map<string, string>;

/** Submitted fields: parsed form or multipart text fields (repeated names give arrays). */
export type SubmittedFields = Readonly<Record<string, string | string[] | undefined>>;

function all(fields: SubmittedFields, name: string): string[] {
  const value = fields[name];
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value])
    .filter((item): item is string => typeof item === 'string')
    .map((item) => item.slice(0, MAX_TEXT_LENGTH));
}

function one(fields: SubmittedFields, name: string): string {
  return all(fields, name)[0] ?? '';
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values.map((value) => value.trim()).filter((value) => value !== ''))];
}

/** The values of a submitted form; `fallbackType` when the form names none (or an unknown one). */
export function readValues(fields: SubmittedFields, fallbackType: PostType = 'note'): WriteValues {
  const typeField = one(fields, 'type');
  const type = isPostType(typeField) ? typeField : fallbackType;
  const text: Partial<Record<TextField, string>> = {};
  for (const name of POST_TYPE_FORMS[type].fields) text[name] = one(fields, name);
  const format = one(fields, 'format');
  const categoryText = one(fields, 'category-new');
  const media: MediaItem[] = [];
  const count = Math.min(Number.parseInt(one(fields, 'media-count'), 10) || 0, MAX_MEDIA_ITEMS);
  for (let index = 0; index < count; index++) {
    const url = one(fields, `media-url-${index}`).trim();
    if (url === '' || one(fields, `media-remove-${index}`) !== '') continue;
    media.push({ url, alt: one(fields, `media-alt-${index}`).trim() });
  }
  return {
    type,
    text,
    format: isContentFormat(format) ? format : type === 'article' ? 'markdown' : 'text',
    categories: unique([...all(fields, 'category'), ...categoryText.split(',')]),
    categoryText,
    slug: one(fields, 'mp-slug').trim(),
    draft: one(fields, 'draft') !== '',
    syndicateTo: unique(all(fields, 'mp-syndicate-to')),
    media,
    newAlt: one(fields, 'media-alt-new').trim(),
  };
}

/** The problems of a form the user means to publish; `uploading` when a file of the form's kind arrived with it. */
export function checkValues(values: WriteValues, options: { uploading: boolean }): Problems {
  const problems: Problems = new Map();
  const form = POST_TYPE_FORMS[values.type];
  for (const name of form.fields) {
    const value = (values.text[name] ?? '').trim();
    if (value === '') {
      if (form.required.includes(name))
        problems.set(name, URL_FIELDS.has(name) ? 'Give the address (URL) of the page.' : 'This cannot be empty.');
      continue;
    }
    if (URL_FIELDS.has(name) && parseStrictHttpUrl(value.split('#')[0] ?? '') === null)
      problems.set(name, 'Give an absolute http or https address, like https://example.com/post.');
    if (name === 'rsvp' && !(RSVP_VALUES as readonly string[]).includes(value)) problems.set(name, 'Choose yes, no, maybe or interested.');
    if ((name === 'start' || name === 'end') && Number.isNaN(Date.parse(value)))
      problems.set(name, 'Give a date and time, like 2026-05-01T19:00.');
  }
  if (form.media !== null && values.media.length === 0 && !options.uploading)
    problems.set('media', `Choose a${form.media === 'audio' ? 'n audio' : form.media === 'video' ? ' video' : ' photo'} file to upload.`);
  for (const item of values.media) {
    if (parseStrictHttpUrl(item.url) === null) problems.set('media', 'A file address is not an http or https URL.');
  }
  return problems;
}

/** A media item as a property value: a photo with alt text is `{ value, alt }`. */
function mediaValue(kind: MediaKind, item: MediaItem): unknown {
  return kind === 'photo' && item.alt !== '' ? { value: item.url, alt: item.alt } : item.url;
}

/**
 * The properties the form says, for the type's fields only (others are left
 * alone by an edit). `keepContent`: the entry's own `content`, kept as it is
 * when the text and format shown for it were not changed (its HTML may have
 * come from another client, and sanitizing it again must not count as an
 * edit).
 */
export function propertiesOf(
  values: WriteValues,
  options: { forEdit: boolean; keepContent?: readonly unknown[] },
): { type: string[]; properties: MicropubProperties } {
  const form = POST_TYPE_FORMS[values.type];
  const properties: MicropubProperties = {};
  for (const name of form.fields) {
    const raw = values.text[name] ?? '';
    const value = name === 'content' || name === 'description' ? raw : raw.trim();
    if (value.trim() === '') continue;
    if (name === 'content') {
      const kept = options.keepContent;
      const shown = kept?.[0] === undefined ? null : contentText(kept[0]);
      properties.content =
        kept !== undefined && shown !== null && shown.text === value && shown.format === values.format
          ? [...kept]
          : [contentValue(value, values.format)];
    } else properties[name] = [value];
  }
  if (form.media !== null && values.media.length > 0) properties[form.media] = values.media.map((item) => mediaValue(form.media!, item));
  if (form.categories && values.categories.length > 0) properties.category = [...values.categories];
  if (values.draft) properties['post-status'] = ['draft'];
  if (!options.forEdit) {
    if (values.slug !== '') properties['mp-slug'] = [values.slug];
    if (values.syndicateTo.length > 0) properties['mp-syndicate-to'] = [...values.syndicateTo];
  }
  return { type: [form.h], properties };
}

/** The names an edit of this type may change: the rest of an entry's properties are never touched. */
export function editableNames(type: PostType): string[] {
  const form = POST_TYPE_FORMS[type];
  return [...form.fields, ...(form.media === null ? [] : [form.media]), ...(form.categories ? ['category'] : []), 'post-status'];
}

function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null && typeof (value as { value?: unknown }).value === 'string')
    return (value as { value: string }).value;
  return '';
}

/** The form values of an existing entry. */
export function valuesOfEntry(type: PostType, properties: MicropubProperties): WriteValues {
  const form = POST_TYPE_FORMS[type];
  const text: Partial<Record<TextField, string>> = {};
  let format: ContentFormat = type === 'article' ? 'markdown' : 'text';
  for (const name of form.fields) {
    const first = properties[name]?.[0];
    if (name === 'content') {
      const shown = first === undefined ? null : contentText(first);
      text.content = shown?.text ?? '';
      if (shown !== null && first !== undefined) format = shown.format;
    } else text[name] = textOf(first);
  }
  const media: MediaItem[] =
    form.media === null
      ? []
      : (properties[form.media] ?? []).map((value) => ({
          url: textOf(value),
          alt:
            typeof value === 'object' && value !== null && typeof (value as { alt?: unknown }).alt === 'string'
              ? (value as { alt: string }).alt
              : '',
        }));
  return {
    type,
    text,
    format,
    categories: (properties.category ?? []).filter((value): value is string => typeof value === 'string'),
    categoryText: '',
    slug: '',
    // read as the site reads it: ' Draft' shows as a draft, so saving the form never publishes it by surprise
    draft: postStatusOf(properties) === 'draft',
    syndicateTo: [],
    media,
    newAlt: '',
  };
}

/** Empty values of a type (a new post). */
export function emptyValues(type: PostType): WriteValues {
  return {
    type,
    text: {},
    format: type === 'article' ? 'markdown' : 'text',
    categories: [],
    categoryText: '',
    slug: '',
    draft: false,
    syndicateTo: [],
    media: [],
    newAlt: '',
  };
}

/** The values with a media item added (a file just stored). */
export function withMedia(values: WriteValues, item: MediaItem): WriteValues {
  return { ...values, media: [...values.media, item], newAlt: '' };
}
