import { describe, it, expect } from 'vitest';
import {
  isSafeReturnPath,
  isStrictHttpUrl,
  parseStrictHttpUrl,
  profileUrlKey,
  sameUrlIgnoringSchemeHostCase,
  withRootPath,
} from './url.js';

describe('parseStrictHttpUrl', () => {
  it.each([
    'https://example.com/',
    'https://example.com',
    'http://localhost:3000/callback?state=1',
    'https://app.example.com/path/to/client.json',
    'http://127.0.0.1/',
    'https://[::1]:8443/',
  ])('accepts %j', (value) => {
    expect(parseStrictHttpUrl(value)).toBeInstanceOf(URL);
    expect(isStrictHttpUrl(value)).toBe(true);
  });

  it('returns the parsed URL with scheme and host lowercased', () => {
    const url = parseStrictHttpUrl('HTTPS://Example.COM/Path?Q=1');
    expect(url?.protocol).toBe('https:');
    expect(url?.hostname).toBe('example.com');
    expect(url?.pathname).toBe('/Path');
    expect(url?.search).toBe('?Q=1');
  });

  it.each([
    ['a fragment', 'https://example.com/#section'],
    ['an empty fragment', 'https://example.com/#'],
    ['a username', 'https://user@example.com/'],
    ['a username and password', 'https://user:secret@example.com/'],
    ['a password only', 'https://:secret@example.com/'],
    ['a javascript: URL', 'javascript:alert(1)'],
    ['an ftp: URL', 'ftp://example.com/file'],
    ['a data: URL', 'data:text/html,<script>alert(1)</script>'],
    ['a file: URL', 'file:///etc/passwd'],
    ['a mailto: URL', 'mailto:someone@example.com'],
    ['a path-relative URL', 'callback'],
    ['a path-absolute URL', '/callback'],
    ['a protocol-relative URL', '//example.com/callback'],
    ['a bare host name', 'example.com'],
    ['an empty string', ''],
    ['a space in the host', 'https://exa mple.com/'],
    ['a space in the path', 'https://example.com/a b'],
    ['a leading space', ' https://example.com/'],
    ['a trailing newline', 'https://example.com/\n'],
    ['a tab in the path', 'https://example.com/a\tb'],
    ['a carriage return', 'https://example.com/\r'],
    ['a NUL character', 'https://example.com/\u0000'],
    ['a DEL character', 'https://example.com/\u007f'],
    ['no host', 'https://'],
    ['no host with a path', 'http:///'],
  ])('rejects %s', (_label, value) => {
    expect(parseStrictHttpUrl(value)).toBeNull();
    expect(isStrictHttpUrl(value)).toBe(false);
  });
});

describe('profileUrlKey', () => {
  it('lowercases scheme and host', () => {
    expect(profileUrlKey('HTTPS://Example.COM/')).toBe('https://example.com/');
  });

  it('normalises an empty path to "/"', () => {
    expect(profileUrlKey('https://example.com')).toBe('https://example.com/');
  });

  it('adds "/" before a query when the path is empty', () => {
    expect(profileUrlKey('https://example.com?user=1')).toBe('https://example.com/?user=1');
  });

  it('keeps path and query verbatim', () => {
    expect(profileUrlKey('https://example.com/Users/Alice?Tab=Notes')).toBe('https://example.com/Users/Alice?Tab=Notes');
  });

  it('keeps a non-default port', () => {
    expect(profileUrlKey('http://Example.com:8080')).toBe('http://example.com:8080/');
  });

  it('gives two spellings of the same profile the same key', () => {
    expect(profileUrlKey('HTTPS://ALICE.example')).toBe(profileUrlKey('https://alice.example/'));
  });

  it('gives paths that differ only in case different keys', () => {
    expect(profileUrlKey('https://example.com/alice')).not.toBe(profileUrlKey('https://example.com/Alice'));
  });

  it.each(['', 'example.com', '/alice', 'https://example.com/#me', 'https://user@example.com/', 'ftp://example.com/'])(
    'returns null for %j',
    (value) => {
      expect(profileUrlKey(value)).toBeNull();
    },
  );
});

