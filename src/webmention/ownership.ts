/**
 * Whose a webmention is: the one rule behind every per-user view of mentions
 * (the admin list and its actions). The owner is decided from the target
 * when a mention is received (and again when the same pair is sent again),
 * and stored with it, so that lists filter by owner in SQL:
 *
 * 1. the owner of the entry at the target: the Micropub handler is asked
 *    (`getEntry` answers only a user's own entries) for each account whose
 *    entries can live on the target's host;
 * 2. else the account whose profile URL (`me`) is the longest prefix of the
 *    target: same host (`www.` and scheme ignored), path segment by segment;
 * 3. else, when the server has exactly one account, that account: the whole
 *    site is theirs;
 * 4. else nobody. No account's admin shows such a mention (there is no
 *    site-wide admin role); the operator moderates it with the CLI.
 *
 * Two accounts with equal claims on one step (the same profile prefix, or a
 * handler that knows the entry as both users') make the mention nobody's.
 * @module
 */
import type { HostUser } from '../contracts/accounts.js';
import type { WebmentionRecord } from '../storage/repositories/webmentions.js';
import { bareHost as bare } from './host.js';

export type WebmentionOwnership = ReturnType<typeof createWebmentionOwnership>;

/** How much of `target` the profile URL `me` covers (its path with a final slash), or -1 when it does not cover it. */
function profileClaim(target: URL, me: string): number {
  let profile: URL;
  try {
    profile = new URL(me);
  } catch {
    return -1;
  }
  if (bare(profile.host) !== bare(target.host)) return -1;
  const prefix = profile.pathname.endsWith('/') ? profile.pathname : `${profile.pathname}/`;
  const path = target.pathname.endsWith('/') ? target.pathname : `${target.pathname}/`;
  return path.startsWith(prefix) ? prefix.length : -1;
}

/** The one user of `claims` with the highest claim; null when none or tied. */
function strongest(claims: readonly { readonly userId: string; readonly claim: number }[]): string | null {
  let best: { userId: string; claim: number } | null = null;
  let tied = false;
  for (const candidate of claims) {
    if (best === null || candidate.claim > best.claim) {
      best = candidate;
      tied = false;
    } else if (candidate.claim === best.claim && candidate.userId !== best.userId) {
      tied = true;
    }
  }
  return best === null || tied ? null : best.userId;
}

export function createWebmentionOwnership(deps: {
  /** Every account; null when they cannot be listed (a host's accounts without `listUsers`): then nobody owns anything. */
  listUsers: (() => Promise<readonly HostUser[]>) | null;
  /** The hosts (`host[:port]`) where the user's entries can live. */
  entryHosts: (user: HostUser) => readonly string[];
  /** Whether the Micropub handler knows the entry at `url` as the user's. */
  isEntryOf: (url: string, user: HostUser) => Promise<boolean>;
  /** A handler lookup that failed (the account is then not the entry's owner). */
  onLookupError?: (error: unknown) => void;
}) {
  async function entryOwner(target: URL, users: readonly HostUser[]): Promise<string | null | 'ambiguous'> {
    const owners = new Set<string>();
    for (const user of users) {
      if (!deps.entryHosts(user).some((host) => bare(host) === bare(target.host))) continue;
      try {
        if (await deps.isEntryOf(target.href, user)) owners.add(user.id);
      } catch (error) {
        deps.onLookupError?.(error);
      }
    }
    if (owners.size > 1) return 'ambiguous';
    return owners.values().next().value ?? null;
  }

  return {
    /** The id of the account `target` belongs to, or null when nobody identifiable. */
    async ownerOf(target: string): Promise<string | null> {
      if (deps.listUsers === null) return null;
      let url: URL;
      try {
        url = new URL(target);
      } catch {
        return null;
      }
      const users = await deps.listUsers();
      const byEntry = await entryOwner(url, users);
      if (byEntry === 'ambiguous') return null;
      if (byEntry !== null) return byEntry;
      const claims = users
        .flatMap((user) => user.me.map((me) => ({ userId: user.id, claim: profileClaim(url, me) })))
        .filter((c) => c.claim >= 0);
      if (claims.length > 0) return strongest(claims);
      return users.length === 1 ? users[0]!.id : null;
    },

    /** Whether the mention is the user's: the stored owner decides, nothing else. */
    owns(user: HostUser, record: Pick<WebmentionRecord, 'ownerId'>): boolean {
      return record.ownerId !== null && record.ownerId === user.id;
    },
  };
}
