import type { Clock } from '../core/clock.js';
import { MAX_LIFETIME_S } from '../config/config.js';
import { addSeconds } from '../core/clock.js';
import { randomId, randomToken, sha256Base64Url } from '../core/crypto.js';
import { InvalidRequestError, MalformedClientError, NotFoundError } from '../core/errors.js';
import { normalizeScope } from '../core/scope.js';
import { parseStrictHttpUrl } from '../core/url.js';
import type { HostUser } from '../contracts/accounts.js';
import type { RefreshTokensRepository } from '../storage/repositories/refresh-tokens.js';
import type { TokenRecord, TokensRepository } from '../storage/repositories/tokens.js';
import type { Transactor } from '../storage/unit-of-work.js';
import { groupByClient, liveGrants, revokeGrantWith, type ClientGrants, type Grant } from './grants.js';

export type TokenService = ReturnType<typeof createTokenService>;

export interface IssueTokenInput {
  readonly userId: string;
  readonly clientId: string;
  readonly me: string;
  readonly scope: string;
  /** Seconds until expiry; null issues a token without expiry (personal access token). */
  readonly expiresIn: number | null;
  /** The grant the token belongs to (shared with its refresh token); absent: a grant of its own. */
  readonly grantId?: string | null;
}

export interface IssuedToken {
  /** The secret itself: shown once, never stored. */
  readonly token: string;
  readonly record: TokenRecord;
}

/** A token that is accepted right now, with its owner. */
export interface ValidToken {
  readonly token: TokenRecord;
  readonly user: HostUser;
}

/** How often, at most, a token's last use is written (a write per request would dominate). */
export const LAST_USED_RESOLUTION_S = 60;

export interface TokenServiceDeps {
  /**
   * When given, a validated token is remembered for as long as this returns
   * the same non-null value (DatabaseHandle.changeStamp): only when the token
   * and its owner both live in that database.
   */
  readonly changeStamp?: () => string | null;
  readonly tokens: TokensRepository;
  /** Refresh tokens: a grant is revoked in both tables at once. */
  readonly refreshTokens: RefreshTokensRepository;
  readonly transact: Transactor;
  /** The owner of a token: our accounts in standalone mode, the host's in plugin mode. */
  readonly findUser: (id: string) => Promise<HostUser | null> | HostUser | null;
  readonly clock: Clock;
}

/** Longest life of an in-process token (one call of the admin's Write area). */
export const MAX_IN_PROCESS_LIFETIME_S = 300;

/** Validated tokens remembered at most (a bound on memory, not on time). */
export const VALIDATION_CACHE_SIZE = 10_000;

/**
 * The change stamp, read once for all validations that ask during one turn of
 * the event loop, and only after every one of them has asked (in the loop's
 * check phase, after the turn's sockets were read). Every request that shares
 * the reading was received before it, so a change committed before any of
 * them was sent is in it: exactly as fresh as a reading per request, at the
 * cost of one reading per turn instead of one per request.
 */
