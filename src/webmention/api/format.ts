/**
 * Mentions in webmention.io's answer shapes: JF2 entries (`mentions.jf2`),
 * the older `links` objects (`mentions.json`), and `count.json`. Field names
 * and shapes follow webmention.io's API; content HTML was sanitized when the
 * mention was parsed (or imported), and URLs other than http(s) are left out.
 * @module
 */
import { httpUrl } from '../../core/http-url.js';
import { capStored } from '../cap-mention.js';
import { wmPropertyOf } from '../mention-type.js';
import type { WebmentionRecord } from '../../storage/repositories/webmentions.js';

/** webmention.io's own type names (`link` for a mention, `rsvp-yes`… for an RSVP). */
export function activityType(record: Pick<WebmentionRecord, 'type' | 'rsvp'>): string {
  const type = record.type ?? 'mention';
  if (type === 'rsvp') return record.rsvp === null ? 'rsvp' : `rsvp-${record.rsvp}`;
  return type === 'mention' ? 'link' : type;
}

/** An instant as webmention.io writes `wm-received`: whole seconds, UTC, `Z`. */
export function receivedStamp(iso: string): string {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? iso : new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function contentOf(record: WebmentionRecord): { html?: string; text?: string } | undefined {
  const html = record.contentHtml ?? '';
  const text = record.contentText ?? '';
  if (html === '' && text === '') return undefined;
  return { ...(html === '' ? {} : { html }), ...(text === '' ? {} : { text }) };
}

/** One mention as a JF2 entry (a row from before the caps capped: cap-mention.ts). */
export function toJf2(stored: WebmentionRecord): Record<string, unknown> {
  const record = capStored(stored);
  const property = wmPropertyOf(record.type);
  const content = contentOf(record);
  return {
    type: 'entry',
    author: {
      type: 'card',
      name: record.author.name ?? '',
      photo: httpUrl(record.author.photo, Infinity) ?? '',
      url: httpUrl(record.author.url, Infinity) ?? '',
    },
    url: record.source,
    published: record.published,
    'wm-received': receivedStamp(record.createdAt),
    'wm-id': record.wmId,
    'wm-source': record.source,
    'wm-target': record.target,
    'wm-protocol': 'webmention',
    ...(content === undefined ? {} : { content }),
    // an RSVP names its value and replies to the target; every other kind names the target under its property
    ...(property === 'rsvp'
      ? { 'in-reply-to': record.target, ...(record.rsvp === null ? {} : { rsvp: record.rsvp }) }
      : { [property]: record.target }),
    'wm-property': property,
    'wm-private': false,
  };
}

export function toJf2Feed(records: readonly WebmentionRecord[]) {
  return { type: 'feed', name: 'Webmentions', children: records.map(toJf2) };
}

/** One mention in the older `links` shape of `mentions.json`. */
export function toLink(stored: WebmentionRecord): Record<string, unknown> {
  const record = capStored(stored);
  const author = { name: record.author.name, url: httpUrl(record.author.url, Infinity), photo: httpUrl(record.author.photo, Infinity) };
  const hasAuthor = author.name !== null || author.url !== null || author.photo !== null;
  const publishedMs = record.published === null ? Number.NaN : Date.parse(record.published);
  const type = activityType(record);
  return {
    source: record.source,
    verified: true,
    verified_date: record.verifiedAt ?? record.updatedAt,
    id: record.wmId,
    private: false,
    data: {
      ...(hasAuthor ? { author } : {}),
      url: record.source,
      name: null,
      content: record.contentHtml ?? record.contentText,
      published: record.published,
      published_ts: Number.isNaN(publishedMs) ? null : Math.floor(publishedMs / 1000),
      ...(record.type === 'rsvp' && record.rsvp !== null ? { rsvp: record.rsvp } : {}),
    },
    activity: { type: type.startsWith('rsvp') ? 'rsvp' : type },
    target: record.target,
  };
}

export function toLinks(records: readonly WebmentionRecord[]) {
  return { links: records.map(toLink) };
}

/** `count.json`: the total and the count of each webmention.io type (`mention` for plain links). */
export function toCount(groups: readonly { type: string; rsvp: string | null; count: number }[]) {
  const type: Record<string, number> = {};
  let count = 0;
  for (const group of groups) {
    const name = activityType(group);
    const key = name === 'link' ? 'mention' : name;
    type[key] = (type[key] ?? 0) + group.count;
    count += group.count;
  }
  return { count, type };
}
