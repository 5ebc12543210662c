/**
 * sanitize-html, loaded on the first call: with postcss and htmlparser2 it is
 * ~2 MiB of every server's memory from start (issue 31), and a server that
 * answers Micropub creates never needs it — entry pages, received mentions and
 * imports do. Callers build their options from the library when they first
 * sanitize (its defaults and transforms live on it).
 * @module
 */
import { createRequire } from 'node:module';
import type SanitizeHtml from 'sanitize-html';

export type SanitizeHtmlLibrary = typeof SanitizeHtml;
export type SanitizeOptions = SanitizeHtml.IOptions;

let library: SanitizeHtmlLibrary | undefined;

/** The library, required on the first call (it is CommonJS: a synchronous require keeps the callers synchronous). */
export function sanitizeHtmlLibrary(): SanitizeHtmlLibrary {
  return (library ??= createRequire(import.meta.url)('sanitize-html') as SanitizeHtmlLibrary);
}

/** A sanitizer with options made from the library on its first use. */
export function lazySanitizer(options: (library: SanitizeHtmlLibrary) => SanitizeOptions): (html: string) => string {
  let made: SanitizeOptions | undefined;
  return (html) => {
    const sanitize = sanitizeHtmlLibrary();
    made ??= options(sanitize);
    return sanitize(html, made);
  };
}
