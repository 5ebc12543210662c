/**
 * The text of a Bluesky post made from an entry: at most 300 graphemes
 * (and 3,000 UTF-8 bytes), links and hashtags as rich-text facets whose
 * offsets count UTF-8 bytes, as the lexicon says.
 *
 * - A note goes in full when it fits; else it is cut at a word boundary
 *   (never inside a link), and `…` and the permalink follow.
 * - An article goes as its name and its permalink.
 * - Links show as the Bluesky app shows them (`example.com/2026/11/a-lo...`:
 *   no scheme, a long path cut); the facet carries the whole URL.
 * - Categories become `#tag`s after the text, each only where it still fits.
 * @see https://docs.bsky.app/docs/advanced-guides/post-richtext
 * @module
 */
import { trimEndOf } from '../../core/text.js';
import { graphemeCount, graphemesOf, wordsOf } from '../../core/graphemes.js';

/** Bluesky's limits of `app.bsky.feed.post#text`. */
export const MAX_GRAPHEMES = 300;
export const MAX_BYTES = 3000;
/** `app.bsky.richtext.facet#tag`: at most 64 graphemes, without `#`. */
const MAX_TAG_GRAPHEMES = 64;
/** The link card's description. */
const MAX_DESCRIPTION_GRAPHEMES = 300;

export type FacetFeature =
  | { readonly $type: 'app.bsky.richtext.facet#link'; readonly uri: string }
  | { readonly $type: 'app.bsky.richtext.facet#tag'; readonly tag: string };

export interface Facet {
  readonly index: { readonly byteStart: number; readonly byteEnd: number };
  readonly features: readonly FacetFeature[];
}

export interface ComposedText {
  readonly text: string;
  readonly facets: readonly Facet[];
  /** The post does not carry the whole entry (a cut note, an article): the permalink is in it and deserves a link card. */
  readonly shortened: boolean;
}

/** A run of the post's text, plain or the visible part of one facet. */
interface Piece {
  readonly text: string;
  readonly feature?: FacetFeature;
}

/** The first `max` graphemes of `text`. */
function firstGraphemes(text: string, max: number): string {
  let out = '';
  let count = 0;
  for (const { segment } of graphemesOf(text)) {
    if (count === max) break;
    out += segment;
    count += 1;
  }
  return out;
}

const textOf = (pieces: readonly Piece[]) => pieces.map((piece) => piece.text).join('');
const fits = (text: string) => Buffer.byteLength(text, 'utf8') <= MAX_BYTES && graphemeCount(text) <= MAX_GRAPHEMES;

