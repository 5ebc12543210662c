import { describe, expect, it } from 'vitest';
import { hashtagOf, statusLength, statusText } from './text.js';

const base = { url: 'https://me.example/alice/2026/01/post/', kind: 'note', name: null, categories: [] as string[] };

describe('Mastodon status text', () => {
  it('counts graphemes, a URL as 23 (or the instance value) and @user@domain as @user', () => {
    expect(statusLength('👩‍👩‍👧‍👦 é')).toBe(3);
    expect(statusLength('see https://example.com/a/very/long/path/that/goes/on?and=on')).toBe(4 + 23);
    expect(statusLength('https://a.example', { maxCharacters: 500, urlLength: 30 })).toBe(30);
    expect(statusLength('hi @alice@social.example.org')).toBe('hi @alice'.length);
  });
  it('sends a note that fits in full, without the permalink', () => {
    expect(statusText({ ...base, text: 'Hello world' })).toBe('Hello world');
  });
  it('cuts a long note at a word boundary and appends the permalink, within the limit', () => {
    const text = `${'word '.repeat(200)}end`;
    const out = statusText({ ...base, text });
    expect(out.endsWith(`… ${base.url}`)).toBe(true);
    expect(statusLength(out)).toBeLessThanOrEqual(500);
    expect(out.slice(0, out.indexOf('…'))).toMatch(/word$/);
  });
  it('honours a smaller instance limit', () => {
    const out = statusText({ ...base, text: 'one two three four five six seven eight nine ten' }, { maxCharacters: 40, urlLength: 23 });
    expect(out).toBe(`one two three… ${base.url}`);
  });
  it('sends an article as its name and permalink', () => {
    expect(statusText({ ...base, kind: 'article', name: 'My article', text: 'long body '.repeat(100) })).toBe(`My article\n\n${base.url}`);
  });
  it('adds categories as hashtags where they fit', () => {
    expect(statusText({ ...base, text: 'Hi', categories: ['indieweb', 'two words', '123', 'indieweb'] })).toBe('Hi\n\n#indieweb #twowords');
    const full = 'x'.repeat(495);
    expect(statusText({ ...base, text: full, categories: ['long-tag', 'a'] })).toBe(`${full}\n\n#a`);
    expect(hashtagOf('C++')).toBe('#C');
  });
});
