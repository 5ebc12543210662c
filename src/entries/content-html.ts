/**
 * The HTML of an entry's own `content`: written by its owner through
 * Micropub, yet still sanitized before it is shown (a leaked token must not
 * turn the site into a script host). Richer than the policy for remote
 * replies (webmention/parse.ts): images, headings and figures stay; no
 * `class`, so content never adds microformats properties to its entry.
 * @module
 */
import { lazySanitizer } from '../html/sanitize.js';

export const sanitizeEntryHtml: (html: string) => string = lazySanitizer((sanitizeHtml) => ({
  allowedTags: [
    ...sanitizeHtml.defaults.allowedTags,
    'img',
    'figure',
    'figcaption',
    'picture',
    'source',
    'video',
    'audio',
    'del',
    'ins',
    's',
    'u',
    'mark',
    'small',
    'sub',
    'sup',
    'time',
  ],
  allowedAttributes: {
    a: ['href', 'title', 'rel'],
    img: ['src', 'alt', 'title', 'width', 'height'],
    source: ['src', 'srcset', 'type', 'media'],
    video: ['src', 'controls', 'poster', 'width', 'height'],
    audio: ['src', 'controls'],
    time: ['datetime'],
    abbr: ['title'],
    '*': ['lang', 'dir'],
  },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesByTag: { img: ['http', 'https', 'data'] },
  allowProtocolRelative: false,
}));
