import { describe, expect, it } from 'vitest';
import { graphemeCount, graphemesOf, wordsOf } from './graphemes.js';

describe('graphemes', () => {
  it('counts what a reader sees as one character once: combining marks, flags, joined emoji', () => {
    expect(graphemeCount('')).toBe(0);
    expect(graphemeCount('e\u0301te\u0301')).toBe(3);
    expect(graphemeCount('🇫🇷👩‍👩‍👧‍👦')).toBe(2);
    expect([...graphemesOf('a👍🏽b')].map(({ segment }) => segment)).toEqual(['a', '👍🏽', 'b']);
  });

  it('splits words from what lies between them, with their offsets', () => {
    expect([...wordsOf('Hello, world')].map(({ segment, index }) => [segment, index])).toEqual([
      ['Hello', 0],
      [',', 5],
      [' ', 6],
      ['world', 7],
    ]);
  });
});
