import { describe, expect, it } from 'vitest';
import { escapeRegExp, replaceTags, trimEndOf, trimStartOf } from './text.js';

describe('core/text', () => {
  it('replaceTags gives what /<[^>]*>/g gives', () => {
    for (const text of [
      '',
      'plain',
      '<p>Hi <b>there</b></p>',
      'a < b',
      'a < b > c',
      '<<a>>',
      '<a',
      'x<y<z>w',
      '>>',
      '<>',
      'a<b>c<d',
      '<<<<x>',
    ]) {
      expect(replaceTags(text)).toBe(text.replace(/<[^>]*>/g, ' '));
    }
  });

  it('replaceTags reads 1 MB of unclosed < or of empty tags', () => {
    expect(replaceTags('<'.repeat(1_000_000))).toBe('<'.repeat(1_000_000));
    expect(replaceTags(`${'<'.repeat(500_000)}>tail`)).toBe(' tail');
    expect(replaceTags('<>'.repeat(500_000))).toBe(' '.repeat(500_000));
  });

  it('trimEndOf and trimStartOf remove a run of the given characters', () => {
    expect(trimEndOf('https://a.example///', '/')).toBe('https://a.example');
    expect(trimEndOf('///', '/')).toBe('');
    expect(trimEndOf('a.b', '/')).toBe('a.b');
    expect(trimEndOf('end.,;)', '.,;)')).toBe('end');
    expect(trimStartOf('--a-b--', '-')).toBe('a-b--');
    expect(trimEndOf(`${'/'.repeat(500_000)}\0/`, '/')).toBe(`${'/'.repeat(500_000)}\0`);
  });

  it('escapeRegExp makes a pattern that matches the text literally', () => {
    const text = 'a.b*c+d?(e)[f]{g}|h^i$j\\k';
    expect(new RegExp(`^${escapeRegExp(text)}$`).test(text)).toBe(true);
    expect(new RegExp(`^${escapeRegExp('a.b')}$`).test('axb')).toBe(false);
  });
});
