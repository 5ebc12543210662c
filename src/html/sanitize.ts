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

type SanitizeHtmlLibrary = typeof SanitizeHtml;
type SanitizeOptions = SanitizeHtml.IOptions;

let library: SanitizeHtmlLibrary | undefined;

/**
 * A sanitizer with options made from the library on its first use. The
 * library is required then (it is CommonJS: a synchronous require keeps the
 * callers synchronous), once for all of them.
 */
export function lazySanitizer(options: (library: SanitizeHtmlLibrary) => SanitizeOptions): (html: string) => string {
  let made: SanitizeOptions | undefined;
  return (html) => {
    const sanitize = (library ??= createRequire(import.meta.url)('sanitize-html') as SanitizeHtmlLibrary);
    made ??= options(sanitize);
    return sanitize(html, made);
  };
}
