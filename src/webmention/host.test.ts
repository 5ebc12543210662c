import { describe, expect, it } from 'vitest';
import { canonicalUrl } from './canonical-url.js';
import { bareHost, bareHostOf } from './host.js';
import { parseRuleValue, ruleMatches } from './moderation.js';

describe('bare host (issue 28 F10)', () => {
  it.each([
    ['spam.example', 'spam.example'],
    ['spam.example.', 'spam.example'],
    ['WWW.Spam.Example.', 'spam.example'],
    ['bücher.example', 'xn--bcher-kva.example'],
    ['  www.a.example ', 'a.example'],
    ['127.0.0.1', '127.0.0.1'],
  ])('%s → %s', (input, bare) => {
    expect(bareHostOf(input)).toBe(bare);
    expect(bareHost(input)).toBe(bare);
  });

  it.each(['', 'a b.example', 'a.example/path', 'a.example:80', 'user@a.example', '..'])('%j is no host', (input) => {
    expect(bareHostOf(input)).toBeNull();
  });

  it('block rules, rule values and canonical targets agree on it', () => {
    const rule = { kind: 'domain' as const, value: parseRuleValue('Spam.Example.').value };
    expect(rule.value).toBe('spam.example');
    for (const source of ['https://spam.example./x', 'https://WWW.SPAM.EXAMPLE./x', 'https://a.spam.example./x'])
      expect(ruleMatches(rule, new URL(source)), source).toBe(true);
    expect(ruleMatches(rule, new URL('https://notspam.example/x'))).toBe(false);
    expect(ruleMatches({ kind: 'prefix', value: 'https://host.example/~u/' }, new URL('https://host.example./~u/post'))).toBe(true);
    expect(canonicalUrl('https://www.Site.example.:8080/a/')).toBe('https://site.example:8080/a');
  });
});
