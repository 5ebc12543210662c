/**
 * What the database handler reads out of an entry's properties besides
 * storing them: whether it is a draft or private (`core/visibility.ts`), when it was published, and the words
 * its URL's slug is made of. Nothing here adds to the properties: they are
 * stored exactly as the client sent them.
 * @module
 */
import type { MicropubProperties } from '../../../contracts/micropub-types.js';

/** Draft or published, private or not: the one rule of `core/visibility.ts` (the repository stores what it says on every write). */
export { postStatusOf, visibilityOf } from '../../../core/visibility.js';

function firstString(values: readonly unknown[] | undefined): string | undefined {
  return values?.find((value): value is string => typeof value === 'string' && value.trim() !== '');
}

/**
 * The entry's `published` value as an ISO UTC instant, or null when it has
 * none or it is not a date (RFC 3339 / ISO 8601 date or date-time; a time
 * without offset is taken as UTC).
 */
export function publishedOf(properties: MicropubProperties): string | null {
  const raw = firstString(properties.published)?.trim();
  if (raw === undefined) return null;
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/i.exec(raw);
  if (match === null) return null;
  const [, yyyy, MM, dd, HH = '00', mm = '00', ss = '00', fraction = '', zone = 'Z'] = match;
  // Date.parse rolls 2026-02-30 over to March: a date that does not exist is no date
  const daysInMonth = new Date(Date.UTC(Number(yyyy), Number(MM), 0)).getUTCDate();
  if (
    Number(MM) < 1 ||
    Number(MM) > 12 ||
    Number(dd) < 1 ||
    Number(dd) > daysInMonth ||
    Number(HH) > 23 ||
    Number(mm) > 59 ||
    Number(ss) > 59
  )
    return null;
  const offset = zone.toUpperCase() === 'Z' ? 'Z' : zone.includes(':') ? zone : `${zone.slice(0, 3)}:${zone.slice(3)}`;
  const text = `${yyyy}-${MM}-${dd}T${HH}:${mm}:${ss}${fraction.slice(0, 4)}${offset}`;
  const time = Date.parse(text);
  if (Number.isNaN(time)) return null;
  return new Date(time).toISOString();
}

/** Text of a value: a string, or an object's `value` / `name` (such as `{ html, value }`). */
function textOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value !== 'object' || value === null) return undefined;
  const inner = (value as Record<string, unknown>).value;
  return typeof inner === 'string' ? inner : undefined;
}

/** Words for the slug, in order of preference: `mp-slug`, `name`, the start of `content` or `summary`. */
export function slugSource(properties: MicropubProperties): string[] {
  const candidates: string[] = [];
  for (const name of ['mp-slug', 'name', 'content', 'summary']) {
    const text = properties[name]?.map(textOf).find((value) => value !== undefined && value.trim() !== '');
    // a slug from content keeps its first few words
    if (text !== undefined)
      candidates.push(name === 'content' || name === 'summary' ? text.trim().split(/\s+/).slice(0, 8).join(' ') : text);
  }
  return candidates;
}
