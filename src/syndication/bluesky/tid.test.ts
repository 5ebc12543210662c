import { describe, expect, it } from 'vitest';
import { isTid, tidFromKey } from './tid.js';

const ALPHABET = '234567abcdefghijklmnopqrstuvwxyz';
const decode = (tid: string) => [...tid].reduce((value, char) => (value << 5n) | BigInt(ALPHABET.indexOf(char)), 0n);

describe('tidFromKey', () => {
  it('gives the same valid TID for the same key and different ones for different keys', () => {
    const keys = Array.from({ length: 500 }, (_, i) => `https://example.com/notes/${i} → target-${i % 3}`);
    const tids = keys.map(tidFromKey);
    expect(tids.every(isTid)).toBe(true);
    expect(keys.map(tidFromKey)).toEqual(tids);
    expect(new Set(tids).size).toBe(keys.length);
  });

  it('has a timestamp from 2023 on and never in the future', () => {
    for (const key of ['', 'a', 'entry-1:target-1', '✨'.repeat(100)]) {
      const micros = decode(tidFromKey(key)) >> 10n;
      expect(micros >= 1_672_531_200_000_000n).toBe(true);
      expect(micros <= BigInt(Date.now()) * 1000n).toBe(true);
    }
  });
});

describe('isTid', () => {
  it.each([
    ['3jzfcijpj2z2a', true],
    ['2222222222222', true],
    ['kjzfcijpj2z2a', false], // top bit set
    ['3jzfcijpj2z2', false],
    ['3jzfcijpj2z2a1', false],
    ['3jzfcijpj2z21', false],
  ])('%s → %s', (value, valid) => {
    expect(isTid(value)).toBe(valid);
  });
});
