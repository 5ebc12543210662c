import { describe, expect, it } from 'vitest';
import { httpUrl } from './http-url.js';

// today's answers of the copies it replaces (entries/safe-url, webmention api/format and transfer/read-export)
describe('httpUrl', () => {
  it.each([
    ['https://a.example/x', 'https://a.example/x'],
    ['HTTP://A.example', 'http://a.example/'],
    ['javascript:alert(1)', null],
    ['mailto:a@b.example', null],
    ['/relative', null],
    ['', null],
    [null, null],
    [42, null],
    [`https://a.example/${'x'.repeat(4100)}`, null],
  ])('%s → %s', (value, expected) => {
    expect(httpUrl(value)).toBe(expected);
  });
  it('takes a longer limit when asked', () => {
    const long = `https://a.example/${'x'.repeat(5000)}`;
    expect(httpUrl(long, Infinity)).toBe(long);
    expect(httpUrl('https://a.example/abc', 10)).toBeNull();
  });
});
