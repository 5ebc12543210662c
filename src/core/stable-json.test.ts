import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stableStringify, stableStringifyByReplacer } from './stable-json.js';

/** JSON values, and the shapes that make object key order and JSON.stringify's rules matter. */
const keys = fc.oneof(
  fc.string(),
  fc.constantFrom('0', '1', '2', '9', '10', '01', '-1', '1.5', '4294967294', '4294967295', '__proto__', 'constructor', 'a', 'B', 'é'),
);
const values = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.string(),
    fc.double(),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.constant(undefined),
    fc.constant(-0),
    fc.date({ noInvalidDate: true }),
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(keys, tie('value'), { maxKeys: 6 }),
  ),
}));

describe('stableStringify', () => {
  it('is exactly JSON.stringify with every object’s keys sorted (the replacer it replaces)', () => {
    fc.assert(
      fc.property(fc.dictionary(keys, values.value, { maxKeys: 6 }), (value) => {
        expect(stableStringify(value)).toBe(stableStringifyByReplacer(value));
      }),
      { numRuns: 2000 },
    );
    // past a handful of keys the sort is the array's own
    fc.assert(
      fc.property(fc.dictionary(keys, fc.integer(), { minKeys: 12, maxKeys: 40 }), (value) => {
        expect(stableStringify(value)).toBe(stableStringifyByReplacer(value));
      }),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(fc.array(values.value, { maxLength: 6 }), (value) => {
        expect(stableStringify(value)).toBe(stableStringifyByReplacer(value));
      }),
      { numRuns: 500 },
    );
  });

  it('sorts keys by code units, array-index keys first in numeric order, and leaves out what JSON leaves out', () => {
    const parsed = JSON.parse('{"b":1,"a":[3,{"z":null,"y":"\\u2028"}],"10":0,"9":0,"__proto__":{"k":1},"x":"\\ud800"}') as unknown;
    expect(stableStringify(parsed)).toBe('{"9":0,"10":0,"__proto__":{"k":1},"a":[3,{"y":"\u2028","z":null}],"b":1,"x":"\\ud800"}');
    expect(stableStringify({ gone: undefined, fn: () => 1, kept: [undefined, () => 1, Number.NaN, -0] })).toBe(
      '{"kept":[null,null,null,0]}',
    );
    expect(stableStringify({ when: new Date('2026-11-29T00:00:00.000Z') })).toBe('{"when":"2026-11-29T00:00:00.000Z"}');
    expect(() => stableStringify({ n: 1n })).toThrow(TypeError);
  });
});
