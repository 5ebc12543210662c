/**
 * Sending an entry page: the document from the templates, the head every
 * page carries (stylesheet, feeds, the webmention and IndieAuth endpoints),
 * and a strict CSP with no inline script or style at all.
 * @module
 */
import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import { linkTags } from '../profile/template-helpers.js';
import { escapeHtml } from '../web/html.js';
import type { EntryTemplates, OwnerView } from './templates.js';
import { trimEndOf } from '../core/text.js';

/** Where the stylesheet is served; `?v=` carries a hash of its text, so it can be cached for good. */
export const STYLESHEET_PATH = '/indieweb/entries/style.css';

export function stylesheetHash(css: string): string {
  return createHash('sha256').update(css).digest('hex').slice(0, 16);
}

export const ENTRY_PAGE_CSP = [
  "default-src 'none'",
  "style-src 'self'",
  "img-src 'self' https: data:",
  "media-src 'self' https:",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

export interface PageHead {
  readonly baseUrl: string;
  readonly stylesheetVersion: string;
  /** The page's own URL (`rel=canonical`), when it has one. */
  readonly canonical?: string | undefined;
  /** rel=prev / rel=next of a paged list. */
  readonly prev?: string | null;
  readonly next?: string | null;
}

export function headMarkup(owner: OwnerView, head: PageHead): string {
  const base = trimEndOf(head.baseUrl, '/');
  const feed = (type: string, format: string, url: string) =>
    `<link rel="alternate" type="${type}" title="${escapeHtml(`Posts by ${owner.displayName} (${format})`)}" href="${escapeHtml(url)}">`;
  return [
    `<link rel="stylesheet" href="${escapeHtml(`${base}${STYLESHEET_PATH}?v=${head.stylesheetVersion}`)}">`,
    feed('application/atom+xml', 'Atom', owner.atomUrl),
    feed('application/feed+json', 'JSON Feed', owner.jsonFeedUrl),
    ...(head.canonical === undefined ? [] : [`<link rel="canonical" href="${escapeHtml(head.canonical)}">`]),
    ...(head.prev === undefined || head.prev === null ? [] : [`<link rel="prev" href="${escapeHtml(head.prev)}">`]),
    ...(head.next === undefined || head.next === null ? [] : [`<link rel="next" href="${escapeHtml(head.next)}">`]),
    linkTags(base),
  ].join('\n');
}

/** An entry page with its headers: strict CSP, no framing, no sniffing, the webmention endpoint in `Link`. */
export function sendEntryDocument(
  reply: FastifyReply,
  status: number,
  templates: EntryTemplates,
  view: { title: string; head: string; body: string; owner: OwnerView },
  baseUrl: string,
): FastifyReply {
  return reply
    .code(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('content-security-policy', ENTRY_PAGE_CSP)
    .header('x-frame-options', 'DENY')
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'strict-origin-when-cross-origin')
    .header('cache-control', 'no-cache')
    .header('link', `<${trimEndOf(baseUrl, '/')}/indieweb/webmention/>; rel="webmention"`)
    .send(templates.document(view));
}
