/**
 * The pages an entry links to, as a sender of webmentions sees them: the
 * values of `in-reply-to`, `like-of`, `repost-of` and `bookmark-of` (URLs or
 * embedded h-cites), and the links in its content (`<a href>` of the HTML,
 * else the URLs in the text). `syndication` is not a target (those copies are
 * the author's own). A draft or private entry links to nothing: it is not
 * public, so nobody is told about it.
 * @module
 */
import type { MicropubEntry } from '../../contracts/micropub-types.js';
import { trimEndOf } from '../../core/text.js';
import { resolveHttpUrl } from '../../core/url.js';
import { audienceOf, isEntryListed } from '../../core/visibility.js';
import { hrefs, parseHtml } from '../../html/tree.js';

export const TARGET_PROPERTIES = ['in-reply-to', 'like-of', 'repost-of', 'bookmark-of'] as const;
/** More targets than this in one entry are left out (a flood of webmentions from one post helps nobody). */
export const MAX_TARGETS_PER_ENTRY = 100;

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A URL in running text: up to whitespace or a character that cannot end one in prose. */
const URL_IN_TEXT = /\bhttps?:\/\/[^\s<>"'`]+/gi;
/** Characters that end a sentence rather than a URL, when they close it. */
const SENTENCE_END = '.,;:!?)]';

/**
 * Whether sending may tell anyone about the entry: only a listed one (`core/visibility.ts`, the rule of
 * the pages and feeds, for every handler's entries): not a draft, not private, not unlisted (a mention
 * would make its URL known), `post-status` and `visibility` read trimmed and lower-cased.
 */
export function isPublic(entry: Pick<MicropubEntry, 'properties'>): boolean {
  return isEntryListed(audienceOf(entry.properties));
}

/** URLs named by a reply/like/repost/bookmark value: a string, `{value}`, or an embedded item's `url`. */
function urlsOfValue(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (!isObject(value)) return [];
  const properties = value.properties;
  if (isObject(properties) && Array.isArray(properties.url)) return properties.url.filter((url): url is string => typeof url === 'string');
  return typeof value.value === 'string' ? [value.value] : [];
}

function urlsInText(text: string): string[] {
  // punctuation that ends a sentence is not part of the link; trimmed in one backward pass (a
  // `/[.,;:!?)\]]+$/` retried at every dot of a long run: quadratic, issue 28 F5)
  return [...text.matchAll(URL_IN_TEXT)].map((match) => trimEndOf(match[0], SENTENCE_END));
}

function urlsOfContent(value: unknown): string[] {
  if (typeof value === 'string') return urlsInText(value);
  if (!isObject(value)) return [];
  if (typeof value.html === 'string' && value.html !== '') return hrefs(parseHtml(value.html));
  return typeof value.value === 'string' ? urlsInText(value.value) : [];
}

function withoutFragment(url: string): string {
  const parsed = new URL(url);
  parsed.hash = '';
  return parsed.href;
}

/**
 * The distinct absolute http(s) targets of an entry, in the order they
 * appear (properties first, then content), fragments dropped, relative links
 * resolved against the entry's URL, the entry itself left out; none for an
 * entry that is not public.
 */
export function linkTargets(entry: MicropubEntry): string[] {
  if (!isPublic(entry)) return [];
  const candidates: string[] = [];
  for (const name of TARGET_PROPERTIES) for (const value of entry.properties[name] ?? []) candidates.push(...urlsOfValue(value));
  for (const value of entry.properties.content ?? []) candidates.push(...urlsOfContent(value));
  const self = resolveHttpUrl(entry.url);
  const targets = new Set<string>();
  for (const candidate of candidates) {
    const resolved = resolveHttpUrl(candidate.trim(), entry.url);
    if (resolved === null) continue;
    const target = withoutFragment(resolved);
    if (self !== null && target === withoutFragment(self)) continue;
    targets.add(target);
    if (targets.size >= MAX_TARGETS_PER_ENTRY) break;
  }
  return [...targets];
}
