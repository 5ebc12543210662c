import { describe, it, expect } from 'vitest';
import { hasScope, normalizeScope, scopeNames } from './scope.js';

describe('normalizeScope', () => {
  it('joins names with single spaces', () => {
    expect(normalizeScope('create update media')).toBe('create update media');
  });

  it('splits on runs of spaces, tabs and newlines', () => {
    expect(normalizeScope('create   update\tmedia\ndelete\r\nprofile')).toBe('create update media delete profile');
  });

  it('trims leading and trailing whitespace', () => {
    expect(normalizeScope('  \t create update \n ')).toBe('create update');
  });

  it('drops duplicates, keeping first-seen order', () => {
    expect(normalizeScope('update create update media create')).toBe('update create media');
  });

  it('treats names as case-sensitive', () => {
    expect(normalizeScope('Create create')).toBe('Create create');
  });

  it('keeps unknown scope names', () => {
    expect(normalizeScope('profile email custom:thing x-y')).toBe('profile email custom:thing x-y');
  });

  it.each([
    ['an empty string', ''],
    ['whitespace only', ' \t\n '],
    ['undefined', undefined],
    ['null', null],
  ])('returns an empty string for %s', (_label, input) => {
    expect(normalizeScope(input)).toBe('');
  });
});

describe('scopeNames', () => {
  it('lists the names without empty entries', () => {
    expect(scopeNames('  create\tupdate\n')).toEqual(['create', 'update']);
  });

  it('returns no names for an empty scope', () => {
    expect(scopeNames('')).toEqual([]);
  });
});

describe('hasScope', () => {
  it.each([
    ['create', 'create', true],
    ['update create media', 'create', true],
    ['create\tupdate', 'update', true],
    ['  delete  ', 'delete', true],
    ['media', 'media', true],
    ['profile email', 'email', true],
    ['draft', 'draft', true],
    ['custom:thing', 'custom:thing', true],
    ['post', 'create', true],
    ['draft post', 'create', true],
  ])('grants %j when %j is required', (granted, required, expected) => {
    expect(hasScope(granted, required)).toBe(expected);
  });

  it.each([
    ['createXYZ', 'create'],
    ['xcreate', 'create'],
    ['create', 'cre'],
    ['CREATE', 'create'],
    ['postXYZ', 'create'],
    ['draft', 'create'],
    ['post', 'update'],
    ['post', 'delete'],
    ['post', 'media'],
    ['create', 'update'],
    ['', 'create'],
    ['create', ''],
    ['create update', 'create update'],
  ])('refuses %j when %j is required', (granted, required) => {
    expect(hasScope(granted, required)).toBe(false);
  });
});
