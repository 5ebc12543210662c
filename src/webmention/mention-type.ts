/**
 * The type of a received mention and the `wm-property` that names it, in
 * both directions — one table for the parser, the read APIs and the import.
 *
 * The one difference, on purpose: an RSVP is a reply that carries `rsvp`.
 * webmention.io (and so the compatible API and its exports) name its
 * `wm-property` `rsvp`; indiestack's own read API (`GET /webmention/?target=`)
 * names the property that links the target, `in-reply-to`, as the jf2 of the
 * source says it. Both read `rsvp` back as the type `rsvp`.
 * @see docs/webmention.md "Status view and read API", "webmention.io-compatible API"
 * @module
 */

/** Every stored mention type. */
export const MENTION_TYPES = ['reply', 'like', 'repost', 'bookmark', 'mention', 'rsvp'] as const;
export type MentionType = (typeof MENTION_TYPES)[number];

/** The response properties of a source entry, in the order they decide its type (a reply that also likes is a reply). */
export const RESPONSE_PROPERTIES: readonly (readonly [property: string, type: MentionType])[] = [
  ['in-reply-to', 'reply'],
  ['like-of', 'like'],
  ['repost-of', 'repost'],
  ['bookmark-of', 'bookmark'],
];

/** webmention.io's `wm-property` of each type (an RSVP is `rsvp`). */
const WM_PROPERTY: Readonly<Record<MentionType, string>> = {
  reply: 'in-reply-to',
  like: 'like-of',
  repost: 'repost-of',
  bookmark: 'bookmark-of',
  rsvp: 'rsvp',
  mention: 'mention-of',
};

/** `wm-property` → type; the keys are every `wm-property` a request or an import may name. */
const TYPE_OF_WM_PROPERTY: ReadonlyMap<string, MentionType> = new Map(MENTION_TYPES.map((type) => [WM_PROPERTY[type], type]));

/** The `wm-property` values accepted in a query or an import, in order. */
export const WM_PROPERTIES: readonly string[] = [...TYPE_OF_WM_PROPERTY.keys()];

function typeOrMention(type: string | null | undefined): MentionType {
  return (MENTION_TYPES as readonly (string | null | undefined)[]).includes(type) ? (type as MentionType) : 'mention';
}

/** The `wm-property` as webmention.io writes it: an RSVP is `rsvp`; an unknown or missing type is `mention-of`. */
export function wmPropertyOf(type: string | null | undefined): string {
  return WM_PROPERTY[typeOrMention(type)];
}

/** The `wm-property` of indiestack's own read API: the property linking the target, so an RSVP is `in-reply-to`. */
export function linkingPropertyOf(type: string | null | undefined): string {
  const kind = typeOrMention(type);
  return kind === 'rsvp' ? 'in-reply-to' : WM_PROPERTY[kind];
}

/** The type a `wm-property` stands for (`rsvp` → `rsvp`), or undefined when it names none. */
export function mentionTypeOfWmProperty(property: string): MentionType | undefined {
  return TYPE_OF_WM_PROPERTY.get(property);
}
