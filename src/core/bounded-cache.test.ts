import { describe, expect, it } from 'vitest';
import { createBoundedCache } from './bounded-cache.js';

/** The cache's keys, by whether each is still there. */
function kept(cache: { peek(key: string): unknown }, keys: readonly string[]): string[] {
  return keys.filter((key) => cache.peek(key) !== undefined);
}

describe('createBoundedCache', () => {
  it('keeps at most maxEntries, forgetting the least recently used first', () => {
    const cache = createBoundedCache<string, number>({ maxEntries: 3 });
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('c', 3);
    expect(cache.get('a')).toBe(1);
    cache.set('d', 4);
    expect(kept(cache, ['a', 'b', 'c', 'd'])).toEqual(['a', 'c', 'd']);
    cache.get('c');
    cache.set('e', 5);
    cache.set('f', 6);
    // a was used before c, and neither since: a goes first, then d (never read)
    expect(kept(cache, ['a', 'b', 'c', 'd', 'e', 'f'])).toEqual(['c', 'e', 'f']);
    expect(cache.size).toBe(3);
  });

  it('never forgets the entry it is setting, however recently the others were read', () => {
    const cache = createBoundedCache<string, number>({ maxEntries: 2 });
    cache.set('a', 1);
    cache.set('b', 2);
    cache.get('a');
    cache.get('b');
    cache.set('c', 3);
    expect(cache.get('c')).toBe(3);
    // the oldest of the two read ones went
    expect(kept(cache, ['a', 'b', 'c'])).toEqual(['b', 'c']);
  });

  it('peek does not count as a use', () => {
    const cache = createBoundedCache<string, number>({ maxEntries: 2 });
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.peek('a')).toBe(1);
    cache.set('c', 3);
    expect(kept(cache, ['a', 'b', 'c'])).toEqual(['b', 'c']);
  });

  it('bounds the sum of the weights, and keeps no entry heavier than the bound', () => {
    const cache = createBoundedCache<string, string>({ maxEntries: 100, maxWeight: 10, weigh: (key, value) => key.length + value.length });
    cache.set('a', 'xxxx');
    cache.set('b', 'xxxx');
    expect(cache.weight).toBe(10);
    cache.set('c', 'x');
    expect(kept(cache, ['a', 'b', 'c'])).toEqual(['b', 'c']);
    expect(cache.weight).toBe(7);
    cache.set('d', 'x'.repeat(20));
    expect(cache.peek('d')).toBeUndefined();
    expect(cache.weight).toBe(7);
    // replacing a value with one too heavy forgets the old one too
    cache.set('b', 'x'.repeat(20));
    expect(kept(cache, ['b', 'c'])).toEqual(['c']);
    expect(cache.weight).toBe(2);
  });

  it('replacing a value keeps one entry, reweighs it, and forgets others first when it grew', () => {
    const cache = createBoundedCache<string, string>({ maxEntries: 3, maxWeight: 5, weigh: (_key, value) => value.length });
    cache.set('a', 'x');
    cache.set('b', 'x');
    cache.set('c', 'x');
    cache.set('a', 'xxxx');
    expect(cache.size).toBe(2);
    expect(cache.weight).toBe(5);
    expect(kept(cache, ['a', 'b', 'c'])).toEqual(['a', 'c']);
  });

  it('delete forgets an entry and its weight', () => {
    const cache = createBoundedCache<string, string>({ maxEntries: 3, weigh: (_key, value) => value.length });
    cache.set('a', 'xyz');
    expect(cache.delete('a')).toBe(true);
    expect(cache.delete('a')).toBe(false);
    expect(cache.get('a')).toBeUndefined();
    expect([cache.size, cache.weight]).toEqual([0, 0]);
  });

  it('holds its bounds under many keys read over and over', () => {
    const cache = createBoundedCache<number, number>({ maxEntries: 50 });
    for (let round = 0; round < 20; round++) {
      for (let key = 0; key < 200; key++) {
        cache.get(key % 60);
        cache.set(key, round);
      }
    }
    expect(cache.size).toBe(50);
    // the last 50 set are the last 50 used
    expect(Array.from({ length: 200 }, (_, key) => key).filter((key) => cache.peek(key) !== undefined)).toEqual(
      Array.from({ length: 50 }, (_, index) => 150 + index),
    );
  });
});