/** A link as the Bluesky app shows it: no scheme, a path of more than 15 characters cut to 13 and `...`. */
export function displayUrl(url: string): string {
  const bare = url.replace(/^https?:\/\//i, '');
  const slash = bare.search(/[/?#]/);
  if (slash === -1) return bare;
  const host = bare.slice(0, slash);
  const rest = bare.slice(slash);
  if (rest === '/') return host;
  return rest.length > 15 ? `${host}${firstGraphemes(rest, 13)}...` : host + rest;
}

function linkPiece(url: string): Piece {
  return { text: displayUrl(url), feature: { $type: 'app.bsky.richtext.facet#link', uri: url } };
}

/** `text` as plain runs and links (bare `http(s)://` URLs, without the punctuation that ends a sentence after them). */
export function linkPieces(text: string): Piece[] {
  const pieces: Piece[] = [];
  let from = 0;
  for (const match of text.matchAll(/https?:\/\/[^\s<>"]+/gi)) {
    let url = trimEndOf(match[0], '.,;:!?\'"');
    // a closing bracket belongs to the URL only when the URL opened it (Wikipedia's "(disambiguation)")
    while (url.endsWith(')') && count(url, '(') < count(url, ')')) url = trimEndOf(url.slice(0, -1), '.,;:!?\'"');
    if (!URL.canParse(url) || url.length <= 'https://'.length) continue;
    if (match.index > from) pieces.push({ text: text.slice(from, match.index) });
    pieces.push(linkPiece(url));
    from = match.index + url.length;
  }
  if (from < text.length) pieces.push({ text: text.slice(from) });
  return pieces;
}

function count(text: string, char: string): number {
  let n = 0;
  for (const c of text) if (c === char) n += 1;
  return n;
}

/**
 * The longest start of `text` that is at most `graphemes` graphemes and `bytes` bytes, cut before a space
 * when there is one, else at a word boundary (scripts written without spaces), else between graphemes.
 */
function cutAtWord(text: string, graphemes: number, bytes: number): string {
  let used = 0;
  let usedBytes = 0;
  let beforeSpace = -1;
  let atWord = -1;
  let position = 0;
  for (const { segment, index } of wordsOf(text)) {
    const size = graphemeCount(segment);
    const size8 = Buffer.byteLength(segment, 'utf8');
    if (/^\s/u.test(segment)) beforeSpace = index;
    else atWord = index;
    if (used + size > graphemes || usedBytes + size8 > bytes) {
      position = index;
      break;
    }
    used += size;
    usedBytes += size8;
    position = index + segment.length;
  }
  if (position === text.length) return text;
  if (beforeSpace > 0) return text.slice(0, beforeSpace);
  if (atWord > 0) return text.slice(0, atWord);
  // one word longer than the room: cut it between graphemes
  let out = '';
  for (const { segment } of graphemesOf(text)) {
    if (!fitsWithin(out + segment, graphemes, bytes)) break;
    out += segment;
  }
  return out;
}

const fitsWithin = (text: string, graphemes: number, bytes: number) =>
  Buffer.byteLength(text, 'utf8') <= bytes && graphemeCount(text) <= graphemes;

/** The start of `pieces` within the room: whole pieces, then a plain run cut at a word (a link is kept whole or left out). */
function cutPieces(pieces: readonly Piece[], graphemes: number, bytes: number): Piece[] {
  const kept: Piece[] = [];
  let used = 0;
  let usedBytes = 0;
  for (const piece of pieces) {
    const size = graphemeCount(piece.text);
    const size8 = Buffer.byteLength(piece.text, 'utf8');
    if (used + size <= graphemes && usedBytes + size8 <= bytes) {
      kept.push(piece);
      used += size;
      usedBytes += size8;
      continue;
    }
    if (piece.feature === undefined) {
      const cut = cutAtWord(piece.text, graphemes - used, bytes - usedBytes);
      if (cut !== '') kept.push({ text: cut });
    }
    break;
  }
  // no dangling separator before the ellipsis
  while (kept.length > 0 && kept.at(-1)!.feature === undefined) {
    const last = kept.pop()!;
    const trimmed = trimEndOf(last.text.trimEnd(), ',;:–—-').trimEnd();
    if (trimmed !== '') {
      kept.push({ text: trimmed });
      break;
    }
  }
  return kept;
}

/** A category as a hashtag's tag, or null when it cannot be one (a URL, a person tag, only digits, too long). */
export function hashtagOf(category: string): string | null {
  const tag = category.replace(/^#+/, '').replace(/\s+/gu, '');
  if (tag === '' || /^\d+$/.test(tag) || /[/:@#]/.test(tag)) return null;
  if (graphemeCount(tag) > MAX_TAG_GRAPHEMES) return null;
  return tag;
}

/** Whether `text` already has `#tag` (any case) as a word of its own. */
function hasHashtag(text: string, tag: string): boolean {
  const lower = text.toLowerCase();
  const needle = `#${tag.toLowerCase()}`;
  for (let at = lower.indexOf(needle); at !== -1; at = lower.indexOf(needle, at + 1)) {
    const after = lower.slice(at + needle.length, at + needle.length + 1);
    if ((at === 0 || /\s/u.test(lower[at - 1]!)) && !/[\p{L}\p{N}_]/u.test(after)) return true;
  }
  return false;
}

function withHashtags(pieces: readonly Piece[], categories: readonly string[]): Piece[] {
  const out = [...pieces];
  const seen = new Set<string>();
  for (const category of categories) {
    const tag = hashtagOf(category);
    if (tag === null || seen.has(tag.toLowerCase()) || hasHashtag(textOf(pieces), tag)) continue;
    seen.add(tag.toLowerCase());
    const next = [
      ...out,
      { text: out.some((piece) => piece.feature?.$type === 'app.bsky.richtext.facet#tag') ? ' ' : '\n\n' },
      { text: `#${tag}`, feature: { $type: 'app.bsky.richtext.facet#tag' as const, tag } },
    ];
    if (fits(textOf(next))) out.splice(0, out.length, ...next);
  }
  return out;
}

function facetsOf(pieces: readonly Piece[]): Facet[] {
  const facets: Facet[] = [];
  let byte = 0;
  for (const piece of pieces) {
    const size = Buffer.byteLength(piece.text, 'utf8');
    if (piece.feature !== undefined) facets.push({ index: { byteStart: byte, byteEnd: byte + size }, features: [piece.feature] });
    byte += size;
  }
  return facets;
}

/** The cut note or article title plus `suffix`, within the post's limits. */
function shortenedWith(body: readonly Piece[], suffix: readonly Piece[]): Piece[] {
  const suffixText = textOf(suffix);
  return [...cutPieces(body, MAX_GRAPHEMES - graphemeCount(suffixText), MAX_BYTES - Buffer.byteLength(suffixText, 'utf8')), ...suffix];
}

/** The post's text and facets for an entry with this permalink, name (articles), text and categories. */
export function composePostText(entry: {
  readonly url: string;
  readonly name: string | null;
  readonly text: string;
  readonly categories: readonly string[];
}): ComposedText {
  const name = entry.name?.trim() ?? '';
  let pieces: Piece[];
  let shortened: boolean;
  if (name !== '') {
    const title = [{ text: name.replace(/\s+/gu, ' ') }];
    const whole = [...title, { text: '\n\n' }, linkPiece(entry.url)];
    pieces = fits(textOf(whole)) ? whole : shortenedWith(title, [{ text: '…\n\n' }, linkPiece(entry.url)]);
    if (textOf(pieces).startsWith('…')) pieces = [linkPiece(entry.url)];
    shortened = true;
  } else {
    const body = linkPieces(entry.text.trim());
    shortened = !fits(textOf(body));
    pieces = shortened ? shortenedWith(body, [{ text: '… ' }, linkPiece(entry.url)]) : body;
    if (textOf(pieces).startsWith('…')) pieces = [linkPiece(entry.url)];
  }
  pieces = withHashtags(pieces, entry.categories);
  return { text: textOf(pieces), facets: facetsOf(pieces), shortened };
}

/** The link card's description: the start of the entry's text, cut at a word. */
export function cardDescription(text: string): string {
  const trimmed = text.trim().replace(/\s+/gu, ' ');
  if (graphemeCount(trimmed) <= MAX_DESCRIPTION_GRAPHEMES) return trimmed;
  return `${cutAtWord(trimmed, MAX_DESCRIPTION_GRAPHEMES - 1, MAX_BYTES).trimEnd()}…`;
}
