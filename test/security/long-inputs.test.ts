/**
 * Issue 28, class 2: every function that runs a regular expression over post
 * or mention text (or a URL or name taken from one) is given 200 KB or more of
 * hostile text (runs of `<`, dots, `&`, spaces, hyphens, slashes, nested
 * brackets) and must give the right answer. No timing is asserted: the old
 * quadratic code ran far past the test timeout on these inputs.
 */
import { describe, expect, it } from 'vitest';
import { readCitation } from '../../src/admin/write/cite-page.js';
import { redactUrl } from '../../src/config/redact.js';
import { resolveHttpUrl, parseStrictHttpUrl, profileUrlKey, sameUrlIgnoringSchemeHostCase, withRootPath } from '../../src/core/url.js';
import type { EntryRow } from '../../src/entries/entry-source.js';
import { entryTitle, plainText } from '../../src/entries/h-entry.js';
import { readableDate, urlLabel } from '../../src/entries/properties.js';
import { xmlAttribute, xmlText } from '../../src/entries/xml-text.js';
import { slugSource } from '../../src/content/handlers/database/entry-fields.js';
import { parsePost } from '../../src/content/handlers/files/front-matter.js';
import { commitMessage, commitSubject } from '../../src/content/handlers/files/git.js';
import { sanitizeSegment, sanitizeSlug as filesSlug } from '../../src/content/handlers/files/templates.js';
import { sanitizeSlug } from '../../src/micropub/properties.js';
import { validateHCard } from '../../src/profile/h-card.js';
import { tokenList } from '../../src/html/tree.js';
import { parseRuleValue } from '../../src/webmention/moderation.js';
import { linkTargets } from '../../src/webmention/publish/targets.js';

const N = 200_000;
const row = (properties: Record<string, unknown[]>): EntryRow =>
  ({ type: ['h-entry'], properties, published: '2026-11-28T10:00:00.000Z', url: 'https://alice.example/1' }) as unknown as EntryRow;

describe('entries: titles and plain text (F1)', () => {
  it('plainText of HTML: runs of "<", of empty tags, of "<>" pairs, of whitespace', () => {
    expect(plainText({ html: '<'.repeat(N) })).toBe('<'.repeat(N));
    expect(plainText({ html: `<p>a</p>${'<'.repeat(N)}b` })).toBe(`a ${'<'.repeat(N)}b`);
    expect(plainText({ html: '<b>'.repeat(N / 3) + 'x' })).toBe('x');
    expect(plainText({ html: `${'<'.repeat(N)}>y` })).toBe('y');
    expect(plainText({ html: `a${' \n\t'.repeat(N / 3)}b` })).toBe('a b');
    expect(plainText({ html: '<<>'.repeat(N / 3) })).toBe('');
  });

  it('entryTitle: the first 70 characters, whatever follows', () => {
    expect(entryTitle(row({ content: [{ html: `<p>Hello world</p>${'<'.repeat(N)}` }] }))).toBe(`Hello world ${'<'.repeat(57)}…`);
    expect(entryTitle(row({ content: [{ html: `${'<i>'.repeat(10_000)}Deep${'<'.repeat(N)}` }] }))).toBe(`Deep${'<'.repeat(65)}…`);
    // past TITLE_SOURCE_LIMIT characters of markup a title stops reading: the post's kind and date instead
    expect(entryTitle(row({ content: [{ html: `${'<i>'.repeat(N / 3)}Deep` }] }))).toBe('Note of 28 November 2026 at 10:00 UTC');
    expect(entryTitle(row({ content: [{ html: `Amp ${'&amp;'.repeat(N / 5)}` }] }))).toBe(`Amp ${'&amp;'.repeat(13)}…`);
    expect(entryTitle(row({ content: [`${' '.repeat(N)}Spaced ${'. '.repeat(N / 2)}`] }))).toBe(`Spaced ${'. '.repeat(31)}…`);
    expect(entryTitle(row({ summary: [`${'['.repeat(N / 2)}${']'.repeat(N / 2)}`] }))).toBe(`${'['.repeat(69)}…`);
    expect(entryTitle(row({ name: [`  ${'x '.repeat(N / 2)}`] }))).toBe('x '.repeat(N / 2).trim());
  });

  it('feed text: XML escapes of "&", "<" and control characters', () => {
    expect(xmlText('&<'.repeat(N / 2))).toBe('&amp;&lt;'.repeat(N / 2));
    expect(xmlAttribute('"&\n'.repeat(N / 3))).toBe('&quot;&amp;&#10;'.repeat(N / 3));
    expect(xmlText(`a${'\u0001'.repeat(N)}b`)).toBe('ab');
  });

  it('dates and URL labels of stored values', () => {
    expect(readableDate('1'.repeat(N))).toBe('1'.repeat(N));
    expect(readableDate(`${'T'.repeat(N)}`)).toBe('T'.repeat(N));
    expect(urlLabel(`https://a.example/${'/'.repeat(N)}`)).toBe(`a.example${'/'.repeat(68)}…`);
  });
});

