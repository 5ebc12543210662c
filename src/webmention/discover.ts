/**
 * Webmention endpoint discovery, as a sender does it: the target's HTTP
 * `Link` header first, then the first `<link>` or `<a>` element with
 * `rel=webmention` in document order, read from a real parse tree.
 * @see https://www.w3.org/TR/webmention/#sender-discovers-receiver-webmention-endpoint
 * @see SPEC.md "Webmention endpoints" rule 3
 * @module
 */
import LinkHeader from 'http-link-header';
import { resolveHttpUrl } from '../core/url.js';
import { tokenList } from '../html/tree.js';
import { ParseFailure } from '../html/pool.js';
import { OutboundError, type Outbound, type OutboundResponse } from '../outbound/fetch.js';

/** The module whose `endpointInHtml` the parse pool runs. */
const DISCOVER_PAGE_MODULE = new URL('./discover-page.js', import.meta.url);

export interface DiscoveredEndpoint {
  /** The absolute http(s) endpoint URL, query string kept; null when the target advertises none. */
  readonly endpoint: string | null;
  /** The target URL after redirects: the base the endpoint was resolved against. */
  readonly finalUrl: string;
}

const HTML_TYPES = ['text/html', 'application/xhtml+xml'];

/** True when a space-separated `rel` value holds the token, compared case-insensitively. */
export function hasRelToken(rel: string, token: string): boolean {
  return tokenList(rel.toLowerCase()).includes(token);
}

/** The body as text, in the charset the response declares when Node knows it, else UTF-8. */
export function responseText(response: OutboundResponse): string {
  const contentType = headerValues(response, 'content-type')[0] ?? '';
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType)?.[1];
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(response.body);
  } catch {
    return new TextDecoder('utf-8').decode(response.body);
  }
}

export function isHtmlResponse(response: OutboundResponse): boolean {
  const contentType = headerValues(response, 'content-type')[0];
  // no Content-Type at all: give the body the benefit of the doubt
  if (contentType === undefined) return true;
  const essence = contentType.split(';')[0]!.trim().toLowerCase();
  return HTML_TYPES.includes(essence);
}

function headerValues(response: OutboundResponse, name: string): string[] {
  const value = response.headers[name];
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/**
 * A `Link` header's link-values, split at the commas outside `<…>` and quoted
 * strings. Each is parsed on its own: given the whole header, the parser reads
 * a parameter without a value (`crossorigin`) into the next link-value.
 */
export function linkValues(header: string): string[] {
  const values: string[] = [];
  let start = 0;
  let inUri = false;
  let inQuote = false;
  for (let i = 0; i < header.length; i++) {
    const c = header[i];
    if (inQuote) {
      if (c === '\\') i++;
      else if (c === '"') inQuote = false;
    } else if (inUri) {
      if (c === '>') inUri = false;
    } else if (c === '<') inUri = true;
    else if (c === '"') inQuote = true;
    else if (c === ',') {
      values.push(header.slice(start, i));
      start = i + 1;
    }
  }
  values.push(header.slice(start));
  return values.map((value) => value.trim()).filter((value) => value !== '');
}

/**
 * Every http(s) URL the `Link` headers give `rel`, in header order (relative
 * ones resolved against the final URL); one malformed link-value does not
 * hide the others. Webmention discovery takes the first; the doctor judges
 * them all.
 */
export function linksFromHeaders(response: OutboundResponse, rel: string): string[] {
  const urls: string[] = [];
  for (const value of headerValues(response, 'link').flatMap(linkValues)) {
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

/** The endpoint a target's HTML advertises, read in the parse pool (off the event loop, within its bounds). */
async function endpointFromHtml(outbound: Outbound, response: OutboundResponse): Promise<string | null> {
  if (!isHtmlResponse(response)) return null;
  return outbound.read<string | null>(DISCOVER_PAGE_MODULE, 'endpointInHtml', [responseText(response), response.url]);
}

/**
 * Finds the Webmention endpoint `targetUrl` advertises. Fetches the target
 * with GET (at most 5 redirects, through `outbound`), then takes the first
 * `Link` header value whose `rel` holds `webmention`, else the first `<link>`
 * or `<a>` element with such a `rel` and an `href`, in document order.
 * Comments and escaped markup never count. Relative endpoints resolve against
 * the final URL after redirects; only http(s) endpoints count.
 *
 * @throws {OutboundError} when the target cannot be fetched (refused address,
 * too many redirects, a non-http redirect, timeout) or answers with a 5xx.
 */
export async function discoverEndpoint(outbound: Outbound, targetUrl: string): Promise<DiscoveredEndpoint> {
  // a large page still counts: its Link header, or the endpoint in its first megabyte
  const response = await outbound.fetch(targetUrl, { method: 'GET', truncate: true });
  if (response.status >= 500) throw new OutboundError(`target answered ${response.status}`, true);
  let endpoint = linksFromHeaders(response, 'webmention')[0] ?? null;
  if (endpoint === null) {
    try {
      endpoint = await endpointFromHtml(outbound, response);
    } catch (error) {
      // a page past the bounds or the budget: the send fails with that reason, as a page that cannot be fetched does
      if (error instanceof ParseFailure) throw new OutboundError(`target page could not be read: ${error.message}`, error.kind === 'busy');
      throw error;
    }
  }
  return { endpoint, finalUrl: response.url };
}
