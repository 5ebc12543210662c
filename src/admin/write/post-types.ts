/**
 * The post types of the Write area (SPEC.md's table of the built-in
 * handler's post types), what each form shows, and which type an existing
 * entry is.
 * @module
 */
import type { MicropubProperties } from '../../contracts/micropub-types.js';
import { postKindOf } from '../../core/post-kind.js';

export const POST_TYPES = ['note', 'article', 'photo', 'audio', 'video', 'reply', 'bookmark', 'like', 'repost', 'event', 'rsvp'] as const;
export type PostType = (typeof POST_TYPES)[number];

/** The text fields of the forms, by Micropub property name. */
export const TEXT_FIELDS = [
  'name',
  'summary',
  'content',
  'description',
  'in-reply-to',
  'bookmark-of',
  'like-of',
  'repost-of',
  'rsvp',
  'start',
  'end',
  'location',
  'url',
] as const;
export type TextField = (typeof TEXT_FIELDS)[number];

/** The properties that are one cited URL (a reply's, a bookmark's …). */
export const CITED_URL_FIELDS: readonly TextField[] = ['in-reply-to', 'bookmark-of', 'like-of', 'repost-of'];

/** Fields that hold an absolute http(s) URL. */
export const URL_FIELDS: ReadonlySet<string> = new Set(['in-reply-to', 'bookmark-of', 'like-of', 'repost-of', 'url']);

export const MEDIA_KINDS = ['photo', 'audio', 'video'] as const;
export type MediaKind = (typeof MEDIA_KINDS)[number];

export const RSVP_VALUES = ['yes', 'no', 'maybe', 'interested'] as const;

export interface PostTypeForm {
  readonly label: string;
  /** The text fields shown, in order. */
  readonly fields: readonly TextField[];
  /** Fields that must not be empty. */
  readonly required: readonly TextField[];
  /** Media the form uploads (photo: several, with alt text). */
  readonly media: MediaKind | null;
  /** Whether the form offers categories. */
  readonly categories: boolean;
  /** The microformats type sent (`h-entry` but for events). */
  readonly h: 'h-entry' | 'h-event';
}

export const POST_TYPE_FORMS: Readonly<Record<PostType, PostTypeForm>> = {
  note: { label: 'Note', fields: ['content'], required: ['content'], media: null, categories: true, h: 'h-entry' },
  article: {
    label: 'Article',
    fields: ['name', 'summary', 'content'],
    required: ['name', 'content'],
    media: null,
    categories: true,
    h: 'h-entry',
  },
  photo: { label: 'Photo', fields: ['content'], required: [], media: 'photo', categories: true, h: 'h-entry' },
  audio: { label: 'Audio', fields: ['content'], required: [], media: 'audio', categories: true, h: 'h-entry' },
  video: { label: 'Video', fields: ['content'], required: [], media: 'video', categories: true, h: 'h-entry' },
  reply: {
    label: 'Reply',
    fields: ['in-reply-to', 'content'],
    required: ['in-reply-to', 'content'],
    media: null,
    categories: true,
    h: 'h-entry',
  },
  bookmark: {
    label: 'Bookmark',
    fields: ['bookmark-of', 'name', 'content'],
    required: ['bookmark-of'],
    media: null,
    categories: true,
    h: 'h-entry',
  },
  like: { label: 'Like', fields: ['like-of'], required: ['like-of'], media: null, categories: false, h: 'h-entry' },
  repost: { label: 'Repost', fields: ['repost-of'], required: ['repost-of'], media: null, categories: false, h: 'h-entry' },
  event: {
    label: 'Event',
    fields: ['name', 'summary', 'description', 'start', 'end', 'location', 'url'],
    required: ['name', 'start'],
    media: null,
    categories: true,
    h: 'h-event',
  },
  rsvp: {
    label: 'RSVP',
    fields: ['in-reply-to', 'rsvp', 'name', 'content'],
    required: ['in-reply-to', 'rsvp'],
    media: null,
    categories: true,
    h: 'h-entry',
  },
};

export const FIELD_LABELS: Readonly<Record<TextField, string>> = {
  name: 'Title',
  summary: 'Summary',
  content: 'Text',
  description: 'Description',
  'in-reply-to': 'In reply to (URL)',
  'bookmark-of': 'Bookmarked page (URL)',
  'like-of': 'Liked page (URL)',
  'repost-of': 'Reposted page (URL)',
  rsvp: 'Your answer',
  start: 'Starts',
  end: 'Ends',
  location: 'Location (a place, or a geo: URI)',
  url: 'Event page (URL)',
};

export function isPostType(value: unknown): value is PostType {
  return typeof value === 'string' && (POST_TYPES as readonly string[]).includes(value);
}

/** The post type of an existing entry: the one post-type discovery, every Write-area type is a post kind. */
export function postTypeOf(type: readonly string[], properties: MicropubProperties): PostType {
  return postKindOf(type, properties);
}
