/**
 * The rel links a profile page advertises, in the order a client reads them:
 * the HTTP `Link` header first, then the page's HTML (`<link>` and `<a>`, in
 * document order), as IndieAuth, Micropub and Webmention discovery do. A
 * client takes the first URL it finds for a rel, so the order is what the
 * doctor judges.
 * @module
 */
import LinkHeader from 'http-link-header';
import { resolveHttpUrl } from '../../core/url.js';
import type { OutboundResponse } from '../../outbound/fetch.js';
import { hasRelToken, linkValues } from '../../webmention/discover.js';

export type LinkSource = 'Link header' | 'HTML';

export interface AdvertisedLink {
  /** Absolute http(s) URL, resolved against the page's final URL. */
  readonly url: string;
  readonly from: LinkSource;
}

function linkHeaders(response: OutboundResponse): string[] {
  const value = response.headers['link'];
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/** Every http(s) URL the `Link` headers give `rel`, in header order; a malformed link-value is skipped, not fatal. */
export function linksFromHeaders(response: OutboundResponse, rel: string): string[] {
  const urls: string[] = [];
  for (const value of linkHeaders(response).flatMap(linkValues)) {
    let parsed: LinkHeader;
    try {
      parsed = LinkHeader.parse(value);
    } catch {
      continue;
    }
    for (const ref of parsed.refs) {
      if (typeof ref.rel !== 'string' || !hasRelToken(ref.rel, rel)) continue;
      const url = resolveHttpUrl(ref.uri, response.url);
      if (url !== null) urls.push(url);
    }
  }
  return urls;
}

/**
 * What a client finds for `rel`: the `Link` header's URLs, then the HTML's
 * (`htmlRels` is microformats-parser's `rels`, already absolute; null when
 * the page is not HTML).
 */
export function advertisedLinks(response: OutboundResponse, htmlRels: Readonly<Record<string, readonly string[]>> | null, rel: string): AdvertisedLink[] {
  const fromHeader = linksFromHeaders(response, rel).map((url): AdvertisedLink => ({ url, from: 'Link header' }));
  const fromHtml = (htmlRels?.[rel] ?? []).map((url): AdvertisedLink => ({ url, from: 'HTML' }));
  return [...fromHeader, ...fromHtml];
}
