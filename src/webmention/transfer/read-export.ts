/**
 * Reading a webmention.io export: what its API answers with the account
 * token, either `mentions.jf2` (`{ type: "feed", children: [JF2 entries] }`)
 * or the older `mentions.json` (`{ links: [ … ] }`). The whole file is checked
 * before anything is stored: one entry that is not what the format says makes
 * the file refused, with the entry and the field named.
 * @see https://github.com/aaronpk/webmention.io#api (the formats)
 * @module
 */
import { lazySanitizer } from '../../html/sanitize.js';
import { mentionTypeOfWmProperty, WM_PROPERTIES } from '../mention-type.js';
import { sanitizeContent } from '../mention-html.js';
import { httpUrl } from '../../core/http-url.js';

/** One mention as the export holds it, checked and normalized (content sanitized, dates ISO, URLs http(s)). */
export interface ExportedMention {
  readonly source: string;
  readonly target: string;
  /** Stored type: reply, like, repost, bookmark, rsvp, mention. */
  readonly type: string;
  readonly rsvp: string | null;
  readonly author: { readonly name: string | null; readonly url: string | null; readonly photo: string | null };
  readonly contentHtml: string | null;
  readonly contentText: string | null;
  readonly published: string | null;
  /** When the service received it (JF2 `wm-received`; `verified_date` in the links shape, which has nothing closer). */
  readonly receivedAt: string;
  /** The id the service gave it (`wm-id`, `id`); null when the file has none. */
  readonly originalId: number | null;
  /** Marked private (`wm-private`, `private`): indiestack has no private mentions, so these are left out. */
  readonly private: boolean;
  /** False for a mention the service had not verified (links shape `verified: false`): left out. */
  readonly verified: boolean;
}

export interface ExportFile {
  readonly format: 'jf2' | 'links';
  readonly mentions: readonly ExportedMention[];
}

/** The file is not the export it claims to be; the message names where and why. */
export class ExportFormatError extends Error {
  override readonly name = 'ExportFormatError';
}

/** webmention.io's activity types in the links shape (`link` is a plain mention; `rsvp` carries its value in `data.rsvp`). */
const TYPE_OF_ACTIVITY: Readonly<Record<string, string>> = {
  reply: 'reply',
  like: 'like',
  repost: 'repost',
  bookmark: 'bookmark',
  rsvp: 'rsvp',
  link: 'mention',
  mention: 'mention',
};

const RSVP_VALUES = ['yes', 'no', 'maybe', 'interested'];
const MAX_URL_LENGTH = 2048;

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fail(where: string, what: string): never {
  throw new ExportFormatError(`${where}: ${what}`);
}

/** An http(s) URL of an export: the shared rule, and no control characters or spaces (the URL parser would drop some silently). */
function exportUrl(value: unknown): string | null {
  return typeof value === 'string' && !/[\u0000-\u0020\u007f]/.test(value) ? httpUrl(value, MAX_URL_LENGTH) : null;
}

function requiredUrl(entry: Json, names: readonly string[], where: string): string {
  for (const name of names) {
    if (entry[name] === undefined || entry[name] === null) continue;
    const url = exportUrl(entry[name]);
    if (url === null) fail(where, `${name} is not an http(s) URL`);
    return url;
  }
  return fail(where, `${names[0]} is missing`);
}

function requiredDate(value: unknown, name: string, where: string): string {
  if (typeof value !== 'string' || value === '') fail(where, `${name} is missing`);
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) fail(where, `${name} is not a date`);
  return new Date(ms).toISOString();
}

/** A date the source reported: kept as written when it reads as a date, else dropped (never a reason to refuse the file). */
function optionalDate(value: unknown): string | null {
  return typeof value === 'string' && value !== '' && !Number.isNaN(Date.parse(value)) ? value : null;
}

function optionalText(value: unknown, max = 10_000): string | null {
  return typeof value === 'string' && value !== '' ? value.slice(0, max) : null;
}

function optionalId(value: unknown, name: string, where: string): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) fail(where, `${name} is not a whole number`);
  return value;
}

function optionalBoolean(value: unknown, name: string, where: string): boolean | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'boolean') fail(where, `${name} is not true or false`);
  return value;
}

function authorOf(value: unknown, where: string): ExportedMention['author'] {
  if (value === undefined || value === null) return { name: null, url: null, photo: null };
  if (!isObject(value)) fail(where, 'author is not an object');
  return { name: optionalText(value.name, 500), url: exportUrl(value.url), photo: exportUrl(value.photo) };
}

const withoutTags = lazySanitizer(() => ({ allowedTags: [], allowedAttributes: {} }));

/** Text of sanitized HTML: what a reader sees, tags dropped. */
function textOf(html: string): string {
  return withoutTags(html).trim();
}

