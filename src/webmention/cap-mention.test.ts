import sanitizeHtml from 'sanitize-html';
import { describe, expect, it } from 'vitest';
import { capHtml, capMention, capPublished, capStored, capText, capUrl, MENTION_CAPS } from './cap-mention.js';
import { sanitizeContent } from './mention-html.js';

const points = (text: string) => [...text].length;
const base = {
  author: { name: 'Ann', url: 'https://ann.example/', photo: 'https://ann.example/me.png' },
  contentText: 'hi',
  contentHtml: '<p>hi</p>',
  published: '2026-02-03T04:05:06Z',
  rsvp: 'yes',
};

describe('capMention: one cap per field', () => {
  it('leaves a real mention as it is', () => {
    expect(capMention(base)).toEqual(base);
  });

  it('content text: at most 4096 code points, ending in …, never half a surrogate pair or grapheme', () => {
    const emoji = '👩‍👩‍👧';
    const capped = capMention({ ...base, contentText: 'a'.repeat(4094) + emoji.repeat(1000) }).contentText!;
    expect(points(capped)).toBeLessThanOrEqual(MENTION_CAPS.contentText);
    expect(capped.endsWith('…')).toBe(true);
    expect(capped).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|\u200D…$/);
    expect(capped).toBe(`${'a'.repeat(4094)}…`);
  });

  it('content HTML: at most 16 KiB of sanitized, valid HTML with … after it, even cut inside a tag or with a script at the cut', () => {
    const html = '<p>' + 'word <b>bold</b> '.repeat(2000) + '<script>alert(1)</script><a href="javascript:x">x</a></p>';
    const capped = capMention({ ...base, contentHtml: html }).contentHtml!;
    expect(capped.length).toBeLessThanOrEqual(MENTION_CAPS.contentHtml);
    expect(capped.endsWith('…')).toBe(true);
    expect(capped).toBe(sanitizeContent(capped));
    expect(capped).not.toMatch(/<script|javascript:/);
    for (let cut = 1; cut < 40; cut++) {
      const small = capHtml('<p>one <a href="https://x.example/">two &amp; three</a></p>'.repeat(3), 60 + cut);
      expect(small.length).toBeLessThanOrEqual(60 + cut);
      expect(small).toBe(sanitizeContent(small));
      // well formed: every tag opened is closed
      expect(sanitizeHtml(small, { allowedTags: false as unknown as string[], allowedAttributes: false })).toBe(small);
    }
  });

  it('the author name: at most 256 code points', () => {
    const capped = capMention({ ...base, author: { ...base.author, name: 'n'.repeat(10_000) } }).author!.name!;
    expect(points(capped)).toBe(MENTION_CAPS.name);
    expect(capped.endsWith('…')).toBe(true);
  });

  it('author URL and photo: dropped when longer than 2048 characters or not http(s)', () => {
    const long = `https://ann.example/${'a'.repeat(2100)}`;
    expect(capMention({ ...base, author: { name: 'Ann', url: long, photo: 'javascript:alert(1)' } }).author).toEqual({
      name: 'Ann',
      url: null,
      photo: null,
    });
    expect(capUrl('https://ann.example/')).toBe('https://ann.example/');
  });

  it('published: a date or date-time, else null (never markup or arbitrary text)', () => {
    for (const good of [
      '2026-02-03',
      '2026-02-03T04:05:06Z',
      '2026-02-03 04:05',
      '2026-02-03T04:05:06.123+01:00',
      '2026-02-03T04:05:06-0500',
    ])
      expect(capPublished(good), good).toBe(good);
    for (const bad of [
      '<script>alert(1)</script>',
      'yesterday',
      '2026-13-45',
      '2026-02-03T04:05:06Z<b>',
      `2026-02-03T04:05:06.${'1'.repeat(80)}Z`,
    ])
      expect(capPublished(bad), bad).toBeNull();
    expect(capMention({ ...base, published: '<img src=x onerror=alert(1)>' }).published).toBeNull();
  });

  it('rsvp: one of yes, no, maybe, interested, else null', () => {
    expect(capMention({ ...base, rsvp: 'YES' }).rsvp).toBe('yes');
    expect(capMention({ ...base, rsvp: '<b>sure</b>' }).rsvp).toBeNull();
  });

  it('text cut costs what is kept, not the whole input (a 5 MB text)', () => {
    expect(points(capText('x'.repeat(5_000_000), 100))).toBe(100);
  });

  it('capStored: a row stored before the caps is capped when read; a capped one is returned as it is', () => {
    const old = { ...base, contentHtml: `<p>${'a'.repeat(1_000_000)}</p>`, contentText: 'b'.repeat(1_000_000), published: '<b>then</b>' };
    const shown = capStored(old);
    expect(shown.contentHtml!.length).toBeLessThanOrEqual(MENTION_CAPS.contentHtml);
    expect(points(shown.contentText!)).toBeLessThanOrEqual(MENTION_CAPS.contentText);
    expect(shown.published).toBeNull();
    expect(capStored(base)).toBe(base);
  });
});
