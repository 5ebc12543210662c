/**
 * Mention type ↔ `wm-property` (issue 29 item 3): one table for the parser,
 * the read API, the webmention.io-compatible API and the import, with the one
 * RSVP difference named.
 */
import { describe, expect, it } from 'vitest';
import { ExportFormatError, readExport } from '../../src/webmention/transfer/read-export.js';
import { linkingPropertyOf, mentionTypeOfWmProperty, WM_PROPERTIES, wmPropertyOf } from '../../src/webmention/mention-type.js';

// [stored type, webmention.io's wm-property, the read API's wm-property]
const table: [string | null, string, string][] = [
  ['reply', 'in-reply-to', 'in-reply-to'],
  ['like', 'like-of', 'like-of'],
  ['repost', 'repost-of', 'repost-of'],
  ['bookmark', 'bookmark-of', 'bookmark-of'],
  ['rsvp', 'rsvp', 'in-reply-to'],
  ['mention', 'mention-of', 'mention-of'],
  [null, 'mention-of', 'mention-of'],
];

describe('mention types', () => {
  it.each(table)('%s is wm-property %s in the compatible API and %s in the read API', (type, compatible, own) => {
    expect(wmPropertyOf(type)).toBe(compatible);
    expect(linkingPropertyOf(type)).toBe(own);
  });

  it.each(table.filter(([type]) => type !== null))('wm-property %s reads back as %s', (type, compatible) => {
    expect(mentionTypeOfWmProperty(compatible)).toBe(type);
  });

  it('accepts exactly the documented wm-property values, and nothing from the prototype', () => {
    expect(WM_PROPERTIES).toEqual(['in-reply-to', 'like-of', 'repost-of', 'bookmark-of', 'mention-of', 'rsvp']);
    expect(mentionTypeOfWmProperty('constructor')).toBeUndefined();
    expect(mentionTypeOfWmProperty('link')).toBeUndefined();
  });

  it('an import reads an rsvp back as an rsvp and refuses a wm-property or activity type it does not know, even one named like a built-in', () => {
    const entry = (property: string) =>
      JSON.stringify({
        type: 'feed',
        children: [
          {
            type: 'entry',
            'wm-source': 'https://a.example/1',
            'wm-target': 'https://b.example/2',
            'wm-received': '2026-01-01T00:00:00Z',
            'wm-property': property,
            rsvp: 'yes',
          },
        ],
      });
    expect(readExport(entry('rsvp')).mentions[0]?.type).toBe('rsvp');
    expect(readExport(entry('in-reply-to')).mentions[0]?.type).toBe('reply');
    expect(() => readExport(entry('constructor'))).toThrow(ExportFormatError);
    expect(() => readExport(entry('constructor'))).toThrow(
      'wm-property is not one of in-reply-to, like-of, repost-of, bookmark-of, mention-of, rsvp',
    );
    const link = (type: string) =>
      JSON.stringify({
        links: [
          { source: 'https://a.example/1', target: 'https://b.example/2', verified_date: '2026-01-01T00:00:00Z', activity: { type } },
        ],
      });
    expect(() => readExport(link('toString'))).toThrow(ExportFormatError);
  });
});
