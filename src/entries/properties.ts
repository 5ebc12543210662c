/**
 * Microformats2 markup for Micropub property values: each value gets the
 * class prefix that parses back to it (`p-` text, `u-` URL, `dt-` date,
 * `e-` HTML, nested `h-*` objects), so a page read by any mf2 parser yields
 * the stored properties again. Every value is escaped by the `html` tag;
 * only http(s) URLs become links or sources.
 * @module
 */
import { html, SafeHtml } from '../web/html.js';
import { sanitizeEntryHtml } from './content-html.js';
import { httpUrl } from './safe-url.js';

/** A microformats2 property name; anything else is never turned into a class. */
const PROPERTY_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const TYPE_NAME = /^h-[a-z0-9]+(?:-[a-z0-9]+)*$/;
const MAX_DEPTH = 4;

export const DATE_PROPERTIES: ReadonlySet<string> = new Set(['published', 'updated', 'start', 'end']);
/** Properties whose values are URLs (`u-`). */
export const URL_PROPERTIES: ReadonlySet<string> = new Set([
  'url',
  'uid',
  'photo',
  'video',
  'audio',
  'logo',
  'in-reply-to',
  'like-of',
  'repost-of',
  'bookmark-of',
  'quotation-of',
  'follow-of',
  'read-of',
  'watch-of',
  'listen-of',
  'syndication',
  'featured',
]);
/** Properties of the record or of Micropub itself, never shown. */
const NOT_SHOWN: ReadonlySet<string> = new Set(['post-status', 'visibility', 'access_token', 'h', 'action']);

/** Whether the property may be shown as markup: a plain mf2 name, not a Micropub command (`mp-*`). */
export function isShownProperty(name: string): boolean {
  return PROPERTY_NAME.test(name) && !name.startsWith('mp-') && !NOT_SHOWN.has(name);
}

/**
 * Made on first use: the first Intl object a process makes reads ~9 MiB of
 * ICU's data (the node binary's pages) into memory, and a format made when
 * the module loads cost that to a process that may never show a page (issue 31).
 */
let dateTimeFormat: Intl.DateTimeFormat | undefined;
let dateFormat: Intl.DateTimeFormat | undefined;

/** A date for people: `3 November 2026 at 10:00 UTC`; the value as given when it is no date. */
export function readableDate(value: string): string {
  const time = Date.parse(value);
  if (Number.isNaN(time)) return value;
  if (/T|\d:\d/.test(value)) {
    dateTimeFormat ??= new Intl.DateTimeFormat('en-GB', { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' });
    return `${dateTimeFormat.format(time)} UTC`;
  }
  dateFormat ??= new Intl.DateTimeFormat('en-GB', { dateStyle: 'long', timeZone: 'UTC' });
  return dateFormat.format(time);
}

/** A URL shortened for reading: host and path, no scheme. */
export function urlLabel(url: string): string {
  const label = url.replace(/^https?:\/\//, '').replace(/\/$/, '');
  return label.length > 80 ? `${label.slice(0, 77)}…` : label;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A nested microformat (`{ type: ['h-cite'], properties }`) with usable type names, or null. */
export function nestedItem(value: unknown): { type: string[]; properties: Record<string, unknown[]> } | null {
  if (!isObject(value) || !Array.isArray(value.type) || !isObject(value.properties)) return null;
  const type = value.type.filter((name): name is string => typeof name === 'string' && TYPE_NAME.test(name));
  if (type.length === 0) return null;
  const properties: Record<string, unknown[]> = {};
  for (const [name, values] of Object.entries(value.properties)) if (Array.isArray(values)) properties[name] = values;
  return { type, properties };
}

function textOf(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return null;
}

/** An image, video or audio element for a media property value (`url` or `{ value, alt }`), or null. */
export function renderMedia(name: 'photo' | 'video' | 'audio' | 'logo', value: unknown): SafeHtml | null {
  const source = httpUrl(isObject(value) ? value.value : value);
  if (source === null) return null;
  const alt = isObject(value) && typeof value.alt === 'string' ? value.alt : '';
  const label = alt === '' ? '' : html` aria-label="${alt}"`;
  // the link to the file, for a browser that plays neither
  const link = (text: string) => html`<a href="${source}">${alt === '' ? text : alt}</a>`;
  if (name === 'video') {
    return html`<video class="u-video" src="${source}" controls preload="metadata"${label}>${link('Video')}</video>`;
  }
  if (name === 'audio') {
    return html`<audio class="u-audio" src="${source}" controls preload="metadata"${label}>${link('Audio')}</audio>`;
  }
  return html`<img class="u-${name}" src="${source}" alt="${alt}" loading="lazy">`;
}

/**
 * One value of a property as markup carrying its mf2 class. Values that
 * cannot be shown faithfully (a non-http URL in a link property, an unknown
 * object) are shown as text or left out, never as a link.
 */
export function renderValue(name: string, value: unknown, depth = 0): SafeHtml {
  if (!PROPERTY_NAME.test(name)) return html``;
  const item = nestedItem(value);
  if (item !== null) {
    if (depth >= MAX_DEPTH) return html``;
    const prefix = URL_PROPERTIES.has(name) ? 'u' : 'p';
    return html`<div class="${prefix}-${name} ${item.type.join(' ')}">${renderProperties(item.properties, depth + 1)}</div>`;
  }
  if (isObject(value) && typeof value.html === 'string') {
    return html`<div class="e-${name}">${new SafeHtml(sanitizeEntryHtml(value.html))}</div>`;
  }
  if (name === 'photo' || name === 'video' || name === 'audio' || name === 'logo') {
    const media = renderMedia(name, value);
    if (media !== null) return media;
  }
  if (isObject(value) && typeof value.value === 'string') return renderValue(name, value.value, depth);
  const text = textOf(value);
  if (text === null) return html``;
  if (DATE_PROPERTIES.has(name)) return html`<time class="dt-${name}" datetime="${text}">${readableDate(text)}</time>`;
  const url = URL_PROPERTIES.has(name) || name === 'category' || name === 'location' ? httpUrl(text) : null;
  // a URL property holds text exactly when the text is no http(s) URL: shown as such, never as a link
  if (url !== null && url === text) return html`<a class="u-${name}" href="${url}">${urlLabel(url)}</a>`;
  if (name === 'content' || name === 'summary' || name === 'description' || name === 'note') return html`<p class="p-${name}">${text}</p>`;
  return html`<span class="p-${name}">${text}</span>`;
}

/** Every value of every shown property, in stored order (nested objects). */
export function renderProperties(properties: Readonly<Record<string, readonly unknown[]>>, depth = 0): SafeHtml {
  const parts: SafeHtml[] = [];
  for (const [name, values] of Object.entries(properties)) {
    if (!isShownProperty(name)) continue;
    for (const value of values) parts.push(renderValue(name, value, depth));
  }
  return html`${parts.map((part) => html`${part} `)}`;
}
