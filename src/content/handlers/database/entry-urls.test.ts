import { describe, expect, it } from 'vitest';
import type { HostUser } from '../../../contracts/accounts.js';
import { postStatusOf, publishedOf } from './entry-fields.js';
import { baseSlug, createEntryUrls, numberedSlug, userPathSegment } from './entry-urls.js';

const user = (name: string): HostUser => ({ id: 'id-1', name, me: [], isActive: true });

describe('entry slugs', () => {
  it('come from mp-slug, else the name, else the first words of the content, else the kind of post', () => {
    expect(baseSlug(['h-entry'], { 'mp-slug': ['My Slug'], name: ['A name'] })).toBe('my-slug');
    expect(baseSlug(['h-entry'], { name: ['Hello, World!'], content: ['body'] })).toBe('hello-world');
    expect(baseSlug(['h-entry'], { content: [{ html: '<p>x</p>', value: 'One two three four five six seven eight nine ten' }] })).toBe(
      'one-two-three-four-five-six-seven-eight',
    );
    expect(baseSlug(['h-entry'], { 'like-of': ['https://example.com/'] })).toBe('like');
    expect(baseSlug(['h-event'], { start: ['2026-01-01'] })).toBe('event');
    expect(baseSlug(['h-entry'], { content: ['   '] })).toBe('note');
  });

  it('never carry a path separator, a dot segment or markup', () => {
    for (const hostile of ['../../etc/passwd', '/', '..', 'a/b', '%2e%2e', '<script>x</script>', 'a\u0000b', '\u202Eevil']) {
      const slug = baseSlug(['h-entry'], { 'mp-slug': [hostile] });
      expect(slug).toMatch(/^[\p{L}\p{M}\p{N}-]+$/u);
      expect(slug).not.toMatch(/^\.+$/);
    }
  });

  it('keep letters of other scripts and stay within 60 characters when numbered', () => {
    expect(baseSlug(['h-entry'], { name: ['Grüße aus Köln'] })).toBe('grüße-aus-köln');
    const long = baseSlug(['h-entry'], { 'mp-slug': ['x'.repeat(200)] });
    expect(long.length).toBeLessThanOrEqual(60);
    expect(numberedSlug(long, 12).length).toBeLessThanOrEqual(60);
    expect(numberedSlug('hello', 1)).toBe('hello');
    expect(numberedSlug('hello', 3)).toBe('hello-3');
  });
});

describe('entry URLs', () => {
  const urls = createEntryUrls('https://id.example');

  it('are {baseUrl}/{user}/{yyyy}/{MM}/{slug}/ with the month of the published date in UTC', () => {
    const month = urls.monthPath(user('alice'), '2026-11-30T23:30:00.000Z');
    expect(month).toBe('/alice/2026/11/');
    expect(urls.entry(month, 'hello')).toEqual({ url: 'https://id.example/alice/2026/11/hello/', path: '/alice/2026/11/hello/' });
    expect(urls.entry(month, 'grüße')).toEqual({
      url: 'https://id.example/alice/2026/11/gr%C3%BC%C3%9Fe/',
      path: '/alice/2026/11/gr%C3%BC%C3%9Fe/',
    });
  });

  it('keep a base URL’s own path', () => {
    const under = createEntryUrls('https://example.com/blog/');
    const month = under.monthPath(user('alice'), '2026-01-05T00:00:00.000Z');
    expect(under.entry(month, 'x').url).toBe('https://example.com/blog/alice/2026/01/x/');
  });

  it('use the account name, percent-encoded, so a host’s odd name can neither leave its folder nor take another user’s', () => {
    expect(urls.monthPath(user('Alice.B_c-1'), '2026-01-01T00:00:00.000Z')).toBe('/Alice.B_c-1/2026/01/');
    expect(urls.monthPath(user('Jane Doe'), '2026-01-01T00:00:00.000Z')).toBe('/Jane%20Doe/2026/01/');
    expect(urls.monthPath(user('../admin'), '2026-01-01T00:00:00.000Z')).toBe('/..%2Fadmin/2026/01/');
    expect(urls.monthPath(user('%2e%2e'), '2026-01-01T00:00:00.000Z')).toBe('/%252e%252e/2026/01/');
    expect(userPathSegment(user('..'))).toMatch(/^user-[0-9a-f]{12}$/);
    expect(userPathSegment(user(''))).toMatch(/^user-[0-9a-f]{12}$/);
    expect(urls.monthPath(user('.'), '2026-01-01T00:00:00.000Z')).toMatch(/^\/user-[0-9a-f]{12}\/2026\/01\/$/);
  });

  it('resolve submitted URLs, relative ones against the base URL', () => {
    expect(urls.resolve('/alice/2026/11/hello/')).toBe('https://id.example/alice/2026/11/hello/');
    expect(urls.resolve('HTTPS://ID.example/alice/2026/11/hello/')).toBe('https://id.example/alice/2026/11/hello/');
    expect(urls.resolve('http://[::1')).toBeNull();
  });
});

describe('entry fields', () => {
  it('published: a valid date or date-time (with or without offset) as an ISO instant, else null', () => {
    expect(publishedOf({ published: ['2026-04-01T10:00:00Z'] })).toBe('2026-04-01T10:00:00.000Z');
    expect(publishedOf({ published: ['2026-04-01T10:00:00+02:00'] })).toBe('2026-04-01T08:00:00.000Z');
    expect(publishedOf({ published: ['2026-04-01T10:00:00-0500'] })).toBe('2026-04-01T15:00:00.000Z');
    expect(publishedOf({ published: ['2026-04-01'] })).toBe('2026-04-01T00:00:00.000Z');
    expect(publishedOf({ published: ['2026-04-01 10:00'] })).toBe('2026-04-01T10:00:00.000Z');
    for (const bad of ['yesterday', '2026-02-30', '2026-13-01', '2026-04-01T25:00:00Z', '', 'Tue, 1 Apr 2026'])
      expect(publishedOf({ published: [bad] })).toBeNull();
    expect(publishedOf({ published: [{ value: '2026-04-01' }] })).toBeNull();
    expect(publishedOf({})).toBeNull();
  });

  it('post-status: draft only when the client says draft', () => {
    expect(postStatusOf({ 'post-status': ['draft'] })).toBe('draft');
    expect(postStatusOf({ 'post-status': ['Draft '] })).toBe('draft');
    expect(postStatusOf({ 'post-status': ['published'] })).toBe('published');
    expect(postStatusOf({})).toBe('published');
  });
});
