/**
 * An entry reduced to what a silo can show ({@link SyndicationPost}): its
 * kind, name, content as plain text, categories, photos with their alt text,
 * and the silo post it replies to, likes or reposts.
 * @module
 */
import type { MicropubEntry } from '../contracts/micropub-types.js';
import { postKindOf } from '../core/post-kind.js';
import { replaceTags } from '../core/text.js';
import type { SyndicationPhoto, SyndicationPost } from './client.js';

const ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', '#39': "'" };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z]{2,6}|#39);/gi, (whole, name: string) => {
    const lower = name.toLowerCase();
    if (lower.startsWith('#x')) return safeCodePoint(Number.parseInt(lower.slice(2), 16)) ?? whole;
    if (lower.startsWith('#') && lower !== '#39') return safeCodePoint(Number(lower.slice(1))) ?? whole;
    return ENTITIES[lower] ?? whole;
  });
}

function safeCodePoint(code: number): string | null {
  return Number.isInteger(code) && code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? String.fromCodePoint(code) : null;
}

/** HTML as plain text: block ends and `<br>` as line breaks, other tags dropped, entities decoded. */
export function htmlToText(html: string): string {
  const broken = html.replace(/<br\s*\/?>/gi, '\n').replace(/<\/(p|div|li|h[1-6]|blockquote|pre)\s*>/gi, '\n\n');
  return (
    decodeEntities(replaceTags(broken))
      .replace(/[ \t]+/g, ' ')
      // the line above left runs of one space at most, so one on either side of a line break is all there is
      .replace(/ ?\n ?/g, '\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim()
  );
}

function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    if (typeof record.html === 'string') return htmlToText(record.html);
    if (typeof record.value === 'string') return record.value;
  }
  return '';
}

function firstUrl(values: readonly unknown[] | undefined): string | null {
  for (const value of values ?? []) {
    if (typeof value === 'string' && /^https?:\/\//i.test(value)) return value;
    const url = (value as { url?: unknown; value?: unknown } | null)?.url ?? (value as { value?: unknown } | null)?.value;
    if (typeof url === 'string' && /^https?:\/\//i.test(url)) return url;
    const nested = (value as { properties?: { url?: unknown[] } } | null)?.properties?.url?.[0];
    if (typeof nested === 'string' && /^https?:\/\//i.test(nested)) return nested;
  }
  return null;
}

/** The entry as it goes out; `readPhoto` reads one of our stored photos (null when it is not ours). */
export function syndicationPostOf(
  entry: MicropubEntry,
  readPhoto: (url: string) => Promise<{ bytes: Buffer; type: string } | null>,
): SyndicationPost {
  const properties = entry.properties;
  const kind = postKindOf(entry.type, properties);
  const name = textOf(properties.name?.[0]).trim();
  const alts = (properties['mp-photo-alt'] ?? []).map((value) => (typeof value === 'string' ? value : ''));
  const photos: SyndicationPhoto[] = [];
  (properties.photo ?? []).forEach((value, index) => {
    const url = typeof value === 'string' ? value : (value as { value?: unknown } | null)?.value;
    if (typeof url !== 'string' || !/^https?:\/\//i.test(url)) return;
    const alt =
      typeof value === 'object' && value !== null && typeof (value as { alt?: unknown }).alt === 'string'
        ? (value as { alt: string }).alt
        : (alts[index] ?? '');
    photos.push({ url, alt, read: () => readPhoto(url) });
  });
  return {
    url: entry.url,
    kind,
    name: kind === 'article' && name !== '' ? name : null,
    text: textOf(properties.content?.[0] ?? properties.summary?.[0]).trim(),
    categories: (properties.category ?? []).filter((value): value is string => typeof value === 'string' && value.trim() !== ''),
    photos,
    inReplyTo: firstUrl(properties['in-reply-to']),
    likeOf: firstUrl(properties['like-of']),
    repostOf: firstUrl(properties['repost-of']),
  };
}
