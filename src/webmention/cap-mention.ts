/**
 * The one door for what a received mention stores from outside: every
 * writer (verification, the webmention.io import, any later backfeed) passes
 * its fields through {@link capMention}, and the repository's write methods
 * take only its result (`Capped<…>`). Text is cut on a grapheme boundary
 * with `…`; HTML is cut (never inside a tag or an entity), then sanitized
 * with the receiving allow-list, so it stays valid and safe, with `…`
 * after it; a URL that is too long or not http(s) is dropped (a cut URL
 * would point elsewhere); `published` is kept only when it is a date or a
 * date-time. The caps are far above any real mention (docs/security.md,
 * "Received webmentions: caps at the door").
 * @module
 */
import type { Capped, WebmentionAuthor } from '../storage/repositories/webmentions.js';
import { sanitizeContent } from './mention-html.js';
import { graphemesOf } from '../core/graphemes.js';

export const MENTION_CAPS = Object.freeze({
  /** Sanitized content HTML, in characters (UTF-16 code units, as stored). */
  contentHtml: 16 * 1024,
  /** Content text, in code points. */
  contentText: 4 * 1024,
  /** The author's name, in code points. */
  name: 256,
  /** Author URL and photo, in characters; longer ones are dropped. */
  url: 2048,
  /** `published`, in characters (a date-time needs 35 at most). */
  published: 64,
});

const ELLIPSIS = '…';

/** `text` cut to at most `max` code points, on a grapheme boundary, ending in `…` when cut. */
export function capText(text: string, max: number): string {
  if (text.length <= max) return text;
  let points = 0;
  for (const _ of text) if (++points > max) break;
  if (points <= max) return text;
  let kept = '';
  let keptPoints = 0;
  // lazy: only the graphemes kept are ever looked at, whatever the input's size
  for (const { segment } of graphemesOf(text)) {
    const size = [...segment].length;
    if (keptPoints + size > max - 1) break;
    kept += segment;
    keptPoints += size;
  }
  return kept.trimEnd() + ELLIPSIS;
}

/** Cut before a tag or entity left open at the end. */
function cutClean(html: string, length: number): string {
  let cut = capText(html, length);
  if (cut.endsWith(ELLIPSIS)) cut = cut.slice(0, -ELLIPSIS.length);
  const open = cut.lastIndexOf('<');
  if (open > cut.lastIndexOf('>')) cut = cut.slice(0, open);
  return cut.replace(/&[#A-Za-z0-9]*$/, '');
}

/** Sanitized HTML of at most `max` characters: cut, then sanitized, with `…` after it when cut. */
export function capHtml(html: string, max: number): string {
  if (html.length <= max) {
    const clean = sanitizeContent(html);
    if (clean.length <= max) return clean;
  }
  // sanitizing may lengthen (closing tags, escaping): cut shorter until it fits
  let length = max - 1;
  for (;;) {
    const clean = sanitizeContent(cutClean(html, length)).trimEnd();
    if (clean.length + ELLIPSIS.length <= max || length <= 0) return length <= 0 ? ELLIPSIS : clean + ELLIPSIS;
    length -= clean.length + ELLIPSIS.length - max + 64;
  }
}

/** An http(s) URL of at most `max` characters, else null. */
export function capUrl(value: string | null, max: number = MENTION_CAPS.url): string | null {
  if (value === null || value.length > max) return null;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? value : null;
  } catch {
    return null;
  }
}

const DATE_TIME = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|z|[+-]\d{2}:?\d{2})?)?$/;

/** A date or date-time (ISO 8601 / RFC 3339, as microformats write them), else null: never arbitrary text. */
export function capPublished(value: string | null): string | null {
  if (value === null) return null;
  const trimmed = value.trim();
  if (trimmed.length > MENTION_CAPS.published || !DATE_TIME.test(trimmed)) return null;
  // a real instant: no 2026-13-45
  const iso = trimmed.replace(' ', 'T').replace(/([+-]\d{2})(\d{2})$/, '$1:$2');
  return Number.isNaN(Date.parse(iso.length === 10 ? `${iso}T00:00:00Z` : iso)) ? null : trimmed;
}

const RSVP_VALUES = new Set(['yes', 'no', 'maybe', 'interested']);

interface OutsideFields {
  readonly author: WebmentionAuthor | null;
  readonly contentText: string | null;
  readonly contentHtml: string | null;
  readonly published: string | null;
  readonly rsvp?: string | null;
}

/** The one door: the mention with every field from outside capped (see the module comment). */
export function capMention<T extends OutsideFields>(mention: T): Capped<T> {
  const author =
    mention.author === null
      ? null
      : {
          name: mention.author.name === null ? null : capText(mention.author.name, MENTION_CAPS.name),
          url: capUrl(mention.author.url),
          photo: capUrl(mention.author.photo),
        };
  const rsvp =
    mention.rsvp === undefined || mention.rsvp === null
      ? mention.rsvp
      : RSVP_VALUES.has(mention.rsvp.trim().toLowerCase())
        ? mention.rsvp.trim().toLowerCase()
        : null;
  return {
    ...mention,
    author,
    contentText: mention.contentText === null ? null : capText(mention.contentText, MENTION_CAPS.contentText),
    contentHtml: mention.contentHtml === null ? null : capHtml(mention.contentHtml, MENTION_CAPS.contentHtml),
    published: capPublished(mention.published),
    ...(rsvp === undefined ? {} : { rsvp }),
  } as unknown as Capped<T>;
}

/**
 * A stored record as it may be shown: rows stored before the caps (issue 28)
 * are capped when read out, by every reader (entry pages, both read APIs,
 * webhooks); within the caps the record is returned as stored (its HTML was
 * sanitized at the door), so this costs nothing for new rows.
 */
export function capStored<
  T extends {
    readonly author: WebmentionAuthor;
    readonly contentText: string | null;
    readonly contentHtml: string | null;
    readonly published: string | null;
  },
>(record: T): T {
  const over = (value: string | null, max: number) => value !== null && value.length > max;
  const published = capPublished(record.published);
  if (
    !over(record.contentHtml, MENTION_CAPS.contentHtml) &&
    !over(record.contentText, MENTION_CAPS.contentText) &&
    !over(record.author.name, MENTION_CAPS.name) &&
    !over(record.author.url, MENTION_CAPS.url) &&
    !over(record.author.photo, MENTION_CAPS.url) &&
    published === record.published
  )
    return record;
  return {
    ...record,
    author: {
      name: record.author.name === null ? null : capText(record.author.name, MENTION_CAPS.name),
      url: capUrl(record.author.url),
      photo: capUrl(record.author.photo),
    },
    contentText: record.contentText === null ? null : capText(record.contentText, MENTION_CAPS.contentText),
    contentHtml:
      record.contentHtml === null
        ? null
        : over(record.contentHtml, MENTION_CAPS.contentHtml)
          ? capHtml(record.contentHtml, MENTION_CAPS.contentHtml)
          : record.contentHtml,
    published,
  };
}
