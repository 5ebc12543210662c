import { describe, expect, it } from 'vitest';
import { diffUpdate } from './update-diff.js';

describe('diffUpdate', () => {
  const names = ['name', 'content', 'category', 'photo', 'post-status'];

  it('is null when the form says what the entry has', () => {
    expect(diffUpdate({ name: ['A'], category: ['x'] }, { name: ['A'], category: ['x'] }, names)).toBeNull();
  });

  it('replaces a changed value, adds a new property, deletes an emptied one', () => {
    expect(diffUpdate({ name: ['A'], content: ['old'] }, { name: ['B'], 'post-status': ['draft'] }, names)).toEqual({
      replace: { name: ['B'] },
      add: { 'post-status': ['draft'] },
      delete: ['content'],
    });
  });

  it('removes and adds single categories when nothing else is deleted', () => {
    expect(diffUpdate({ category: ['a', 'b', 'c'] }, { category: ['a', 'c', 'd'] }, names)).toEqual({
      add: { category: ['d'] },
      delete: { category: ['b'] },
    });
  });

  it('replaces the whole category set when a property is deleted too (delete is a list or a map, never both)', () => {
    expect(diffUpdate({ category: ['a', 'b'], name: ['T'] }, { category: ['a', 'c'] }, names)).toEqual({
      replace: { category: ['a', 'c'] },
      delete: ['name'],
    });
  });

  it('replaces photos whose alt text changed, compared as values', () => {
    expect(
      diffUpdate({ photo: [{ value: 'https://x/a.png', alt: 'a' }] }, { photo: [{ alt: 'b', value: 'https://x/a.png' }] }, names),
    ).toEqual({
      replace: { photo: [{ alt: 'b', value: 'https://x/a.png' }] },
    });
    expect(
      diffUpdate({ photo: [{ value: 'https://x/a.png', alt: 'a' }] }, { photo: [{ alt: 'a', value: 'https://x/a.png' }] }, names),
    ).toBeNull();
  });

  it('never touches a property the form does not edit', () => {
    expect(diffUpdate({ syndication: ['https://s/1'], name: ['A'] }, { name: ['A'] }, names)).toBeNull();
  });

  it('a reordered category set is a replace (the order is what changed)', () => {
    expect(diffUpdate({ category: ['a', 'b'] }, { category: ['b', 'a'] }, names)).toEqual({ replace: { category: ['b', 'a'] } });
  });
});
