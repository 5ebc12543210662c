/**
 * Title and author of a cited page, from its microformats, else from
 * `<title>`. Runs in the parse pool (src/html/pool.ts), never on the event
 * loop, within the shape bounds every remote page gets.
 * @module
 */
import { mf2 } from 'microformats-parser';
import { extractAuthor, allItems, hasType, textOf, type Mf2Document } from '../../webmention/author.js';
import { elements, parseHtml } from '../../html/tree.js';
import { assertReadableShape } from '../../html/shape.js';

export interface CitedPage {
  readonly title: string | null;
  readonly author: string | null;
  readonly authorUrl: string | null;
}

const clip = (text: string | null, max: number) => (text === null ? null : text.replace(/\s+/g, ' ').trim().slice(0, max) || null);

/** Title and author of an HTML page at `finalUrl`; throws SourceTooComplexError for a page past the shape bounds. */
export function readCitation(html: string, finalUrl: string): CitedPage {
  const tree = parseHtml(html);
  assertReadableShape(tree);
  const doc = mf2(html, { baseUrl: finalUrl }) as unknown as Mf2Document;
  const entry = allItems(doc.items).find((item) => hasType(item, 'h-entry') || hasType(item, 'h-event')) ?? null;
  let title = entry === null ? null : textOf(entry.properties?.name?.[0]);
  if (title === null) {
    for (const element of elements(tree, { templates: false })) {
      if (element.tagName === 'title') {
        title = element.childNodes.map((node) => ('value' in node ? String(node.value) : '')).join('');
        break;
      }
    }
  }
  const author = extractAuthor({ doc, entry, base: finalUrl, tree });
  return { title: clip(title, 300), author: clip(author?.name ?? null, 200), authorUrl: author?.url ?? null };
}
