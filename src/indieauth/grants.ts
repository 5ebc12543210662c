/**
 * Grants: one authorization of one app, seen across both token tables.
 * Revocation always works on a whole grant.
 * @module
 */
import type { RefreshTokenRecord } from '../storage/repositories/refresh-tokens.js';
import type { TokenRecord } from '../storage/repositories/tokens.js';
import type { Repositories } from '../storage/unit-of-work.js';

/**
 * One authorization of one app: every access and refresh token issued from
 * one code (refreshes included), or one token issued alone. Alive while any
 * of its access tokens or refresh tokens can still be used.
 */
export interface Grant {
  readonly grantId: string;
  readonly userId: string;
  readonly clientId: string;
  readonly me: string;
  /** What the user approved: the refresh token's scope, else the newest live access token's. */
  readonly scope: string;
  /** When the first token of the grant was issued. */
  readonly createdAt: string;
  /** The last moment a token of the grant can be used (a refresh can push it further); null: never expires. */
  readonly expiresAt: string | null;
  readonly lastUsedAt: string | null;
  /** Live access tokens. */
  readonly accessTokens: number;
  /** True while a refresh token of the grant can be used. */
  readonly refreshable: boolean;
}

/**
 * Revokes a grant in both token tables; returns how many tokens were still
 * unrevoked. Call it inside a transaction. The refresh tokens are revoked a
 * second time, last: a refresh committing while the first statement waited
 * for its row (PostgreSQL, read committed) inserted a new refresh token that
 * statement could not see; a later statement sees it. A refresh starting
 * after the first statement finds its refresh token revoked and issues nothing.
 */
export async function revokeGrantWith(
  repositories: Pick<Repositories, 'tokens' | 'refreshTokens'>,
  grantId: string,
  now: string,
): Promise<number> {
  const refresh = await repositories.refreshTokens.revokeGrant(grantId, now);
  const access = await repositories.tokens.revokeGrant(grantId, now);
  const late = await repositories.refreshTokens.revokeGrant(grantId, now);
  return refresh + access + late;
}

/** The grants among these tokens that are still alive at `now` (an access or refresh token usable), newest first. */
export function liveGrants(access: readonly TokenRecord[], refresh: readonly RefreshTokenRecord[], now: string): Grant[] {
  const byGrant = new Map<string, { access: TokenRecord[]; refresh: RefreshTokenRecord[] }>();
  const entry = (grantId: string) => {
    let found = byGrant.get(grantId);
    if (found === undefined) byGrant.set(grantId, (found = { access: [], refresh: [] }));
    return found;
  };
  for (const token of access) entry(token.grantId).access.push(token);
  for (const token of refresh) entry(token.grantId).refresh.push(token);
  const grants: Grant[] = [];
  for (const [grantId, group] of byGrant) {
    const liveAccess = group.access.filter((t) => t.revokedAt === null && (t.expiresAt === null || t.expiresAt > now));
    const liveRefresh = group.refresh.filter((t) => t.revokedAt === null && t.usedAt === null && t.expiresAt > now);
    if (liveAccess.length === 0 && liveRefresh.length === 0) continue;
    const first = group.access[0] ?? group.refresh[0];
    if (first === undefined) continue;
    const expiries = [...liveAccess.map((t) => t.expiresAt), ...liveRefresh.map((t) => t.expiresAt)];
    const used = group.access.map((t) => t.lastUsedAt).filter((at): at is string => at !== null);
    grants.push({
      grantId,
      userId: first.userId,
      clientId: first.clientId,
      me: first.me,
      scope: liveRefresh[0]?.scope ?? liveAccess[0]?.scope ?? first.scope,
      createdAt: [...group.access, ...group.refresh].map((t) => t.createdAt).reduce((a, b) => (a < b ? a : b)),
      expiresAt: expiries.includes(null) ? null : (expiries as string[]).reduce((a, b) => (a > b ? a : b)),
      lastUsedAt: used.length === 0 ? null : used.reduce((a, b) => (a > b ? a : b)),
      accessTokens: liveAccess.length,
      refreshable: liveRefresh.length > 0,
    });
  }
  // newest first, as the token lists are
  return grants.sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : a.grantId.localeCompare(b.grantId)));
}

/** The grants of one app. */
export interface ClientGrants {
  readonly clientId: string;
  readonly grants: readonly Grant[];
}

/** Grants grouped by app, apps in the order their first grant comes, grants in their order. */
export function groupByClient(grants: readonly Grant[]): ClientGrants[] {
  const byClient = new Map<string, Grant[]>();
  for (const grant of grants) {
    const list = byClient.get(grant.clientId);
    if (list === undefined) byClient.set(grant.clientId, [grant]);
    else list.push(grant);
  }
  return [...byClient].map(([clientId, list]) => ({ clientId, grants: list }));
}
