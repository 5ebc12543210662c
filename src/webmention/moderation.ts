/**
 * Moderation of new mentions: block and allow lists (by domain or by URL
 * prefix) and the INDIEWEB_WEBMENTION_MODERATION policy. A blocked source is
 * recorded as spam and never fetched; an allowed one is public once
 * verified; otherwise the policy decides whether the mention waits (`held`)
 * for its owner's approval. A block wins over an allow.
 * @module
 */
import type { WebmentionModeration } from '../config/config.js';
import { forClient, InvalidRequestError } from '../core/errors.js';
import { trimEndOf } from '../core/text.js';
import type { RuleKind, WebmentionRule } from '../storage/repositories/webmention-rules.js';
import type { WebmentionApproval } from '../storage/repositories/webmentions.js';
import { bareHost, bareHostOf } from './host.js';

export type ModerationDecision =
  { readonly kind: 'blocked'; readonly rule: WebmentionRule } | { readonly kind: 'admit'; readonly approval: WebmentionApproval };

/** The rule a typed value stands for: a URL (with scheme) is a prefix, anything else a domain. */
export function parseRuleValue(raw: string): { kind: RuleKind; value: string } {
  const value = raw.trim();
  if (/^https?:\/\//i.test(value)) {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new InvalidRequestError(forClient(`"${value}" is not a URL`));
    }
    if (url.hostname === '' || value.length > 2048) throw new InvalidRequestError(forClient(`"${value}" is not a URL`));
    return { kind: 'prefix', value: url.href };
  }
  // a domain has at most 253 characters (254 with a trailing dot): a longer value is refused as typed, before it is read
  const host = value.length > 254 ? null : bareHostOf(value);
  if (host === null || !/^[a-z0-9-]+(\.[a-z0-9-]+)*$/.test(host) || host.length > 253)
    throw new InvalidRequestError(forClient(`"${value}" is neither a domain nor an http(s) URL`));
  return { kind: 'domain', value: host };
}

/** Whether a rule covers a source URL. */
export function ruleMatches(rule: Pick<WebmentionRule, 'kind' | 'value'>, source: URL): boolean {
  if (rule.kind === 'domain') {
    const host = bareHost(source.hostname);
    return host === rule.value || host.endsWith(`.${rule.value}`);
  }
  // the host as typed in the rule: lower case, without a trailing dot (spam.example./ is spam.example/)
  const host = trimEndOf(source.hostname.toLowerCase(), '.') + (source.port === '' ? '' : `:${source.port}`);
  return source.href.startsWith(rule.value) || (source.protocol + '//' + host + source.pathname + source.search).startsWith(rule.value);
}

/**
 * What happens to a new mention from `source`: blocked, or admitted as
 * approved or held. `approvedBefore` answers whether the source's domain
 * already has an approved mention (for `first-from-domain`).
 */
export async function decideModeration(input: {
  source: URL;
  rules: readonly WebmentionRule[];
  policy: WebmentionModeration;
  approvedBefore: () => Promise<boolean>;
}): Promise<ModerationDecision> {
  const blocking = input.rules.find((rule) => rule.action === 'block' && ruleMatches(rule, input.source));
  if (blocking !== undefined) return { kind: 'blocked', rule: blocking };
  if (input.rules.some((rule) => rule.action === 'allow' && ruleMatches(rule, input.source)))
    return { kind: 'admit', approval: 'approved' };
  if (input.policy === 'none') return { kind: 'admit', approval: 'approved' };
  if (input.policy === 'all') return { kind: 'admit', approval: 'held' };
  return { kind: 'admit', approval: (await input.approvedBefore()) ? 'approved' : 'held' };
}