describe('sending on publish: link targets (F5)', () => {
  const entry = (content: unknown[]) =>
    ({ type: ['h-entry'], url: 'https://alice.example/1', properties: { content } }) as unknown as Parameters<typeof linkTargets>[0];

  it('a link followed by 200 KB of dots, of mixed sentence ends, of closing brackets', () => {
    expect(linkTargets(entry([`see https://bob.example/a${'.'.repeat(N)}`]))).toEqual(['https://bob.example/a']);
    expect(linkTargets(entry([`see https://bob.example/b${'.,;:!?)]'.repeat(N / 8)}`]))).toEqual(['https://bob.example/b']);
    expect(linkTargets(entry([{ value: `https://bob.example/c${')'.repeat(N)} and https://bob.example/d.` }]))).toEqual([
      'https://bob.example/c',
      'https://bob.example/d',
    ]);
    expect(linkTargets(entry([`${'.'.repeat(N)}https://bob.example/e${'.'.repeat(N)}x`]))).toEqual(
      [`https://bob.example/e${'.'.repeat(N)}x`].map((url) => new URL(url).href),
    );
  });

  it('200 KB of "http://" without a host, of spaces, of "<"', () => {
    expect(linkTargets(entry(['http://'.repeat(N / 7)]))).toEqual([new URL('http://'.repeat(N / 7)).href]);
    expect(linkTargets(entry([`${' '.repeat(N)}https://bob.example/f ${'<'.repeat(N)}`]))).toEqual(['https://bob.example/f']);
  });
});

describe('Micropub: slugs, commit messages, front matter', () => {
  it('slugs from hyphen, dot and punctuation runs', () => {
    expect(filesSlug(`${'-'.repeat(N)}Hello${'-'.repeat(N)}World${'-'.repeat(N)}`)).toBe('hello-world');
    expect(filesSlug(`\u0000${'-'.repeat(N)}-\u0000`)).toBe('');
    expect(filesSlug(`${'.!'.repeat(N / 2)}x`)).toBe('x');
    expect(sanitizeSegment(`${'.-'.repeat(N / 2)}alice${'-'.repeat(N)}`)).toBe('alice');
    expect(sanitizeSegment(`bob${'.'.repeat(N)}`)).toMatch(/^bob\.{10,}$/);
    // a hyphen run before the end: `/-+$/` retried at every hyphen of it
    expect(sanitizeSegment(`alice${'-'.repeat(N)}x`)).toMatch(/^alice-+$/);
    expect(sanitizeSlug(`${'.'.repeat(N)}/a\\b${'/'.repeat(N)}`)).toBe('ab');
    expect(slugSource({ content: [`${' \t'.repeat(N / 2)}one two ${' '.repeat(N)}three`] })).toEqual(['one two three']);
  });

  it('commit messages from 200 KB of "<", of control characters, of spaces', () => {
    expect(commitMessage('Create', 'note', { content: [{ html: `<p>Hi</p>${'<'.repeat(N)}` }] }, 'slug')).toMatch(/^Create note "Hi <+…"$/);
    expect(commitSubject(`a${'\u0001'.repeat(N)}b${' '.repeat(N)}c`)).toBe('a b c');
  });

  it('front matter: a file of 200 KB of almost-closing lines', () => {
    const body = `text${'\n--x'.repeat(N / 4)}`;
    expect(parsePost(`---\nname: Hi\n---\n${body}`)).toMatchObject({
      format: 'yaml',
      siteKeys: { name: 'Hi' },
      properties: { content: [body] },
    });
    const spaces = ' '.repeat(N);
    expect(() => parsePost(`---\nname: Hi\n---${spaces}x`)).toThrow('front matter is not closed');
    expect(parsePost(`+++\nname = "Hi"\n+++${spaces}\nrest`)).toMatchObject({ format: 'toml', properties: { content: ['rest'] } });
  });
});

describe('webmentions, profile, URLs', () => {
  it('rel token lists of 200 KB of whitespace', () => {
    expect(tokenList(`${' \t\n'.repeat(N / 3)}webmention${' '.repeat(N)}me `)).toEqual(['webmention', 'me']);
  });

  it('a cited page whose title is 200 KB of spaces and "<"', () => {
    const title = `Title${' '.repeat(N)}${'&lt;'.repeat(N / 4)}`;
    expect(
      readCitation(`<!doctype html><html><head><title>${title}</title></head><body><p>page</p></body></html>`, 'https://bob.example/')
        .title,
    ).toBe(`Title ${'<'.repeat(294)}`);
  });

  it('moderation rules typed as 200 KB of dots or hyphens', () => {
    expect(() => parseRuleValue(`a${'.'.repeat(N)}`)).toThrow('neither a domain');
    expect(() => parseRuleValue(`${'a-.'.repeat(N / 3)}`)).toThrow('neither a domain');
  });

  it('h-card e-mail addresses of many dots and "@"s', () => {
    // long values are refused by length; the check itself reads them in one pass
    expect(() => validateHCard({ email: [`a@${'.b'.repeat(N / 2)}@`] })).toThrow();
    expect(validateHCard({ email: ['alice@example.com'] }).email).toEqual(['mailto:alice@example.com']);
  });

  it('URLs of 200 KB of dots, slashes and "%2e"', () => {
    const long = `https://bob.example/${'./'.repeat(N / 2)}`;
    expect(parseStrictHttpUrl(long)).toBeNull();
    expect(resolveHttpUrl(`https://bob.example/${'a/'.repeat(N / 2)}`)).toBe(`https://bob.example/${'a/'.repeat(N / 2)}`);
    expect(profileUrlKey(`https://bob.example/${'%2e/'.repeat(N / 4)}`)).toBeNull();
    expect(sameUrlIgnoringSchemeHostCase(`https://A.example/${'/'.repeat(N)}`, `https://a.example/${'/'.repeat(N)}`)).toBe(true);
    expect(withRootPath(`https://a.example${'/'.repeat(N)}`)).toBe(`https://a.example${'/'.repeat(N)}`);
  });

  it('an unparseable database URL with 200 KB of "//" and no "@"', () => {
    expect(redactUrl(`x${'//'.repeat(N / 2)}`)).toBe(`x${'//'.repeat(N / 2)}`);
    expect(redactUrl(`db://user:secret@${'//'.repeat(N / 2)}@host\nnext //a@b`)).toBe(`db://***@host\nnext //a@b`);
  });
});
