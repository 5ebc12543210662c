/**
 * Post-type discovery, one answer everywhere (issue 29 item 3): the Write
 * area, the files handler's templates, the entry page heading and the
 * database handler's fallback slug all name the same kind for the same entry.
 */
import { describe, expect, it } from 'vitest';
import { postTypeOf } from '../../src/admin/write/post-types.js';
import { baseSlug } from '../../src/content/handlers/database/entry-urls.js';
import { detectPostType } from '../../src/content/handlers/files/templates.js';
import { postKind } from '../../src/entries/h-entry.js';
import type { EntryRow } from '../../src/entries/entry-source.js';

const url = 'https://other.example/post';
// [what the entry is, its type, its properties, the decided kind]
const table: [string, string[], Record<string, unknown[]>, string][] = [
  ['a plain note', ['h-entry'], { content: ['hi'] }, 'note'],
  ['an article', ['h-entry'], { name: ['Title'], content: ['body'] }, 'article'],
  ['an entry whose name is blank', ['h-entry'], { name: ['  '], content: ['body'] }, 'note'],
  ['an event', ['h-event'], { name: ['Party'] }, 'event'],
  ['an event that replies', ['h-event'], { 'in-reply-to': [url] }, 'event'],
  ['an rsvp (it also replies)', ['h-entry'], { rsvp: ['yes'], 'in-reply-to': [url] }, 'rsvp'],
  ['a reply', ['h-entry'], { 'in-reply-to': [url] }, 'reply'],
  ['a reply that also likes', ['h-entry'], { 'in-reply-to': [url], 'like-of': [url] }, 'reply'],
  ['a repost that also likes', ['h-entry'], { 'repost-of': [url], 'like-of': [url] }, 'repost'],
  ['a like', ['h-entry'], { 'like-of': [url] }, 'like'],
  ['a like that also bookmarks', ['h-entry'], { 'like-of': [url], 'bookmark-of': [url] }, 'like'],
  ['a bookmark', ['h-entry'], { 'bookmark-of': [url] }, 'bookmark'],
  ['a bookmark with a photo', ['h-entry'], { 'bookmark-of': [url], photo: ['https://me.example/a.jpg'] }, 'bookmark'],
  ['a video with a photo', ['h-entry'], { video: ['v.mp4'], photo: ['p.jpg'] }, 'video'],
  ['an audio with a photo', ['h-entry'], { audio: ['a.mp3'], photo: ['p.jpg'] }, 'audio'],
  ['a photo', ['h-entry'], { photo: ['p.jpg'] }, 'photo'],
  ['an empty like-of list', ['h-entry'], { 'like-of': [] }, 'note'],
];

function row(type: string[], properties: Record<string, unknown[]>): EntryRow {
  return { type, properties } as unknown as EntryRow;
}

describe('post kinds', () => {
  it.each(table)('the Write area names %s %#', (_what, type, properties, kind) => {
    expect(postTypeOf(type, properties)).toBe(kind);
  });
  it.each(table)('the files handler names %s %#', (_what, type, properties, kind) => {
    expect(detectPostType(type, properties)).toBe(kind);
  });
  it.each(table.filter(([, , properties]) => properties.name === undefined))(
    'the entry page heads %s %#',
    (_what, type, properties, kind) => {
      expect(postKind(row(type, properties)).toLowerCase()).toBe(kind);
    },
  );
  it.each(table.filter(([, , properties]) => properties.name === undefined && properties.content === undefined))(
    'an entry with nothing to make a slug from gets its kind: %s %#',
    (_what, type, properties, kind) => {
      expect(baseSlug(type, properties)).toBe(kind);
    },
  );
});
