/**
 * Fitting a post into a Mastodon status: the limit counts graphemes, every
 * URL as `characters_reserved_per_url` (23 unless the instance says
 * otherwise) and a `@user@domain` mention as `@user` (what Mastodon's own
 * counter does). A note goes in full when it fits; else it is cut at a word
 * boundary with `…` and the permalink appended. An article goes as its name
 * and permalink. Categories become hashtags where they still fit.
 * @module
 */
import type { SyndicationPost } from '../client.js';
import { graphemeCount, graphemesOf } from '../../core/graphemes.js';

export interface StatusLimits {
  readonly maxCharacters: number;
  readonly urlLength: number;
}

export const DEFAULT_LIMITS: StatusLimits = { maxCharacters: 500, urlLength: 23 };

const URL_PATTERN = /https?:\/\/[^\s<>"]+/giu;
const MENTION_PATTERN = /(^|[^\p{L}\p{N}_/])(@[\p{L}\p{N}_]+(?:[.-][\p{L}\p{N}_]+)*)@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+/gu;

/** Mastodon's length of `text`. */
export function statusLength(text: string, limits: StatusLimits = DEFAULT_LIMITS): number {
  let urls = 0;
  const withoutUrls = text.replace(URL_PATTERN, () => {
    urls += 1;
    return '';
  });
  return graphemeCount(withoutUrls.replace(MENTION_PATTERN, '$1$2')) + urls * limits.urlLength;
}

/** A category as a hashtag (letters, digits and `_` only), or null when nothing of it is left. */
export function hashtagOf(category: string): string | null {
  const tag = category.normalize('NFC').replace(/[^\p{L}\p{N}_]+/gu, '');
  return tag === '' || /^\p{N}+$/u.test(tag) ? null : `#${tag}`;
}

/** Words of `text` (whitespace kept) from the start while `fits` holds; `''` when not even the first fits. */
function cutAtWord(text: string, fits: (cut: string) => boolean): string {
  const parts = text.split(/(\s+)/u);
  let kept = '';
  for (const part of parts) {
    if (part === '') continue;
    const next = kept + part;
    if (!fits(next.trimEnd())) break;
    kept = next;
  }
  kept = kept.trimEnd();
  if (kept !== '' || parts.length === 0) return kept;
  // a first "word" longer than the limit: cut it at a grapheme
  let out = '';
  for (const { segment } of graphemesOf(text)) {
    if (!fits(out + segment)) break;
    out += segment;
  }
  return out;
}

/** Adds as many hashtags as still fit, on a line of their own. */
function withHashtags(text: string, categories: readonly string[], limits: StatusLimits): string {
  const tags = [...new Set(categories.map(hashtagOf).filter((tag): tag is string => tag !== null))];
  const present = new Set((text.match(/#[\p{L}\p{N}_]+/gu) ?? []).map((tag) => tag.toLowerCase()));
  let result = text;
  let line = '';
  for (const tag of tags) {
    if (present.has(tag.toLowerCase())) continue;
    const nextLine = line === '' ? tag : `${line} ${tag}`;
    const candidate = result === '' ? nextLine : `${text}\n\n${nextLine}`;
    if (statusLength(candidate, limits) > limits.maxCharacters) continue;
    line = nextLine;
    result = candidate;
  }
  return result;
}

/** The status text of `post` under `limits`. `body`: the text to send (a reply's or a note's content). */
export function statusText(
  post: Pick<SyndicationPost, 'url' | 'kind' | 'name' | 'text' | 'categories'>,
  limits: StatusLimits = DEFAULT_LIMITS,
): string {
  const max = limits.maxCharacters;
  if (post.kind === 'article' && post.name !== null && post.name.trim() !== '') {
    const head = `${post.name.trim()}\n\n`;
    const text =
      statusLength(head + post.url, limits) <= max
        ? head + post.url
        : `${cutAtWord(post.name.trim(), (cut) => statusLength(`${cut}… ${post.url}`, limits) <= max)}… ${post.url}`;
    return withHashtags(text, post.categories, limits);
  }
  const body = post.text.trim();
  if (statusLength(body, limits) <= max) return withHashtags(body, post.categories, limits);
  const tail = `… ${post.url}`;
  const cut = cutAtWord(body, (candidate) => statusLength(candidate + tail, limits) <= max);
  return withHashtags(`${cut}${tail}`, post.categories, limits);
}
