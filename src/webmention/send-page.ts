/**
 * The pages a source page links to, for `send_webmentions`: the distinct
 * absolute http(s) `<a href>` targets inside its first h-entry (the whole
 * page when it has none), resolved against the page's URL, fragments
 * dropped, links to the source itself left out. Runs in the parse pool
 * (src/html/pool.ts), within the shape bounds every remote page gets.
 * @module
 */
import { resolveHttpUrl } from '../core/url.js';
import { attribute, classList, elements, parseHtmlDocument, type HtmlNode } from '../html/tree.js';
import { assertReadableShape } from '../html/shape.js';

function withoutFragment(value: string): string {
  const url = new URL(value);
  url.hash = '';
  return url.href;
}

/** Throws SourceTooComplexError for a page past the shape bounds. */
export function targetsInHtml(html: string, pageUrl: string, source: string): string[] {
  const document = parseHtmlDocument(html);
  assertReadableShape(document);
  let root: HtmlNode = document;
  for (const element of elements(document, { templates: false })) {
    if (classList(element).includes('h-entry')) {
      root = element;
      break;
    }
  }
  const self = new Set([withoutFragment(source), withoutFragment(pageUrl)]);
  const targets = new Set<string>();
  for (const element of elements(root, { templates: false })) {
    if (element.tagName !== 'a') continue;
    const href = attribute(element, 'href');
    const resolved = href === undefined ? null : resolveHttpUrl(href, pageUrl);
    if (resolved === null) continue;
    const target = withoutFragment(resolved);
    if (!self.has(target)) targets.add(target);
  }
  return [...targets];
}