function stampAfterThisTurn(read: () => string | null): () => Promise<string | null> {
  let next: Promise<string | null> | null = null;
  return () =>
    (next ??= new Promise((resolve, reject) => {
      setImmediate(() => {
        next = null;
        try {
          resolve(read());
        } catch (error) {
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      });
    }));
}

export function createTokenService(deps: TokenServiceDeps) {
  const { tokens, refreshTokens, transact, findUser, clock } = deps;

  async function listGrants(filter: { userId?: string }): Promise<Grant[]> {
    const [access, refresh] = await Promise.all([tokens.list(filter), refreshTokens.list(filter)]);
    return liveGrants(access, refresh, clock.now().toISOString());
  }
  const validated = new Map<string, { readonly valid: ValidToken; readonly stamp: string; readonly lastUsedMs: number }>();
  /** In-process tokens by hash ({@link issueInProcess}); each is removed when its call ends. */
  const inProcess = new Map<string, TokenRecord>();

  function newToken(input: IssueTokenInput): IssuedToken {
    if (parseStrictHttpUrl(input.clientId) === null) throw new MalformedClientError('client_id');
    if (input.expiresIn !== null && (!Number.isSafeInteger(input.expiresIn) || input.expiresIn <= 0 || input.expiresIn > MAX_LIFETIME_S)) {
      throw new InvalidRequestError('expires_in must be a positive whole number of seconds');
    }
    const now = clock.now();
    const token = randomToken();
    const id = randomId();
    const record: TokenRecord = {
      id,
      userId: input.userId,
      clientId: input.clientId,
      me: input.me,
      scope: normalizeScope(input.scope),
      createdAt: now.toISOString(),
      expiresAt: input.expiresIn === null ? null : addSeconds(now, input.expiresIn).toISOString(),
      lastUsedAt: null,
      revokedAt: null,
      grantId: input.grantId ?? id,
    };
    return { token, record };
  }
  const changeStamp = deps.changeStamp === undefined ? null : stampAfterThisTurn(deps.changeStamp);

  return {
    async issue(input: IssueTokenInput, repository: TokensRepository = tokens): Promise<IssuedToken> {
      const issued = newToken(input);
      await repository.insert({ ...issued.record, tokenHash: sha256Base64Url(issued.token) });
      return issued;
    },

    /**
     * A token that lives only in this process's memory, for a request this
     * process sends itself (the admin's Write area through `inject()`): no
     * row is written, so page views leave nothing behind (issue 28 F21). It
     * is accepted by {@link validate} of this service alone, at most
     * `expiresIn` seconds (at most {@link MAX_IN_PROCESS_LIFETIME_S}) and
     * only while its owner is active; `end` forgets it. It never leaves the
     * process, so no other instance, client or revocation needs to know it.
     */
    issueInProcess(input: Omit<IssueTokenInput, 'grantId' | 'expiresIn'> & { readonly expiresIn: number }): IssuedToken & { end(): void } {
      if (input.expiresIn > MAX_IN_PROCESS_LIFETIME_S)
        throw new InvalidRequestError(`an in-process token lives at most ${MAX_IN_PROCESS_LIFETIME_S} seconds`);
      const issued = newToken(input);
      const hash = sha256Base64Url(issued.token);
      inProcess.set(hash, issued.record);
      return { ...issued, end: () => void inProcess.delete(hash) };
    },

    /** The stored record of a token, found by its hash only; null when unknown. */
    findByToken: (token: string) => tokens.findByHash(sha256Base64Url(token)),

    /** The token and its owner when the token is known, unrevoked, unexpired and its owner active. */
    async validate(token: string): Promise<ValidToken | null> {
      const hash = sha256Base64Url(token);
      // read before the lookups: a write landing in between leaves a stale stamp, so that entry is never used
      const stamp = changeStamp === null ? null : await changeStamp();
      const now = clock.now();
      if (stamp !== null) {
        const hit = validated.get(hash);
        if (
          hit !== undefined &&
          hit.stamp === stamp &&
          (hit.valid.token.expiresAt === null || hit.valid.token.expiresAt > now.toISOString()) &&
          hit.lastUsedMs + LAST_USED_RESOLUTION_S * 1000 > now.getTime()
        ) {
          return hit.valid;
        }
      }
      const own = inProcess.get(hash);
      if (own !== undefined) {
        if (own.expiresAt !== null && own.expiresAt <= now.toISOString()) {
          inProcess.delete(hash);
          return null;
        }
        const owner = await findUser(own.userId);
        return owner === null || !owner.isActive ? null : { token: own, user: owner };
      }
      const record = await tokens.findByHash(hash);
      if (record === null || record.revokedAt !== null) return null;
      // spec: a null expires_at is a legacy (or personal) token that stays valid
      if (record.expiresAt !== null && record.expiresAt <= now.toISOString()) return null;
      const user = await findUser(record.userId);
      if (user === null || !user.isActive) return null;
      let lastUsedMs = record.lastUsedAt === null ? -Infinity : Date.parse(record.lastUsedAt);
      if (lastUsedMs + LAST_USED_RESOLUTION_S * 1000 <= now.getTime()) {
        await tokens.touch(record.id, now.toISOString());
        lastUsedMs = now.getTime();
      }
      const valid = { token: record, user };
      if (stamp !== null) {
        if (validated.size >= VALIDATION_CACHE_SIZE) validated.clear();
        validated.set(hash, { valid, stamp, lastUsedMs });
      }
      return valid;
    },

    /** Access tokens, newest first, live or not. */
    list: (filter: { userId?: string } = {}) => tokens.list(filter),

    /** The grants still alive (an access or refresh token usable), newest first. */
    listGrants: (filter: { userId?: string } = {}) => listGrants(filter),

    /** The user's live grants by app (the connected apps page). */
    async grantsByClient(userId: string): Promise<ClientGrants[]> {
      return groupByClient(await listGrants({ userId }));
    },

    /**
     * Revokes the whole grant of an access token (found by its id), or the
     * grant of that id: every access and refresh token of it, in one
     * transaction. Returns the grant id.
     */
    async revoke(id: string): Promise<string> {
      const found = await tokens.findById(id);
      const grantId = found?.grantId ?? ((await tokens.hasGrant(id)) || (await refreshTokens.hasGrant(id)) ? id : null);
      if (grantId === null) throw new NotFoundError(`no token with id "${id}"`);
      const now = clock.now().toISOString();
      await transact((repositories) => revokeGrantWith(repositories, grantId, now));
      return grantId;
    },

    /**
     * Revokes grants of one user, all of them or those of one client, in one
     * transaction; another user's grants are never touched. Returns how many
     * grants were revoked.
     */
    async revokeGrants(userId: string, which: { grantId?: string; clientId?: string }): Promise<number> {
      const grants = (await listGrants({ userId })).filter(
        (grant) =>
          (which.grantId === undefined || grant.grantId === which.grantId) &&
          (which.clientId === undefined || grant.clientId === which.clientId),
      );
      if (grants.length === 0) return 0;
      const now = clock.now().toISOString();
      await transact(async (repositories) => {
        for (const grant of grants) await revokeGrantWith(repositories, grant.grantId, now);
      });
      return grants.length;
    },
  };
}

/** Seconds of lifetime left, never negative; null when the token has no expiry. */
export function remainingLifetime(record: TokenRecord, now: Date): number | null {
  if (record.expiresAt === null) return null;
  return Math.max(0, Math.floor((Date.parse(record.expiresAt) - now.getTime()) / 1000));
}
