import { describe, expect, it } from 'vitest';
import type { OutboundResponse } from '../../outbound/fetch.js';
import { advertisedLinks, linksFromHeaders } from './advertised-links.js';

const answer = (link: string | string[] | undefined, url = 'https://alice.example/home/'): OutboundResponse => ({
  url,
  status: 200,
  headers: { 'content-type': 'text/html', link },
  body: Buffer.alloc(0),
  redirects: 0,
});

describe('linksFromHeaders', () => {
  it('finds a rel among several space-separated values, in any case, across header lines and comma-separated link-values', () => {
    const response = answer([
      '<https://a.example/1>; rel="other MICROPUB"',
      '<https://a.example/2>; rel=webmention, <https://a.example/3>; rel="micropub"',
    ]);
    expect(linksFromHeaders(response, 'micropub')).toEqual(['https://a.example/1', 'https://a.example/3']);
    expect(linksFromHeaders(response, 'webmention')).toEqual(['https://a.example/2']);
  });

  it('resolves relative URLs against the final URL and ignores schemes other than http(s)', () => {
    const response = answer('<../endpoint>; rel="micropub", <javascript:alert(1)>; rel="micropub", <mailto:a@b.example>; rel="micropub"');
    expect(linksFromHeaders(response, 'micropub')).toEqual(['https://alice.example/endpoint']);
  });

  it('skips a malformed link-value without losing the others; nothing at all without a header', () => {
    expect(linksFromHeaders(answer('nonsense; rel=micropub, <https://a.example/ok>; rel=micropub'), 'micropub')).toEqual([
      'https://a.example/ok',
    ]);
    expect(linksFromHeaders(answer('garbage;;;,,, "<>'), 'micropub')).toEqual([]);
    expect(linksFromHeaders(answer(undefined), 'micropub')).toEqual([]);
  });
});

describe('advertisedLinks', () => {
  it('puts the Link header before the HTML, as clients read them', () => {
    const found = advertisedLinks(answer('<https://header.example/>; rel="micropub"'), { micropub: ['https://html.example/'] }, 'micropub');
    expect(found).toEqual([
      { url: 'https://header.example/', from: 'Link header' },
      { url: 'https://html.example/', from: 'HTML' },
    ]);
    expect(advertisedLinks(answer(undefined), null, 'micropub')).toEqual([]);
  });
});
