/**
 * The allow-list a received mention's content HTML is shown with: a few
 * inline and block tags, links made `nofollow ugc noopener`, no images, no
 * classes. Its own module so that what stores mentions (cap-mention.ts, the
 * import) does not load the page parsers of parse.ts, which run in the parse
 * pool (issue 31: microformats-parser on the main thread from start).
 * @module
 */
import { lazySanitizer } from '../html/sanitize.js';

export const sanitizeContent: (html: string) => string = lazySanitizer((sanitizeHtml) => ({
  allowedTags: [
    'a',
    'abbr',
    'b',
    'blockquote',
    'br',
    'cite',
    'code',
    'del',
    'em',
    'i',
    'ins',
    'li',
    'mark',
    'ol',
    'p',
    'pre',
    'q',
    's',
    'small',
    'strong',
    'sub',
    'sup',
    'u',
    'ul',
  ],
  allowedAttributes: { a: ['href', 'rel'], abbr: ['title'] },
  allowedSchemes: ['http', 'https'],
  allowProtocolRelative: false,
  transformTags: { a: sanitizeHtml.simpleTransform('a', { rel: 'nofollow ugc noopener' }, true) },
}));
