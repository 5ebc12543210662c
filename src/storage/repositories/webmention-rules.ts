import type { Kysely } from 'kysely';
import type { Database, WebmentionRuleRow } from '../schema.js';

export const RULE_ACTIONS = ['block', 'allow'] as const;
export type RuleAction = (typeof RULE_ACTIONS)[number];
/** `domain`: the host and its subdomains (`www.` ignored); `prefix`: source URLs that start with the value. */
export type RuleKind = 'domain' | 'prefix';

export interface WebmentionRule {
  readonly id: string;
  /** The account whose mentions it applies to; null: every account's (set with the CLI). */
  readonly userId: string | null;
  readonly action: RuleAction;
  readonly kind: RuleKind;
  readonly value: string;
  readonly createdAt: string;
}

export type WebmentionRulesRepository = ReturnType<typeof createWebmentionRulesRepository>;

function toRule(row: WebmentionRuleRow): WebmentionRule {
  return {
    id: row.id,
    userId: row.user_id,
    action: row.action as RuleAction,
    kind: row.kind as RuleKind,
    value: row.value,
    createdAt: row.created_at,
  };
}

export function createWebmentionRulesRepository(db: Kysely<Database>) {
  return {
    /** Adds a rule unless the same one exists; returns the one stored. */
    async add(rule: Omit<WebmentionRule, 'createdAt'> & { now: string }): Promise<WebmentionRule> {
      const same = await db
        .selectFrom('indieweb_webmention_rule')
        .selectAll()
        .where('user_id', rule.userId === null ? 'is' : '=', rule.userId)
        .where('action', '=', rule.action)
        .where('kind', '=', rule.kind)
        .where('value', '=', rule.value)
        .executeTakeFirst();
      if (same !== undefined) return toRule(same);
      await db
        .insertInto('indieweb_webmention_rule')
        .values({ id: rule.id, user_id: rule.userId, action: rule.action, kind: rule.kind, value: rule.value, created_at: rule.now })
        .execute();
      return { id: rule.id, userId: rule.userId, action: rule.action, kind: rule.kind, value: rule.value, createdAt: rule.now };
    },

    /** Removes a rule of this scope (an account, or null for server-wide); false when there is none. */
    async remove(id: string, userId: string | null): Promise<boolean> {
      const result = await db
        .deleteFrom('indieweb_webmention_rule')
        .where('id', '=', id)
        .where('user_id', userId === null ? 'is' : '=', userId)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    /** The rules of one scope (an account, or null: server-wide), oldest first. */
    async listOf(userId: string | null): Promise<WebmentionRule[]> {
      const rows = await db
        .selectFrom('indieweb_webmention_rule')
        .selectAll()
        .where('user_id', userId === null ? 'is' : '=', userId)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      return rows.map(toRule);
    },

    /** Every rule that applies to an account's mentions: its own and the server-wide ones. */
    async applyingTo(userId: string | null): Promise<WebmentionRule[]> {
      let query = db.selectFrom('indieweb_webmention_rule').selectAll();
      query =
        userId === null
          ? query.where('user_id', 'is', null)
          : query.where((eb) => eb.or([eb('user_id', 'is', null), eb('user_id', '=', userId)]));
      return (await query.execute()).map(toRule);
    },

    async listAll(): Promise<WebmentionRule[]> {
      return (await db.selectFrom('indieweb_webmention_rule').selectAll().orderBy('created_at').orderBy('id').execute()).map(toRule);
    },
  };
}
