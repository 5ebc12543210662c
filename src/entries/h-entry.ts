/**
 * One entry as an `h-entry` (or `h-event`, or another stored type) article:
 * what it responds to, the heading, the author, the content, its media, then
 * the remaining properties and the permalink. Every stored property that
 * can be shown is rendered with the class that parses back to it.
 * @module
 */
import { POST_KIND_LABELS, postKindOf } from '../core/post-kind.js';
import { replaceTags } from '../core/text.js';
import { html, type SafeHtml } from '../web/html.js';
import type { EntryRow } from './entry-source.js';
import { displayName, renderAuthor, type Owner } from './h-card.js';
import { type BucketPhotos, renderPhoto } from './photo-markup.js';
import { isShownProperty, readableDate, renderMedia, renderValue } from './properties.js';

const TYPE_NAME = /^h-[a-z0-9]+(?:-[a-z0-9]+)*$/;
/** Response properties, shown above the entry as its context, with the words that introduce them. */
const CONTEXT: readonly (readonly [string, string])[] = [
  ['in-reply-to', 'In reply to'],
  ['like-of', 'Liked'],
  ['repost-of', 'Reposted'],
  ['bookmark-of', 'Bookmarked'],
  ['quotation-of', 'Quoting'],
  ['follow-of', 'Followed'],
  ['read-of', 'Read'],
  ['watch-of', 'Watched'],
  ['listen-of', 'Listened to'],
];
const RSVP_WORDS: Readonly<Record<string, string>> = { yes: 'Going', no: 'Not going', maybe: 'Maybe going', interested: 'Interested' };
/** Rendered in their own places, not in the footer's list. */
const PLACED = new Set([
  'name',
  'content',
  'photo',
  'video',
  'audio',
  'published',
  'url',
  'uid',
  'start',
  'end',
  'location',
  'rsvp',
  'summary',
  'category',
  'syndication',
  ...CONTEXT.map(([name]) => name),
]);

/** The root classes: the stored types that are valid names, else `h-entry`. */
export function rootTypes(row: EntryRow): string[] {
  const types = row.type.filter((type) => TYPE_NAME.test(type));
  return types.length === 0 ? ['h-entry'] : types;
}

/** What kind of post this is, in words: the heading of a nameless entry. */
export function postKind(row: EntryRow): string {
  return POST_KIND_LABELS[postKindOf(rootTypes(row), row.properties)];
}

/**
 * How much of a content or summary value a title reads (characters of its text or HTML): a title
 * shows 70 characters, so a long post costs no more per view than a short one (issue 28 F1).
 */
export const TITLE_SOURCE_LIMIT = 65_536;

/**
 * The plain text of a value (`{ html, value }` gives its value, nested items their name), tags of
 * HTML replaced by spaces in one pass (a `/<[^>]*>/g` over `<<<<…` was quadratic, issue 28 F1).
 * `limit` reads only that many characters of the text or HTML.
 */
export function plainText(value: unknown, limit = Infinity): string | null {
  if (typeof value === 'string') return textStart(value, limit);
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    if (typeof record.value === 'string') return textStart(record.value, limit);
    if (typeof record.html === 'string') return replaceTags(htmlStart(record.html, limit)).replace(/\s+/g, ' ').trim();
  }
  return null;
}

/** The first `limit` characters of text after its leading white space (all of it without a limit). */
function textStart(value: string, limit: number): string {
  return value.length <= limit ? value : value.trimStart().slice(0, limit);
}

/** The first `limit` characters of HTML, without the tag the cut falls in. */
function htmlStart(value: string, limit: number): string {
  if (value.length <= limit) return value;
  const start = value.slice(0, limit);
  const open = start.lastIndexOf('<');
  return open > start.lastIndexOf('>') ? start.slice(0, open) : start;
}

/** The entry's title for `<title>`, feeds and lists: its name, else the start of its text, else its kind and date. */
export function entryTitle(row: EntryRow): string {
  const name = plainText(row.properties.name?.[0]);
  if (name !== null && name.trim() !== '') return name.trim();
  const text = plainText(row.properties.content?.[0], TITLE_SOURCE_LIMIT) ?? plainText(row.properties.summary?.[0], TITLE_SOURCE_LIMIT);
  if (text !== null && text.trim() !== '') {
    const single = text.trim().replace(/\s+/g, ' ');
    return single.length > 70 ? `${single.slice(0, 69)}…` : single;
  }
  return `${postKind(row)} of ${readableDate(row.published)}`;
}

function values(row: EntryRow, name: string): readonly unknown[] {
  return row.properties[name] ?? [];
}

function renderContext(row: EntryRow): SafeHtml {
  const lines = CONTEXT.filter(([name]) => values(row, name).length > 0).map(
    ([name, words]) => html`<p class="context">${words} ${values(row, name).map((value) => renderValue(name, value))}</p>`,
  );
  return lines.length === 0 ? html`` : html`<div class="contexts">${lines}</div>`;
}

function renderEventTimes(row: EntryRow): SafeHtml {
  const start = values(row, 'start');
  const end = values(row, 'end');
  if (start.length === 0 && end.length === 0) return html``;
  const from = start.length > 0 ? html`From ${start.map((value) => renderValue('start', value))}` : '';
  const until = end.length > 0 ? html` until ${end.map((value) => renderValue('end', value))}` : '';
  return html`<p class="event-times">${from}${until}</p>`;
}

