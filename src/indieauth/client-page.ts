/**
 * What a client's HTML page says about it: its h-app / h-x-app and its
 * rel=redirect_uri links. Runs in the parse pool (src/html/pool.ts), never
 * on the event loop, within the shape bounds every remote page gets.
 * @module
 */
import { mf2 } from 'microformats-parser';
import { absolute, text } from './client-values.js';
import { assertReadableShape } from '../html/shape.js';
import { parseHtml } from '../html/tree.js';

export interface ClientPage {
  readonly name: string | null;
  readonly logo: string | null;
  readonly url: string | null;
  readonly redirectUris: readonly string[];
}

/** Reads a client's HTML page; throws SourceTooComplexError for a page past the shape bounds. */
export function readClientPage(body: string, finalUrl: string): ClientPage {
  assertReadableShape(parseHtml(body));
  // the parser refuses a document whose <body> holds no element (a page of <head> links only): one empty element keeps those readable
  const parsed = mf2(`${body}<i></i>`, { baseUrl: finalUrl });
  const app = parsed.items.find((item) => item.type?.some((type) => type === 'h-app' || type === 'h-x-app'));
  const redirectUris = (parsed.rels.redirect_uri ?? []).map((uri) => absolute(uri, finalUrl)).filter((uri): uri is string => uri !== null);
  return {
    name: text(app?.properties.name?.[0])?.trim() ?? null,
    logo: absolute(app?.properties.logo?.[0], finalUrl),
    url: absolute(app?.properties.url?.[0], finalUrl),
    redirectUris,
  };
}
