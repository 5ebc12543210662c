import { describe, expect, it } from 'vitest';
import type { MicropubProperties, UpdateOperations } from '../../contracts/micropub-types.js';
import { applyUpdate, cloneJson } from './entry-rules.js';

describe('applyUpdate', () => {
  it('replaces, then adds, then deletes', () => {
    const operations: UpdateOperations = { replace: { category: ['a'] }, add: { category: ['b', 'a'] }, delete: { category: ['a'] } };
    expect(applyUpdate({ category: ['x'] }, operations)).toEqual({ category: ['b'] });
  });

  it('removes a property replaced with an empty list and adds to a missing one', () => {
    expect(applyUpdate({ content: ['a'], summary: ['s'] }, { replace: { summary: [] }, add: { category: ['c'] } })).toEqual({
      content: ['a'],
      category: ['c'],
    });
  });

  it('deletes whole properties by name, the missing ones included', () => {
    expect(applyUpdate({ content: ['a'], category: ['c'] }, { delete: ['category', 'nothing'] })).toEqual({ content: ['a'] });
  });

  it('deletes single values compared as key-sorted JSON and drops a property left empty', () => {
    const current: MicropubProperties = {
      photo: [{ value: 'https://example.com/a.jpg', alt: 'A' }, 'https://example.com/b.jpg'],
      category: ['only'],
    };
    const result = applyUpdate(current, {
      delete: { photo: [{ alt: 'A', value: 'https://example.com/a.jpg' }], category: ['only'], missing: ['x'] },
    });
    expect(result).toEqual({ photo: ['https://example.com/b.jpg'] });
  });

  it('changes neither argument and shares no value with the operations', () => {
    const current: MicropubProperties = { content: ['a'], category: ['x'] };
    const operations = { replace: { content: [{ html: '<b>b</b>' }] }, add: { category: [{ name: 'y' }] } };
    const result = applyUpdate(current, operations);
    (operations.replace.content[0] as { html: string }).html = 'changed';
    operations.add.category[0]!.name = 'changed';
    expect(current).toEqual({ content: ['a'], category: ['x'] });
    expect(result).toEqual({ content: [{ html: '<b>b</b>' }], category: ['x', { name: 'y' }] });
  });

  it('copies the values it takes with the given copy function', () => {
    const when = new Date('2024-05-01T10:00:00Z');
    const result = applyUpdate({}, { replace: { start: [when] } }, structuredClone);
    expect(result.start?.[0]).toBeInstanceOf(Date);
    expect(result.start?.[0]).not.toBe(when);
  });

  it('keeps a property named __proto__ as an own property', () => {
    const replace = JSON.parse('{"__proto__": ["p"]}') as MicropubProperties;
    const result = applyUpdate({}, { replace });
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
    expect(Object.hasOwn(result, '__proto__')).toBe(true);
  });
});

describe('cloneJson', () => {
  it('copies nested arrays and objects, keeping __proto__ keys as own properties', () => {
    const value = JSON.parse('{"a": [1, {"b": "c"}], "__proto__": {"polluted": true}}') as Record<string, unknown>;
    const copy = cloneJson(value);
    expect(copy).toEqual(value);
    expect(copy.a).not.toBe(value.a);
    expect(Object.hasOwn(copy, '__proto__')).toBe(true);
    expect((copy as { polluted?: unknown }).polluted).toBeUndefined();
  });
});
