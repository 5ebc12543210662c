/**
 * Server-rendered pages: escaping, one layout, and the security headers every
 * page of ours carries.
 * @module
 */
import type { FastifyReply } from 'fastify';
import { UI_STYLESHEET_PATH } from './ui/stylesheet.js';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (char) => ESCAPES[char] ?? char);
}

/** Already-escaped markup. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

/** Tagged template that escapes every interpolated value except {@link SafeHtml} (and arrays of it). */
export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0] ?? '';
  values.forEach((value, index) => {
    out += render(value) + (strings[index + 1] ?? '');
  });
  return new SafeHtml(out);
}

function render(value: unknown): string {
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(value);
}

export interface PageOptions {
  title: string;
  body: SafeHtml;
  /** Extra `form-action` sources (the consent page posts to us, then redirects to the client). */
  formAction?: readonly string[];
  /** Extra markup for `<head>` (link tags). */
  head?: SafeHtml;
  /**
   * Absolute URLs of our own scripts, loaded deferred in this order; the CSP
   * allows exactly these (never inline script) and nothing else.
   */
  scripts?: readonly string[];
  /** Absolute URLs the page's scripts may `fetch` (CSP `connect-src`); none by default. */
  connect?: readonly string[];
}

export function renderPage(options: PageOptions): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>${escapeHtml(options.title)} · indiestack</title>
<link rel="stylesheet" href="${UI_STYLESHEET_PATH}">
${options.head?.value ?? ''}
${(options.scripts ?? []).map((src) => `<script src="${escapeHtml(src)}" defer></script>\n`).join('')}</head>
<body>
<a class="skip" href="#main">Skip to the content</a>
${options.body.value}
</body>
</html>
`;
}

/** A CSP source list of exact URLs (characters CSP gives a meaning to are percent-encoded). */
function sourceList(urls: readonly string[]): string {
  return urls
    .map((url) => ` ${url.replace(/[;,\s']/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`)}`)
    .join('');
}

export function contentSecurityPolicy(
  formAction: readonly string[] = [],
  scripts: readonly string[] = [],
  connect: readonly string[] = [],
): string {
  return [
    "default-src 'none'",
    ...(scripts.length === 0 ? [] : [`script-src${sourceList(scripts)}`]),
    ...(connect.length === 0 ? [] : [`connect-src${sourceList(connect)}`]),
    // our stylesheet only (web/ui/stylesheet.ts): no inline style, no style attribute
    "style-src 'self'",
    "img-src 'self' https: data:",
    "media-src 'self' https:",
    `form-action 'self'${formAction.map((source) => ` ${source}`).join('')}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

/** Sends a page with a strict CSP, no framing, no caching and no sniffing. */
export function sendPage(reply: FastifyReply, status: number, options: PageOptions): FastifyReply {
  return reply
    .code(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('content-security-policy', contentSecurityPolicy(options.formAction, options.scripts, options.connect))
    .header('x-frame-options', 'DENY')
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('cache-control', 'no-store')
    .send(renderPage(options));
}
