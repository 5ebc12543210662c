/**
 * The Webmention endpoint a target's HTML advertises: the first `<link>` or
 * `<a>` with rel=webmention, in document order, templates left out (as a
 * browser treats them). Runs in the parse pool (src/html/pool.ts), within
 * the shape bounds every remote page gets.
 * @module
 */
import { resolveHttpUrl } from '../core/url.js';
import { attribute, elements, parseHtmlDocument, tokenList } from '../html/tree.js';
import { assertReadableShape } from '../html/shape.js';

/** The absolute endpoint, or null; throws SourceTooComplexError for a page past the shape bounds. */
export function endpointInHtml(html: string, baseUrl: string): string | null {
  const tree = parseHtmlDocument(html);
  assertReadableShape(tree);
  for (const element of elements(tree, { templates: false })) {
    if (element.tagName !== 'link' && element.tagName !== 'a') continue;
    const rel = attribute(element, 'rel');
    const href = attribute(element, 'href');
    if (rel === undefined || href === undefined || !tokenList(rel.toLowerCase()).includes('webmention')) continue;
    // spec: an empty href resolves to the target page itself
    const endpoint = resolveHttpUrl(href, baseUrl);
    if (endpoint !== null) return endpoint;
  }
  return null;
}
