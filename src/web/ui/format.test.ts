import { describe, expect, it } from 'vitest';
import { byteSize, timestamp } from './format.js';

describe('byteSize', () => {
  it.each([
    [0, '0 bytes'],
    [1, '1 byte'],
    [149, '149 bytes'],
    [1023, '1023 bytes'],
    [1024, '1 KiB'],
    [1536, '1.5 KiB'],
    [10 * 1024, '10 KiB'],
    [150 * 1024, '150 KiB'],
    [5 * 1024 * 1024 + 200 * 1024, '5.2 MiB'],
    [50 * 1024 * 1024, '50 MiB'],
    [3 * 1024 ** 3, '3 GiB'],
  ])('%d → %s', (bytes, shown) => {
    expect(byteSize(bytes)).toBe(shown);
  });
});

describe('timestamp', () => {
  it('shows the minute in UTC and keeps the exact instant in datetime', () => {
    expect(timestamp('2026-11-25T18:41:04.123Z').toString()).toBe('<time datetime="2026-11-25T18:41:04.123Z">2026-11-25 18:41 UTC</time>');
  });

  it('shows a value it cannot read as given, escaped', () => {
    expect(timestamp('<b>soon</b>').toString()).toBe('&lt;b&gt;soon&lt;/b&gt;');
  });
});
