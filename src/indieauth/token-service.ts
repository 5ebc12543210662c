import type { Clock } from '../core/clock.js';
import { MAX_LIFETIME_S } from '../config/env.js';
import { addSeconds } from '../core/clock.js';
import { randomId, randomToken, sha256Base64Url } from '../core/crypto.js';
import { InvalidRequestError, MalformedClientError, NotFoundError } from '../core/errors.js';
import { normalizeScope } from '../core/scope.js';
import { parseStrictHttpUrl } from '../core/url.js';
import type { HostUser } from '../contracts/accounts.js';
import type { TokenRecord, TokensRepository } from '../storage/repositories/tokens.js';

export type TokenService = ReturnType<typeof createTokenService>;

export interface IssueTokenInput {
  readonly userId: string;
  readonly clientId: string;
  readonly me: string;
  readonly scope: string;
  /** Seconds until expiry; null issues a token without expiry (personal access token). */
  readonly expiresIn: number | null;
  /** The grant the token belongs to, when it comes with a refresh token. */
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
  /** The owner of a token: our accounts in standalone mode, the host's in plugin mode. */
  readonly findUser: (id: string) => Promise<HostUser | null> | HostUser | null;
  readonly clock: Clock;
}

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
  const { tokens, findUser, clock } = deps;
  const validated = new Map<string, { readonly valid: ValidToken; readonly stamp: string; readonly lastUsedMs: number }>();
  const changeStamp = deps.changeStamp === undefined ? null : stampAfterThisTurn(deps.changeStamp);

  return {
    async issue(input: IssueTokenInput, repository: TokensRepository = tokens): Promise<IssuedToken> {
      if (parseStrictHttpUrl(input.clientId) === null) throw new MalformedClientError('client_id');
      if (input.expiresIn !== null && (!Number.isSafeInteger(input.expiresIn) || input.expiresIn <= 0 || input.expiresIn > MAX_LIFETIME_S)) {
        throw new InvalidRequestError('expires_in must be a positive whole number of seconds');
      }
      const now = clock.now();
      const token = randomToken();
      const record: TokenRecord = {
        id: randomId(),
        userId: input.userId,
        clientId: input.clientId,
        me: input.me,
        scope: normalizeScope(input.scope),
        createdAt: now.toISOString(),
        expiresAt: input.expiresIn === null ? null : addSeconds(now, input.expiresIn).toISOString(),
        lastUsedAt: null,
        revokedAt: null,
        grantId: input.grantId ?? null,
      };
      await repository.insert({ ...record, tokenHash: sha256Base64Url(token) });
      return { token, record };
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

    list: (filter: { userId?: string } = {}) => tokens.list(filter),

    /** Revokes the token itself (by its value), and its whole grant when it has one. False when unknown. */
    async revokeByToken(token: string): Promise<TokenRecord | null> {
      const record = await tokens.findByHash(sha256Base64Url(token));
      if (record === null) return null;
      const now = clock.now().toISOString();
      await tokens.revoke(record.id, now);
      return record;
    },

    async revoke(id: string): Promise<void> {
      const found = await tokens.findById(id);
      if (found === null) throw new NotFoundError(`no token with id "${id}"`);
      await tokens.revoke(id, clock.now().toISOString());
    },
  };
}

/** Seconds of lifetime left, never negative; null when the token has no expiry. */
export function remainingLifetime(record: TokenRecord, now: Date): number | null {
  if (record.expiresAt === null) return null;
  return Math.max(0, Math.floor((Date.parse(record.expiresAt) - now.getTime()) / 1000));
}