function renderContent(row: EntryRow): SafeHtml {
  const parts = [
    ...values(row, 'summary').map((value) => renderValue('summary', value)),
    ...values(row, 'content').map((value) => renderValue('content', value)),
  ];
  return parts.length === 0 ? html`` : html`<div class="entry-content">${parts}</div>`;
}

function renderGallery(row: EntryRow, bucket: BucketPhotos | null): SafeHtml {
  const media: SafeHtml[] = [];
  for (const name of ['photo', 'video', 'audio'] as const) {
    for (const value of values(row, name)) {
      const element = name === 'photo' ? renderPhoto(value, row.url, bucket) : renderMedia(name, value);
      if (element !== null) media.push(html`<figure>${element}</figure>`);
    }
  }
  return media.length === 0 ? html`` : html`<div class="media">${media}</div>`;
}

function renderFooter(row: EntryRow): SafeHtml {
  const published = values(row, 'published');
  const permalinkTime =
    published.length > 0
      ? published.map((value) => renderValue('published', value))
      : [html`<time class="dt-published" datetime="${row.published}">${readableDate(row.published)}</time>`];
  const urls = values(row, 'url');
  const uids = values(row, 'uid');
  const urlValues = urls.map((value) => renderValue('url', value));
  const uidValues = uids.map((value) => renderValue('uid', value));
  const permalink =
    urls.length === 0 && uids.length === 0
      ? html`<a class="u-url u-uid permalink" href="${row.url}">${permalinkTime}</a>`
      : html`<a class="permalink" href="${row.url}">${permalinkTime}</a> ${urlValues} ${uidValues}`;
  const rows: SafeHtml[] = [html`<li>${permalink}</li>`];
  const rsvp = values(row, 'rsvp');
  if (rsvp.length > 0) {
    const words = typeof rsvp[0] === 'string' && RSVP_WORDS[rsvp[0]] !== undefined ? html` (${RSVP_WORDS[rsvp[0]]})` : '';
    rows.unshift(html`<li class="rsvp">RSVP: ${rsvp.map((value) => renderValue('rsvp', value))}${words}</li>`);
  }
  const location = values(row, 'location');
  if (location.length > 0) rows.push(html`<li class="location">At ${location.map((value) => renderValue('location', value))}</li>`);
  const categories = values(row, 'category');
  if (categories.length > 0)
    rows.push(html`<li class="categories">Tagged ${categories.map((value) => renderValue('category', value))}</li>`);
  const syndication = values(row, 'syndication');
  if (syndication.length > 0)
    rows.push(html`<li class="syndication">Also on ${syndication.map((value) => renderValue('syndication', value))}</li>`);
  const others = Object.entries(row.properties).filter(([name]) => !PLACED.has(name) && isShownProperty(name));
  for (const [name, list] of others)
    rows.push(html`<li class="other"><span class="label">${name}:</span> ${list.map((value) => renderValue(name, value))}</li>`);
  return html`<footer class="entry-meta"><ul>${rows}</ul></footer>`;
}

/**
 * The whole article. `responses` (the webmentions section) goes inside it,
 * so replies, likes and reposts are the entry's `comment`, `like` and `repost`.
 * `bucket`: photos in the S3 bucket get sized copies too (photo-markup.ts).
 */
export function renderEntryArticle(row: EntryRow, owner: Owner, responses: SafeHtml, bucket: BucketPhotos | null = null): SafeHtml {
  const names = values(row, 'name');
  const name = (value: unknown) => (typeof value === 'string' ? html`<span class="p-name">${value}</span>` : renderValue('name', value));
  const heading =
    names.length > 0 ? html`<h1>${names.map(name)}</h1>` : html`<h1 class="visually-hidden">${postKind(row)} by ${displayName(owner)}</h1>`;
  return html`<article class="${rootTypes(row).join(' ')} entry">
${renderContext(row)}
${heading}
<p class="byline">${renderAuthor(owner)}</p>
${renderEventTimes(row)}
${renderContent(row)}
${renderGallery(row, bucket)}
${renderFooter(row)}
${responses}
</article>`;
}

/** An entry in a feed list: heading linking to it, content, media, date and tags (no responses). */
export function renderFeedItem(row: EntryRow, bucket: BucketPhotos | null = null): SafeHtml {
  const names = values(row, 'name').filter((value): value is string => typeof value === 'string');
  const heading = names.length > 0 ? html`<h2><a class="u-url p-name" href="${row.url}">${names[0]}</a></h2>` : '';
  const categories = values(row, 'category');
  const time = html`<time class="dt-published" datetime="${row.published}">${readableDate(row.published)}</time>`;
  const permalink = html`<a class="${names.length > 0 ? 'permalink' : 'u-url permalink'}" href="${row.url}">${time}</a>`;
  const tags = categories.length > 0 ? html`<li class="categories">${categories.map((value) => renderValue('category', value))}</li>` : '';
  return html`<li class="${rootTypes(row).join(' ')} feed-item">
${renderContext(row)}
${heading}
${renderEventTimes(row)}
${renderContent(row)}
${renderGallery(row, bucket)}
<footer class="entry-meta"><ul><li>${permalink}</li>${tags}</ul></footer>
</li>`;
}
