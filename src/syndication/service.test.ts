import { describe, expect, it } from 'vitest';
import { copyKey, originOf, TargetInputError } from './service.js';

describe('syndication service rules', () => {
  it('a copy key is the same for the same entry, target and first queueing, and differs otherwise', () => {
    const key = copyKey('https://me.example/1', 't1', '2026-01-01T00:00:00.000Z');
    expect(key).toMatch(/^indiestack-[A-Za-z0-9_-]{32}$/);
    expect(copyKey('https://me.example/1', 't1', '2026-01-01T00:00:00.000Z')).toBe(key);
    expect(copyKey('https://me.example/1', 't2', '2026-01-01T00:00:00.000Z')).not.toBe(key);
    expect(copyKey('https://me.example/1', 't1', '2026-02-01T00:00:00.000Z')).not.toBe(key);
  });
  it('reads a server as its origin; a bare host is https; anything else is refused with a reason', () => {
    expect(originOf('mastodon.social')).toBe('https://mastodon.social');
    expect(originOf(' https://m.example/some/path ')).toBe('https://m.example');
    expect(() => originOf('ftp://m.example')).toThrow(TargetInputError);
    expect(() => originOf('https://user:pw@m.example')).toThrow(TargetInputError);
    expect(() => originOf('::')).toThrow(TargetInputError);
  });
});
