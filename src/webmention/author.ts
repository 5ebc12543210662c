/**
 * Who wrote the mention, in the exact order of the spec: an explicit h-entry
 * author; a URL-valued author resolved to a same-page h-card (else the URL
 * stands as the name); a rel=author link to an h-card of the page (same-page
 * fragments included); a single unambiguous page-level h-card. Remote
 * author pages are never fetched.
 * @see SPEC.md "Webmention endpoints" rule 2
 * @module
 */
import { mf2 } from 'microformats-parser';
import type { WebmentionAuthor } from '../storage/repositories/webmentions.js';
import { canonicalUrl } from './canonical-url.js';
import { elementHtmlById, type HtmlNode } from '../html/tree.js';

export interface Mf2Item {
  readonly type?: readonly string[];
  readonly properties?: Readonly<Record<string, readonly unknown[]>>;
  readonly children?: readonly Mf2Item[];
  readonly value?: unknown;
}

export interface Mf2Document {
  readonly items: readonly Mf2Item[];
  readonly rels: Readonly<Record<string, readonly string[]>>;
}

export function isItem(value: unknown): value is Mf2Item {
  return typeof value === 'object' && value !== null && Array.isArray((value as Mf2Item).type);
}

export function hasType(item: Mf2Item, type: string): boolean {
  return item.type?.includes(type) === true;
}

/** A property value as text: strings, `{ value }` (photos with alt, u-* with alt) and nested items' `value`. */
export function textOf(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null && typeof (value as { value?: unknown }).value === 'string')
    return (value as { value: string }).value;
  return null;
}

function resolve(value: string | null, base: string): string | null {
  if (value === null || value.trim() === '') return null;
  try {
    // only http(s) URLs ever leave the server: a javascript: or data: author URL or photo would run in a reader's page
    const url = new URL(value.trim(), base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

function first(item: Mf2Item, name: string): unknown {
  return item.properties?.[name]?.[0];
}

/** Every item of the document, nested ones included, in document order. */
export function allItems(items: readonly Mf2Item[]): Mf2Item[] {
  const out: Mf2Item[] = [];
  const visit = (item: Mf2Item) => {
    out.push(item);
    for (const values of Object.values(item.properties ?? {})) for (const value of values) if (isItem(value)) visit(value);
    for (const child of item.children ?? []) visit(child);
  };
  items.forEach(visit);
  return out;
}

export function cardAuthor(card: Mf2Item, base: string): WebmentionAuthor {
  const name = textOf(first(card, 'name'));
  return {
    name: name === null ? null : name.trim(),
    url: resolve(textOf(first(card, 'url')), base),
    photo: resolve(textOf(first(card, 'photo')), base),
  };
}

function looksLikeUrl(value: string): boolean {
  return (
    /^(https?:)?\/\//i.test(value) || value.startsWith('/') || value.startsWith('./') || value.startsWith('../') || value.startsWith('#')
  );
}

/** The h-card of the page whose url matches, canonically. */
function cardWithUrl(doc: Mf2Document, url: string, base: string): Mf2Item | null {
  const wanted = canonicalUrl(url, base);
  if (wanted === null) return null;
  for (const item of allItems(doc.items)) {
    if (!hasType(item, 'h-card')) continue;
    for (const value of item.properties?.url ?? []) {
      const text = textOf(value);
      if (text !== null && canonicalUrl(text, base) === wanted) return item;
    }
  }
  return null;
}

export function extractAuthor(options: { doc: Mf2Document; entry: Mf2Item | null; base: string; tree: HtmlNode }): WebmentionAuthor | null {
  const { doc, entry, base, tree } = options;

  const explicit = entry === null ? undefined : first(entry, 'author');
  if (explicit !== undefined) {
    if (isItem(explicit) && hasType(explicit, 'h-card')) return cardAuthor(explicit, base);
    const text = textOf(explicit)?.trim() ?? '';
    if (text !== '' && looksLikeUrl(text)) {
      const url = resolve(text, base);
      const card = url === null ? null : cardWithUrl(doc, url, base);
      if (card !== null) return cardAuthor(card, base);
      // spec: without a matching same-page h-card, the URL stands as the name
      return { name: url ?? text, url, photo: null };
    }
    if (text !== '') return { name: text, url: null, photo: null };
  }

  const relAuthor = doc.rels.author?.[0];
  if (relAuthor !== undefined) {
    const url = resolve(relAuthor, base);
    if (url !== null) {
      const target = new URL(url);
      const page = new URL(base);
      if (target.hash !== '' && target.origin === page.origin && target.pathname === page.pathname && target.search === page.search) {
        // a same-page fragment: the element with that id, read as an h-card
        const fragment = elementHtmlById(tree, decodeURIComponent(target.hash.slice(1)));
        const card =
          fragment === null ? undefined : (mf2(fragment, { baseUrl: base }).items as Mf2Item[]).find((item) => hasType(item, 'h-card'));
        if (card !== undefined) return cardAuthor(card, base);
      }
      const card = cardWithUrl(doc, url, base);
      if (card !== null) return cardAuthor(card, base);
    }
  }

  const pageCards = doc.items.filter((item) => hasType(item, 'h-card'));
  if (pageCards.length === 1) return cardAuthor(pageCards[0]!, base);
  return null;
}
