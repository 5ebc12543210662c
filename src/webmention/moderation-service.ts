/**
 * Moderating mentions: approve (optionally always allowing the source's
 * domain from then on), reject, the block and allow lists of an account
 * (or, with `null`, of the whole server), and what a new mention's fate is.
 * @module
 */
import type { WebmentionModeration } from '../config/config.js';
import type { Clock } from '../core/clock.js';
import { randomId } from '../core/crypto.js';
import { forClient, InvalidRequestError, NotFoundError } from '../core/errors.js';
import { requireMention as findMention } from './require-mention.js';
import type { RuleAction, WebmentionRule, WebmentionRulesRepository } from '../storage/repositories/webmention-rules.js';
import type { WebmentionRecord, WebmentionsRepository } from '../storage/repositories/webmentions.js';
import { bareHost } from './host.js';
import { decideModeration, parseRuleValue, type ModerationDecision } from './moderation.js';

export type ModerationService = ReturnType<typeof createModerationService>;

export function createModerationService(deps: {
  webmentions: WebmentionsRepository;
  rules: WebmentionRulesRepository;
  policy: WebmentionModeration;
  clock: Clock;
  /** Told after a mention was approved (webhooks). */
  onApproved?: (record: WebmentionRecord) => Promise<void>;
}) {
  const { webmentions, rules, policy, clock } = deps;
  const now = () => clock.now().toISOString();

  const requireMention = (id: string): Promise<WebmentionRecord> => findMention(webmentions, id);

  async function addRule(userId: string | null, action: RuleAction, raw: string): Promise<WebmentionRule> {
    const { kind, value } = parseRuleValue(raw);
    return rules.add({ id: randomId(), userId, action, kind, value, now: now() });
  }

  return {
    /** The fate of a new mention from `source` to an account's page. */
    async decide(source: URL, ownerId: string | null): Promise<ModerationDecision> {
      const host = bareHost(source.hostname);
      return decideModeration({
        source,
        rules: await rules.applyingTo(ownerId),
        policy,
        approvedBefore: () => webmentions.hasApprovedFromHost(ownerId, { exact: host, www: `www.${host}` }),
      });
    },

    /** Makes a mention public (once verified); with `allowDomain`, its source's domain is allowed from now on. */
    async approve(id: string, options: { allowDomain?: boolean } = {}): Promise<WebmentionRecord> {
      const record = await requireMention(id);
      await webmentions.setApproval(record.id, 'approved', now());
      if (options.allowDomain === true) await addRule(record.ownerId, 'allow', new URL(record.source).hostname);
      const approved = { ...record, approval: 'approved' as const };
      if (record.approval !== 'approved' && record.status === 'verified') await deps.onApproved?.(approved);
      return approved;
    },

    /** Keeps a mention out of the API for good (it stays stored). */
    async reject(id: string): Promise<void> {
      const record = await requireMention(id);
      await webmentions.setApproval(record.id, 'rejected', now());
    },

    addRule,

    async removeRule(id: string, userId: string | null): Promise<void> {
      if (!(await rules.remove(id, userId))) throw new InvalidRequestError(forClient(`no rule ${id}`));
    },

    listRules: (userId: string | null) => rules.listOf(userId),
    listAllRules: () => rules.listAll(),
    countHeld: (userId: string | null) => webmentions.countHeld(userId),
  };
}
