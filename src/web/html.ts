/**
 * Server-rendered pages: escaping, one layout, and the security headers every
 * page of ours carries.
 * @module
 */
import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';

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

const STYLE = `
:root{color-scheme:light dark;font-family:system-ui,sans-serif;line-height:1.5}
body{max-width:40rem;margin:0 auto;padding:1rem}
h1{font-size:1.5rem}
label{display:block;margin:.75rem 0 .25rem;font-weight:600}
input[type=text],input[type=password],input[type=url],textarea{width:100%;box-sizing:border-box;padding:.5rem;font:inherit}
button{font:inherit;padding:.5rem 1rem;margin:.75rem .5rem 0 0;cursor:pointer}
.error{border-left:4px solid #c00;padding:.25rem .75rem;background:rgba(200,0,0,.08)}
span.error{display:block;margin-top:.25rem}
dt{font-weight:600;margin-top:.5rem}
dd{margin-left:1rem}
.notice{border-left:4px solid #06c;padding:.25rem .75rem;background:rgba(0,100,200,.08)}
.warning{color:#a60;font-weight:600}
code{word-break:break-all}
nav{display:flex;gap:1rem;flex-wrap:wrap;align-items:center;border-bottom:1px solid #8884;padding-bottom:.5rem}
nav form{margin-left:auto}
nav button{margin:0}
table{border-collapse:collapse;width:100%;font-size:.9rem}
td,th{border-bottom:1px solid #8884;padding:.25rem;text-align:left;vertical-align:top}
ul.mentions,ul.media{list-style:none;padding:0}
li.mention,li.media-item{border-bottom:1px solid #8884;padding:.5rem 0}
li form,td form{display:inline}
img,video{max-width:100%;height:auto}
select{font:inherit;padding:.4rem}
`;

const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');

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
<style>${STYLE}</style>
${options.head?.value ?? ''}
${(options.scripts ?? []).map((src) => `<script src="${escapeHtml(src)}" defer></script>\n`).join('')}</head>
<body>
${options.body.value}
</body>
</html>
`;
}

/** A CSP source list of exact URLs (characters CSP gives a meaning to are percent-encoded). */
function sourceList(urls: readonly string[]): string {
  return urls.map((url) => ` ${url.replace(/[;,\s']/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`)}`).join('');
}

export function contentSecurityPolicy(formAction: readonly string[] = [], scripts: readonly string[] = [], connect: readonly string[] = []): string {
  return [
    "default-src 'none'",
    ...(scripts.length === 0 ? [] : [`script-src${sourceList(scripts)}`]),
    ...(connect.length === 0 ? [] : [`connect-src${sourceList(connect)}`]),
    `style-src 'sha256-${STYLE_HASH}'`,
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
