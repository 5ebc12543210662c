/**
 * Post-type discovery: the one answer to "what kind of post is this entry?"
 * used by the Write area, the content handlers (templates, fallback slugs)
 * and the entry pages.
 *
 * The order follows the W3C Post Type Discovery algorithm (rsvp, reply,
 * repost, like, video, photo, then article or note), extended with the kinds
 * SPEC.md's built-in handler also offers: `event` first (the entry's type is
 * `h-event`), `bookmark` after `like`, `audio` between `video` and `photo`.
 * So a reply that also likes is a `reply`. A property counts only when it has
 * at least one value; an entry is an `article` when its `name` has a
 * non-blank text.
 * @see https://www.w3.org/TR/post-type-discovery/
 * @see docs/micropub.md "Post kinds"
 * @module
 */

/** Every post kind, in the order discovery tries them. */
export const POST_KINDS = ['event', 'rsvp', 'reply', 'repost', 'like', 'bookmark', 'video', 'audio', 'photo', 'article', 'note'] as const;
export type PostKind = (typeof POST_KINDS)[number];

/** The property whose presence makes each property-based kind, in discovery order. */
const BY_PROPERTY: readonly (readonly [string, PostKind])[] = [
  ['rsvp', 'rsvp'],
  ['in-reply-to', 'reply'],
  ['repost-of', 'repost'],
  ['like-of', 'like'],
  ['bookmark-of', 'bookmark'],
  ['video', 'video'],
  ['audio', 'audio'],
  ['photo', 'photo'],
];

/** A word for each kind, as a heading shows it. */
export const POST_KIND_LABELS: Readonly<Record<PostKind, string>> = {
  event: 'Event',
  rsvp: 'RSVP',
  reply: 'Reply',
  repost: 'Repost',
  like: 'Like',
  bookmark: 'Bookmark',
  video: 'Video',
  audio: 'Audio',
  photo: 'Photo',
  article: 'Article',
  note: 'Note',
};

/** The kind of an entry of microformats `type` (e.g. `['h-entry']`) with these properties. */
export function postKindOf(type: readonly string[], properties: Readonly<Record<string, readonly unknown[] | undefined>>): PostKind {
  if (type.includes('h-event')) return 'event';
  for (const [name, kind] of BY_PROPERTY) {
    if ((properties[name]?.length ?? 0) > 0) return kind;
  }
  const named = properties.name?.some((value) => typeof value === 'string' && value.trim() !== '') ?? false;
  return named ? 'article' : 'note';
}
