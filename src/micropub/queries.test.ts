import { describe, expect, it } from 'vitest';
import { isFrozenJson } from './queries.js';

describe('isFrozenJson', () => {
  it.each([
    ['a primitive', 'text'],
    ['null', null],
    ['a deeply frozen object', Object.freeze({ a: Object.freeze([1, Object.freeze({ b: true })]) })],
    ['a frozen object without prototype', Object.freeze(Object.assign(Object.create(null) as object, { a: 1 }))],
  ])('true for %s', (_label, value) => {
    expect(isFrozenJson(value)).toBe(true);
  });

  it.each([
    ['an unfrozen object', { a: 1 }],
    ['a frozen object holding an unfrozen array', Object.freeze({ a: [1] })],
    ['a frozen array holding an unfrozen object', Object.freeze([{ a: 1 }])],
    ['a frozen object with a getter', Object.freeze(Object.defineProperty({}, 'a', { enumerable: true, get: () => 1 }))],
    ['a frozen object with toJSON', Object.freeze({ toJSON: () => 1 })],
    ['a frozen Date', Object.freeze(new Date())],
    ['a frozen Map', Object.freeze(new Map())],
    ['a function', () => 1],
    ['undefined', undefined],
    ['a bigint', 1n],
  ])('false for %s', (_label, value) => {
    expect(isFrozenJson(value)).toBe(false);
  });

  it('false for nesting deeper than it looks', () => {
    let value: unknown = 1;
    for (let i = 0; i < 40; i++) value = Object.freeze([value]);
    expect(isFrozenJson(value)).toBe(false);
  });
});
