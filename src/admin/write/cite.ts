/**
 * What a pasted URL is (a reply's, like's, repost's or bookmark's page): its
 * title and author, fetched through the outbound guard (public addresses
 * only, size and time capped) and read from its microformats, else from
 * `<title>`. Never throws: a page that cannot be read says why.
 * @module
 */
import { parseStrictHttpUrl } from '../../core/url.js';
import { ParseFailure } from '../../html/pool.js';
import type { Outbound } from '../../outbound/fetch.js';
import { OutboundError } from '../../outbound/fetch.js';
import type { CitedPage } from './cite-page.js';

/** The module whose `readCitation` the parse pool runs. */
const CITE_PAGE_MODULE = new URL('./cite-page.js', import.meta.url);

/** Bytes of a cited page read at most: the head and first entry are near its start. */
export const CITE_MAX_BYTES = 512 * 1024;

export type Citation =
  | {
      readonly ok: true;
      readonly url: string;
      readonly title: string | null;
      readonly author: string | null;
      readonly authorUrl: string | null;
    }
  | { readonly ok: false; readonly url: string; readonly reason: string };

export async function cite(outbound: Outbound, url: string): Promise<Citation> {
  if (parseStrictHttpUrl(url.split('#')[0] ?? '') === null)
    return { ok: false, url, reason: 'This is not an absolute http or https address.' };
  try {
    const response = await outbound.fetch(url, { truncate: true });
    if (response.status >= 400) return { ok: false, url, reason: `The page answered ${response.status}.` };
    const type = String(response.headers['content-type'] ?? '').toLowerCase();
    if (!type.includes('html')) return { ok: true, url: response.url, title: null, author: null, authorUrl: null };
    // parsed in the parse pool, off the event loop, within its bounds (issue 28 F4)
    return {
      ok: true,
      url: response.url,
      ...(await outbound.read<CitedPage>(CITE_PAGE_MODULE, 'readCitation', [response.body.toString('utf8'), response.url])),
    };
  } catch (error) {
    if (error instanceof OutboundError) return { ok: false, url, reason: `The page could not be fetched: ${error.message}.` };
    if (error instanceof ParseFailure && error.kind !== 'busy')
      return { ok: false, url, reason: 'The page could not be read: it is too large or too complex.' };
    return { ok: false, url, reason: 'The page could not be read.' };
  }
}
