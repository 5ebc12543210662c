import { describe, expect, it } from 'vitest';
import { appendQuery } from './params.js';

describe('appendQuery', () => {
  it.each([
    ['no query', 'https://app.example/cb', 'https://app.example/cb?code=c&state=s'],
    ['an empty query', 'https://app.example/cb?', 'https://app.example/cb?code=c&state=s'],
    ['a query of its own, kept verbatim', 'https://app.example/cb?a=%7E1&b', 'https://app.example/cb?a=%7E1&b&code=c&state=s'],
    ['a trailing "&"', 'https://app.example/cb?a=1&', 'https://app.example/cb?a=1&code=c&state=s'],
    ['a fragment, dropped', 'https://app.example/cb?a=1#frag', 'https://app.example/cb?a=1&code=c&state=s'],
  ])('merges with %s', (_label, url, expected) => {
    expect(appendQuery(url, { code: 'c', state: 's' })).toBe(expected);
  });

  it('replaces parameters of the same names, however they are spelled, and keeps the others in place', () => {
    const merged = appendQuery('https://app.example/cb?code=old&x=1&st%61te=old&state&y=2', { code: 'new', state: 's' });
    expect(merged).toBe('https://app.example/cb?x=1&y=2&code=new&state=s');
    const params = new URL(merged).searchParams;
    expect(params.getAll('code')).toEqual(['new']);
    expect(params.getAll('state')).toEqual(['s']);
  });

  it('keeps a segment whose name cannot be decoded', () => {
    expect(appendQuery('https://app.example/cb?%E0%A4%A=1', { code: 'c' })).toBe('https://app.example/cb?%E0%A4%A=1&code=c');
  });
});
