/**
 * What the doctor reads from a homepage: its rel links (absolute) and the
 * name of its first h-card. Runs in the parse pool (src/html/pool.ts), off
 * the event loop, within the shape bounds every remote page gets.
 * @module
 */
import { mf2 } from 'microformats-parser';
import { parseHtml } from '../../html/tree.js';
import { assertReadableShape } from '../../html/shape.js';

export interface HomePage {
  readonly rels: Readonly<Record<string, readonly string[]>>;
  /** Whether the page has an h-card, and its first name when that is text. */
  readonly card: { readonly name: string | null } | null;
}

/** Throws SourceTooComplexError for a page past the shape bounds. */
export function readHomePage(html: string, baseUrl: string): HomePage {
  assertReadableShape(parseHtml(html));
  const parsed = mf2(html, { baseUrl });
  const card = parsed.items.find((item) => item.type?.includes('h-card'));
  const name = card?.properties['name']?.[0];
  return { rels: parsed.rels, card: card === undefined ? null : { name: typeof name === 'string' ? name : null } };
}