/** HTML from the file is as untrusted as a fetched source: sanitized the same way. */
function content(html: string | null, text: string | null): { contentHtml: string | null; contentText: string | null } {
  const safeHtml = html === null ? null : sanitizeContent(html);
  return { contentHtml: safeHtml === '' ? null : safeHtml, contentText: text ?? (safeHtml === null ? null : textOf(safeHtml)) };
}

function rsvpOf(value: unknown, where: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || !RSVP_VALUES.includes(value)) fail(where, `rsvp is not one of ${RSVP_VALUES.join(', ')}`);
  return value;
}

function readJf2Entry(entry: unknown, index: number): ExportedMention {
  const where = `children[${index}]`;
  if (!isObject(entry)) fail(where, 'not an object');
  if (entry.type !== undefined && entry.type !== 'entry') fail(where, 'type is not "entry"');
  const source = requiredUrl(entry, ['wm-source', 'url'], where);
  const target = requiredUrl(entry, ['wm-target'], where);
  const property = entry['wm-property'] ?? 'mention-of';
  const type = typeof property === 'string' ? mentionTypeOfWmProperty(property) : undefined;
  if (type === undefined) fail(where, `wm-property is not one of ${WM_PROPERTIES.join(', ')}`);
  let body: { contentHtml: string | null; contentText: string | null } = { contentHtml: null, contentText: null };
  if (entry.content !== undefined && entry.content !== null) {
    if (!isObject(entry.content)) fail(where, 'content is not an object');
    const { html, text, value } = entry.content;
    // sites made before 2018 also have `content-type` and `value`
    const plain = entry.content['content-type'] === 'text/plain';
    body = content(
      optionalText(html, 100_000) ?? (plain ? null : optionalText(value, 100_000)),
      optionalText(text, 100_000) ?? (plain ? optionalText(value, 100_000) : null),
    );
  }
  return {
    source,
    target,
    type,
    rsvp: type === 'rsvp' ? rsvpOf(entry.rsvp, where) : null,
    author: authorOf(entry.author, where),
    ...body,
    published: optionalDate(entry.published),
    receivedAt: requiredDate(entry['wm-received'], 'wm-received', where),
    originalId: optionalId(entry['wm-id'], 'wm-id', where),
    private: optionalBoolean(entry['wm-private'], 'wm-private', where) ?? false,
    verified: true,
  };
}

function readLink(link: unknown, index: number): ExportedMention {
  const where = `links[${index}]`;
  if (!isObject(link)) fail(where, 'not an object');
  const source = requiredUrl(link, ['source'], where);
  const target = requiredUrl(link, ['target'], where);
  const data = link.data ?? {};
  if (!isObject(data)) fail(where, 'data is not an object');
  const activity = link.activity ?? {};
  if (!isObject(activity)) fail(where, 'activity is not an object');
  const activityType = activity.type ?? 'link';
  if (typeof activityType !== 'string' || !Object.hasOwn(TYPE_OF_ACTIVITY, activityType))
    fail(where, `activity.type is not one of ${Object.keys(TYPE_OF_ACTIVITY).join(', ')}`);
  const type = TYPE_OF_ACTIVITY[activityType]!;
  // `data.content` is the HTML when the source had some, else its text
  const raw = optionalText(data.content, 100_000);
  return {
    source,
    target,
    type,
    rsvp: type === 'rsvp' ? rsvpOf(data.rsvp, `${where}.data`) : null,
    author: authorOf(data.author, `${where}.data`),
    ...content(raw, null),
    published: optionalDate(data.published),
    receivedAt: requiredDate(link.verified_date, 'verified_date', where),
    originalId: optionalId(link.id, 'id', where),
    private: optionalBoolean(link.private, 'private', where) ?? false,
    verified: optionalBoolean(link.verified, 'verified', where) ?? true,
  };
}

/**
 * Reads the text of an export file; throws {@link ExportFormatError} naming
 * the first problem when it is not JSON, not one of the two shapes, or when
 * an entry lacks what a mention needs (source and target URLs, the date it
 * was received) or has a field of the wrong kind.
 */
export function readExport(text: string): ExportFile {
  let json: unknown;
  try {
    json = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch {
    throw new ExportFormatError('not JSON');
  }
  if (isObject(json) && json.type === 'feed' && Array.isArray(json.children)) {
    return { format: 'jf2', mentions: json.children.map(readJf2Entry) };
  }
  if (isObject(json) && Array.isArray(json.links)) {
    return { format: 'links', mentions: json.links.map(readLink) };
  }
  throw new ExportFormatError(
    'not a webmention.io export: expected {"type": "feed", "children": […]} (mentions.jf2) or {"links": […]} (mentions.json)',
  );
}