describe('sameUrlIgnoringSchemeHostCase', () => {
  it.each([
    ['https://example.com/callback', 'https://example.com/callback'],
    ['https://Example.COM/callback', 'https://example.com/callback'],
    ['HTTPS://example.com/callback', 'https://example.com/callback'],
    ['http://LOCALHOST:3000/cb?state=1', 'http://localhost:3000/cb?state=1'],
    ['https://example.com', 'https://EXAMPLE.com'],
  ])('treats %j and %j as the same', (a, b) => {
    expect(sameUrlIgnoringSchemeHostCase(a, b)).toBe(true);
    expect(sameUrlIgnoringSchemeHostCase(b, a)).toBe(true);
  });

  it.each([
    ['path case', 'https://example.com/Callback', 'https://example.com/callback'],
    ['query value', 'https://example.com/cb?a=1', 'https://example.com/cb?a=2'],
    ['query case', 'https://example.com/cb?a=X', 'https://example.com/cb?a=x'],
    ['query presence', 'https://example.com/cb?a=1', 'https://example.com/cb'],
    ['scheme', 'http://example.com/cb', 'https://example.com/cb'],
    ['host', 'https://example.com/cb', 'https://example.org/cb'],
    ['port', 'https://example.com:8443/cb', 'https://example.com/cb'],
    ['trailing slash', 'https://example.com/cb/', 'https://example.com/cb'],
  ])('tells URLs apart by %s', (_label, a, b) => {
    expect(sameUrlIgnoringSchemeHostCase(a, b)).toBe(false);
  });

  it.each([
    ['', ''],
    ['/callback', '/callback'],
    ['example.com/cb', 'example.com/cb'],
    ['not a url', 'not a url'],
  ])('never matches values that are not absolute URLs (%j)', (a, b) => {
    expect(sameUrlIgnoringSchemeHostCase(a, b)).toBe(false);
  });
});

describe('isSafeReturnPath', () => {
  it.each(['/', '/indieweb/', '/indieweb/?a=b', '/indieweb/admin?tab=tokens&page=2', '/indieweb/admin#tokens', '/caf%C3%A9'])(
    'accepts %j',
    (value) => {
      expect(isSafeReturnPath(value)).toBe(true);
    },
  );

  it.each([
    ['a protocol-relative URL', '//evil.example'],
    ['a protocol-relative URL with a path', '//evil.example/indieweb/'],
    ['a slash-backslash prefix', '/\\evil.example'],
    ['a double backslash', '\\\\evil.example'],
    ['an absolute https URL', 'https://evil.example/'],
    ['an absolute URL to our own placeholder origin', 'http://indiestack.invalid/'],
    ['a javascript: URL', 'javascript:alert(1)'],
    ['a data: URL', 'data:text/html,hi'],
    ['an empty string', ''],
    ['a relative path', 'indieweb/'],
    ['a path with CR/LF (header injection)', '/indieweb/\r\nSet-Cookie: a=b'],
    ['a path with LF', '/a\nb'],
    ['a path with CR', '/a\rb'],
    ['a path with a tab that browsers strip', '/\t/evil.example'],
    ['a path with a NUL', '/a\u0000b'],
    ['a path with a backslash', '/indieweb\\admin'],
  ])('rejects %s', (_label, value) => {
    expect(isSafeReturnPath(value)).toBe(false);
  });
});

describe('withRootPath', () => {
  it.each([
    ['https://example.com', 'https://example.com/'],
    ['https://Example.com', 'https://Example.com/'],
    ['http://example.com:8080', 'http://example.com:8080/'],
    ['https://example.com?q=1', 'https://example.com/?q=1'],
    ['https://example.com/', 'https://example.com/'],
    ['https://example.com/alice', 'https://example.com/alice'],
    ['https://example.com/alice?x=1', 'https://example.com/alice?x=1'],
  ])('turns %j into %j', (value, expected) => {
    expect(withRootPath(value)).toBe(expected);
  });

  it.each(['', 'example.com', '/alice', 'mailto:alice@example.com'])('returns %j unchanged when it is not a scheme://host URL', (value) => {
    expect(withRootPath(value)).toBe(value);
  });
});

describe('parseStrictHttpUrl refuses what the URL parser would repair', () => {
  it.each([
    'http:example.com',
    'http:/example.com',
    'https:\\\\example.com\\cb',
    'http:///x',
    'https://@example.com/',
    'https://:@example.com/',
    'https://example.com/a/../b',
    'https://example.com/./b',
    'https://example.com/a/%2e%2e/b',
    'https://example.com/..',
  ])('rejects %s', (value) => {
    expect(parseStrictHttpUrl(value)).toBeNull();
  });

  it('accepts dots inside segments', () => {
    expect(parseStrictHttpUrl('https://example.com/a.b/..c/v1.2')?.pathname).toBe('/a.b/..c/v1.2');
  });
});
