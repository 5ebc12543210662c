import { describe, expect, it } from 'vitest';
import { cardDescription, composePostText, displayUrl, hashtagOf, linkPieces, MAX_GRAPHEMES } from './text.js';
import { graphemeCount } from '../../core/graphemes.js';

const URL_ = 'https://example.com/2026/11/29/a-note';
const note = (text: string, categories: string[] = []) => composePostText({ url: URL_, name: null, text, categories });
/** The text a facet covers, by its byte offsets. */
const covered = (text: string, facet: { index: { byteStart: number; byteEnd: number } }) =>
  Buffer.from(text, 'utf8').subarray(facet.index.byteStart, facet.index.byteEnd).toString('utf8');

describe('composePostText', () => {
  it('sends a note that fits in full, without the permalink', () => {
    expect(note('Hello, Bluesky!')).toEqual({ text: 'Hello, Bluesky!', facets: [], shortened: false });
  });

  it('keeps exactly 300 graphemes (emoji and combining marks count once)', () => {
    const text = `${'é'.repeat(100)}${'👩‍👩‍👧'.repeat(100)}${'e\u0301'.repeat(100)}`;
    expect(graphemeCount(text)).toBe(300);
    expect(note(text)).toMatchObject({ text, shortened: false });
  });

  it('cuts a long note at a word, then … and the permalink as a link facet at its UTF-8 byte offsets', () => {
    const words = Array.from({ length: 80 }, (_, i) => `wörd${i}`).join(' ');
    const text = `Ünïcödé 🎉 ${words}`;
    const out = note(text);
    expect(out.shortened).toBe(true);
    expect(graphemeCount(out.text)).toBeLessThanOrEqual(MAX_GRAPHEMES);
    expect(out.text).toMatch(/^Ünïcödé 🎉 wörd0 .* wörd\d+… example\.com\/2026\/11\/29\/a\.\.\.$/u);
    expect(text.startsWith(out.text.slice(0, out.text.indexOf('…')))).toBe(true);
    expect(out.facets).toHaveLength(1);
    expect(out.facets[0]!.features).toEqual([{ $type: 'app.bsky.richtext.facet#link', uri: URL_ }]);
    expect(covered(out.text, out.facets[0]!)).toBe('example.com/2026/11/29/a...');
    expect(out.facets[0]!.index.byteEnd).toBe(Buffer.byteLength(out.text, 'utf8'));
  });

  it('never cuts inside a link: a link that no longer fits is left out whole', () => {
    const text = `${'word '.repeat(55)}https://example.org/${'x'.repeat(40)} and more words after it ${'tail '.repeat(20)}`;
    const out = note(text);
    expect(out.text).not.toContain('example.org');
    expect(out.facets.map((facet) => covered(out.text, facet))).toEqual(['example.com/2026/11/29/a...']);
  });

  it('cuts one word longer than the room between graphemes', () => {
    const out = note('🙂'.repeat(400));
    expect(out.text.startsWith('🙂'.repeat(250))).toBe(true);
    expect(graphemeCount(out.text)).toBeLessThanOrEqual(MAX_GRAPHEMES);
  });

  it('makes link facets of the URLs in the text, without the sentence punctuation after them', () => {
    const out = note('Read https://example.org/a/very/long/path/indeed. And (https://en.wikipedia.org/wiki/Mercury_(planet)), ok?');
    expect(out.text).toBe('Read example.org/a/very/long/.... And (en.wikipedia.org/wiki/Mercury...), ok?');
    expect(out.facets.map((facet) => [covered(out.text, facet), facet.features[0]])).toEqual([
      ['example.org/a/very/long/...', { $type: 'app.bsky.richtext.facet#link', uri: 'https://example.org/a/very/long/path/indeed' }],
      [
        'en.wikipedia.org/wiki/Mercury...',
        { $type: 'app.bsky.richtext.facet#link', uri: 'https://en.wikipedia.org/wiki/Mercury_(planet)' },
      ],
    ]);
  });

  it('sends an article as its name and permalink, with a link facet', () => {
    const out = composePostText({ url: URL_, name: '  Ünïcödé  title ', text: 'Body '.repeat(500), categories: [] });
    expect(out).toEqual({
      text: 'Ünïcödé title\n\nexample.com/2026/11/29/a...',
      facets: [{ index: { byteStart: 19, byteEnd: 46 }, features: [{ $type: 'app.bsky.richtext.facet#link', uri: URL_ }] }],
      shortened: true,
    });
  });

  it('cuts an article name that is too long, with …', () => {
    const out = composePostText({ url: URL_, name: 'title '.repeat(100), text: '', categories: [] });
    expect(out.text).toMatch(/^title( title)*…\n\nexample\.com\/2026\/11\/29\/a\.\.\.$/);
    expect(graphemeCount(out.text)).toBeLessThanOrEqual(MAX_GRAPHEMES);
  });

  it('adds categories as hashtag facets where they fit, once each, skipping ones already in the text', () => {
    const out = note('Hello #IndieWeb', ['indieweb', 'POSSE', 'posse', 'café au lait', 'https://alice.example/', '2026']);
    expect(out.text).toBe('Hello #IndieWeb\n\n#POSSE #caféaulait');
    expect(out.facets.map((facet) => [covered(out.text, facet), facet.features[0]])).toEqual([
      ['#POSSE', { $type: 'app.bsky.richtext.facet#tag', tag: 'POSSE' }],
      ['#caféaulait', { $type: 'app.bsky.richtext.facet#tag', tag: 'caféaulait' }],
    ]);
  });

  it('leaves out hashtags that do not fit', () => {
    const text = 'x'.repeat(290);
    expect(note(text, ['short', 'muchlongertag']).text).toBe(`${text}\n\n#short`);
  });
});

describe('displayUrl', () => {
  it.each([
    ['https://example.com', 'example.com'],
    ['https://example.com/', 'example.com'],
    ['http://example.com/short', 'example.com/short'],
    ['https://example.com/a/much/longer/path', 'example.com/a/much/longe...'],
  ])('%s → %s', (url, shown) => {
    expect(displayUrl(url)).toBe(shown);
  });
});

describe('linkPieces', () => {
  it('leaves text without URLs as one plain run', () => {
    expect(linkPieces('no links here, http:/ nor https://')).toEqual([{ text: 'no links here, http:/ nor https://' }]);
  });
});

describe('hashtagOf', () => {
  it.each([
    ['#tag', 'tag'],
    ['two words', 'twowords'],
    ['123', null],
    ['a/b', null],
    ['x'.repeat(65), null],
  ])('%s → %s', (category, tag) => {
    expect(hashtagOf(category)).toBe(tag);
  });
});

describe('cardDescription', () => {
  it('cuts at a word with …', () => {
    const out = cardDescription('word '.repeat(100));
    expect(out.endsWith('word…')).toBe(true);
    expect(graphemeCount(out)).toBeLessThanOrEqual(300);
  });
});
