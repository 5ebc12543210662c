/**
 * The rel links a profile page advertises, in the order a client reads them:
 * the HTTP `Link` header first, then the page's HTML (`<link>` and `<a>`, in
 * document order), as IndieAuth, Micropub and Webmention discovery do. A
 * client takes the first URL it finds for a rel, so the order is what the
 * doctor judges.
 * @module
 */
import type { OutboundResponse } from '../../outbound/fetch.js';
import { linksFromHeaders } from '../../webmention/discover.js';

export type LinkSource = 'Link header' | 'HTML';

export interface AdvertisedLink {
  /** Absolute http(s) URL, resolved against the page's final URL. */
  readonly url: string;
  readonly from: LinkSource;
}

export { linksFromHeaders };

/**
 * What a client finds for `rel`: the `Link` header's URLs, then the HTML's
 * (`htmlRels` is microformats-parser's `rels`, already absolute; null when
 * the page is not HTML).
 */
export function advertisedLinks(
  response: OutboundResponse,
  htmlRels: Readonly<Record<string, readonly string[]>> | null,
  rel: string,
): AdvertisedLink[] {
  const fromHeader = linksFromHeaders(response, rel).map((url): AdvertisedLink => ({ url, from: 'Link header' }));
  const fromHtml = (htmlRels?.[rel] ?? []).map((url): AdvertisedLink => ({ url, from: 'HTML' }));
  return [...fromHeader, ...fromHtml];
}
