/**
 * What a pasted URL is (a reply's, like's, repost's or bookmark's page): its
 * title and author, fetched through the outbound guard (public addresses
 * only, size and time capped) and read from its microformats, else from
 * `<title>`. Never throws: a page that cannot be read says why.
 * @module
 */
import { mf2 } from 'microformats-parser';
import { parseStrictHttpUrl } from '../../core/url.js';
import type { Outbound } from '../../outbound/fetch.js';
import { OutboundError } from '../../outbound/fetch.js';
import { extractAuthor, allItems, hasType, textOf, type Mf2Document } from '../../webmention/author.js';
import { elements, parseHtml } from '../../webmention/html.js';

/** Bytes of a cited page read at most: the head and first entry are near its start. */
export const CITE_MAX_BYTES = 512 * 1024;

export type Citation =
  | { readonly ok: true; readonly url: string; readonly title: string | null; readonly author: string | null; readonly authorUrl: string | null }
  | { readonly ok: false; readonly url: string; readonly reason: string };

const clip = (text: string | null, max: number) => (text === null ? null : text.replace(/\s+/g, ' ').trim().slice(0, max) || null);

/** Title and author of an HTML page at `finalUrl`. */
export function readCitation(html: string, finalUrl: string): { title: string | null; author: string | null; authorUrl: string | null } {
  const tree = parseHtml(html);
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

export async function cite(outbound: Outbound, url: string): Promise<Citation> {
  if (parseStrictHttpUrl(url.split('#')[0] ?? '') === null) return { ok: false, url, reason: 'This is not an absolute http or https address.' };
  try {
    const response = await outbound.fetch(url, { truncate: true });
    if (response.status >= 400) return { ok: false, url, reason: `The page answered ${response.status}.` };
    const type = String(response.headers['content-type'] ?? '').toLowerCase();
    if (!type.includes('html')) return { ok: true, url: response.url, title: null, author: null, authorUrl: null };
    return { ok: true, url: response.url, ...readCitation(response.body.toString('utf8'), response.url) };
  } catch (error) {
    if (error instanceof OutboundError) return { ok: false, url, reason: `The page could not be fetched: ${error.message}.` };
    return { ok: false, url, reason: 'The page could not be read.' };
  }
}
