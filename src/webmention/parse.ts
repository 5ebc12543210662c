/**
 * From a fetched source page to what the mention says: does it link to the
 * target (href attributes, canonical matching), what kind of response it is,
 * who wrote it, and its content as text and as sanitised HTML.
 * @module
 */
import { mf2 } from 'microformats-parser';
import type { ParsedMention } from '../storage/repositories/webmentions.js';
import { allItems, extractAuthor, hasType, isItem, textOf, type Mf2Document, type Mf2Item } from './author.js';
import { canonicalUrl } from './canonical-url.js';
import { RESPONSE_PROPERTIES } from './mention-type.js';
import { hrefs, parseHtml } from '../html/tree.js';
import { assertReadableShape } from '../html/shape.js';
import { sanitizeContent } from './mention-html.js';

/** Every value of a property that names the target (strings, `{value}`, or embedded items' urls). */
function mentionsTarget(values: readonly unknown[] | undefined, target: string, base: string): boolean {
  for (const value of values ?? []) {
    const candidates = isItem(value) ? (value.properties?.url ?? []).map(textOf) : [textOf(value)];
    if (candidates.some((candidate) => candidate !== null && canonicalUrl(candidate, base) === target)) return true;
  }
  return false;
}

export interface SourceReading {
  /** Does any href in the page point at the target? */
  readonly linksToTarget: boolean;
  readonly mention: ParsedMention;
}

export function readSource(html: string, finalUrl: string, target: string): SourceReading {
  const targetKey = canonicalUrl(target);
  const tree = parseHtml(html);
  assertReadableShape(tree);
  const linksToTarget = targetKey !== null && hrefs(tree).some((href) => canonicalUrl(href, finalUrl) === targetKey);

  const doc = mf2(html, { baseUrl: finalUrl }) as unknown as Mf2Document;
  const entries = allItems(doc.items).filter((item) => hasType(item, 'h-entry'));
  // the mentioning entry: one whose properties name the target, else one whose content links to it, else the first
  // content markup is parsed again only up to twice the page's size in all, so nesting cannot make it quadratic
  let markupBudget = 2 * html.length;
  const linksInContent = (item: Mf2Item) =>
    (item.properties?.content ?? []).some((value) => {
      const markup = typeof value === 'object' && value !== null ? (value as { html?: unknown }).html : undefined;
      if (typeof markup !== 'string' || markup.length > markupBudget) return false;
      markupBudget -= markup.length;
      return hrefs(parseHtml(markup)).some((href) => canonicalUrl(href, finalUrl) === targetKey);
    });
  const entry: Mf2Item | null =
    entries.find((item) =>
      Object.values(item.properties ?? {}).some((values) => targetKey !== null && mentionsTarget(values, targetKey, finalUrl)),
    ) ??
    entries.find(linksInContent) ??
    entries[0] ??
    null;

  let type = 'mention';
  if (entry !== null && targetKey !== null) {
    for (const [property, name] of RESPONSE_PROPERTIES) {
      if (mentionsTarget(entry.properties?.[property], targetKey, finalUrl)) {
        type = name;
        break;
      }
    }
    if (type === 'reply' && (entry.properties?.rsvp?.length ?? 0) > 0) type = 'rsvp';
  }
  // the RSVP values of the spec; anything else is kept as no value
  const rsvpValue = type === 'rsvp' ? textOf(entry?.properties?.rsvp?.[0])?.trim().toLowerCase() : undefined;
  const rsvp = rsvpValue !== undefined && ['yes', 'no', 'maybe', 'interested'].includes(rsvpValue) ? rsvpValue : null;

  const content = entry?.properties?.content?.[0];
  let contentText: string | null = null;
  let contentHtml: string | null = null;
  if (typeof content === 'object' && content !== null && typeof (content as { html?: unknown }).html === 'string') {
    contentHtml = sanitizeContent((content as { html: string }).html);
    contentText = textOf(content);
  } else if (content !== undefined) {
    contentText = textOf(content);
  } else if (entry !== null) {
    contentText = textOf(entry.properties?.summary?.[0]) ?? textOf(entry.properties?.name?.[0]);
  }

  return {
    linksToTarget,
    mention: {
      type,
      author: extractAuthor({ doc, entry, base: finalUrl, tree }),
      contentText: contentText?.trim() ?? null,
      contentHtml,
      published: textOf(entry?.properties?.published?.[0]),
      rsvp,
    },
  };
}
