/**
 * Redeeming an authorization code: at the token endpoint for an access
 * token, at the authorization endpoint for the `me` alone.
 * @see SPEC.md "Token endpoint", "Authorization code" state table
 * @module
 */
import type { HostUser } from '../contracts/accounts.js';
import { addSeconds, type Clock } from '../core/clock.js';
import { randomId, randomToken, sha256Base64Url } from '../core/crypto.js';
import { InvalidClientError, InvalidScopeError, InvalidGrantError, InvalidRequestError, MalformedClientError } from '../core/errors.js';
import { readParam } from '../core/params.js';
import { normalizeScope, scopeNames } from '../core/scope.js';
import { parseStrictHttpUrl, profileUrlKey, sameUrlIgnoringSchemeHostCase } from '../core/url.js';
import type { AuthCodeRecord, AuthCodesRepository } from '../storage/repositories/auth-codes.js';
import type { RefreshTokensRepository } from '../storage/repositories/refresh-tokens.js';
import type { Repositories, Transactor } from '../storage/unit-of-work.js';
import type { ClientPolicy } from './client-policy.js';
import { isPkceValue, verifyPkce } from './pkce.js';
import { revokeGrantWith } from './grants.js';
import type { IssuedToken, TokenService } from './token-service.js';

export interface CodeRedemption {
  readonly code: string;
  readonly clientId: string;
  readonly redirectUri: string | undefined;
  readonly me: string | undefined;
  /** undefined when not sent; '' is an explicit empty scope. */
  readonly scope: string | undefined;
  readonly codeVerifier: string | undefined;
}

/**
 * Reads the redemption parameters. Missing code or client_id, and a
 * malformed client_id, are `invalid_request`.
 */
export function parseCodeRedemption(body: unknown): CodeRedemption {
  const code = readParam(body, 'code');
  const clientId = readParam(body, 'client_id');
  if (code === undefined || code === '' || clientId === undefined || clientId === '')
    throw new InvalidRequestError('code and client_id are required');
  if (parseStrictHttpUrl(clientId) === null) throw new MalformedClientError('client_id');
  return {
    code,
    clientId,
    redirectUri: readParam(body, 'redirect_uri'),
    me: readParam(body, 'me'),
    scope: readParam(body, 'scope'),
    codeVerifier: readParam(body, 'code_verifier'),
  };
}

export interface Redeemed {
  readonly code: AuthCodeRecord;
  readonly user: HostUser;
}

/** Raised inside the refresh transaction so it rolls back; the grant is then revoked outside it. */
class ReplayedRefreshTokenError extends Error {}

/** Raised when a code is presented after it was redeemed; the grant issued from it is then revoked. */
class ReplayedCodeError extends Error {}

export type ExchangeService = ReturnType<typeof createExchangeService>;

export function createExchangeService(deps: {
  authCodes: AuthCodesRepository;
  refreshTokens: RefreshTokensRepository;
  transact: Transactor;
  tokens: TokenService;
  clientPolicy: ClientPolicy;
  findUser: (id: string) => Promise<HostUser | null> | HostUser | null;
  clock: Clock;
  tokenLifetime: number;
  refreshLifetime: number;
}) {
  const { authCodes, refreshTokens, transact, tokens, clientPolicy, findUser, clock, tokenLifetime, refreshLifetime } = deps;

  const revokeReplayedGrant = async (presented: string) => {
    await transact(async (repositories) => {
      const record = await repositories.refreshTokens.findByHash(sha256Base64Url(presented));
      if (record === null) return;
      await revokeGrantWith(repositories, record.grantId, clock.now().toISOString());
    });
  };

  /**
   * RFC 6749 4.1.2: a code used twice means it leaked; every token issued
   * from it goes. Codes are kept (marked used) until a day past expiry for this.
   */
  const revokeGrantOfCode = async (codeHash: string): Promise<InvalidGrantError> => {
    await transact(async (repositories) => {
      const record = await repositories.authCodes.findByHash(codeHash);
      if (record?.grantId === null || record?.grantId === undefined) return;
      await revokeGrantWith(repositories, record.grantId, clock.now().toISOString());
    });
    return new InvalidGrantError('code already used; the grant issued from it is revoked');
  };

  async function issueRefresh(
    repositories: Repositories,
    grant: { grantId: string; userId: string; clientId: string; me: string; scope: string },
  ): Promise<string> {
    const refreshToken = randomToken();
    const now = clock.now();
    await repositories.refreshTokens.insert(
      { id: randomId(), ...grant, createdAt: now.toISOString(), expiresAt: addSeconds(now, refreshLifetime).toISOString() },
      sha256Base64Url(refreshToken),
    );
    return refreshToken;
  }

  /** Every check of the token endpoint's parameter table; throws `invalid_grant` on the first failure. */
  async function check(request: CodeRedemption): Promise<{ codeHash: string; record: AuthCodeRecord; user: HostUser }> {
    if (!(await clientPolicy.isAllowed(request.clientId))) throw new InvalidClientError('client refused by policy');
    if (request.redirectUri !== undefined && parseStrictHttpUrl(request.redirectUri) === null)
      throw new InvalidGrantError('malformed redirect_uri');
    if (request.codeVerifier !== undefined && !isPkceValue(request.codeVerifier)) throw new InvalidGrantError('malformed code_verifier');

    const codeHash = sha256Base64Url(request.code);
    // one query per turn of the event loop for every code presented in it (a flood of bad codes included)
    const record = await authCodes.findByHashInTurn(codeHash);
    const now = clock.now().toISOString();
    if (record !== null && record.consumedAt !== null) throw await revokeGrantOfCode(codeHash);
    if (record === null || record.expiresAt <= now) throw new InvalidGrantError('unknown or expired code');
    if (!sameUrlIgnoringSchemeHostCase(record.clientId, request.clientId)) throw new InvalidGrantError('client_id differs from the code');
    if (request.redirectUri !== undefined && !sameUrlIgnoringSchemeHostCase(record.redirectUri, request.redirectUri)) {
      throw new InvalidGrantError('redirect_uri differs from the code');
    }
    // DESIGN: a client can never obtain a token claiming someone else's profile
    if (request.me !== undefined && profileUrlKey(request.me) !== profileUrlKey(record.me))
      throw new InvalidGrantError('me differs from the code');
    // spec: the endpoint never broadens, narrows or replaces scope; explicit empty matches only no-scope codes
    if (request.scope !== undefined && normalizeScope(request.scope) !== record.scope)
      throw new InvalidGrantError('scope differs from the code');
    if (record.codeChallenge !== null) {
      if (request.codeVerifier === undefined) throw new InvalidGrantError('code_verifier required');
      if (!verifyPkce(record.codeChallengeMethod ?? 'plain', record.codeChallenge, request.codeVerifier))
        throw new InvalidGrantError('code_verifier does not match');
    } else if (request.codeVerifier !== undefined) {
      throw new InvalidGrantError('code_verifier sent for a code without challenge');
    }
    const user = await findUser(record.userId);
    if (user === null || !user.isActive) throw new InvalidGrantError('owner inactive');
    return { codeHash, record, user };
  }

  return {
    /**
     * Code → access token (and a refresh token when asked for). The code is
     * consumed and the tokens created in one transaction.
     */
    async exchange(
      request: CodeRedemption,
      options: { withRefresh?: boolean } = {},
    ): Promise<IssuedToken & { user: HostUser; refreshToken: string | null }> {
      const { codeHash, record, user } = await check(request);
      // every token issued from this code (refreshes included) shares one grant, which the code remembers
      const grantId = randomId();
      const issued = await transact(async (repositories) => {
        if (!(await repositories.authCodes.consume(codeHash, clock.now().toISOString(), grantId)))
          throw new ReplayedCodeError('code already used');
        const access = await tokens.issue(
          { userId: record.userId, clientId: record.clientId, me: record.me, scope: record.scope, expiresIn: tokenLifetime, grantId },
          repositories.tokens,
        );
        // IndieAuth: an empty scope grants no access worth keeping: no refresh token for it
        const withRefresh = options.withRefresh === true && record.scope !== '';
        const refreshToken = withRefresh
          ? await issueRefresh(repositories, {
              grantId,
              userId: record.userId,
              clientId: record.clientId,
              me: record.me,
              scope: record.scope,
            })
          : null;
        return { ...access, refreshToken };
      }).catch(async (error: unknown) => {
        // lost a race with another redemption of the same code: that is a replay too (after this rollback)
        if (error instanceof ReplayedCodeError) throw await revokeGrantOfCode(codeHash);
        throw error;
      });
      return { ...issued, user };
    },

    /**
     * `grant_type=refresh_token`: rotates the refresh token and issues a new
     * access token, optionally with a narrower scope. A refresh token used a
     * second time (replay) revokes the whole grant.
     */
    async refresh(body: unknown): Promise<IssuedToken & { user: HostUser; refreshToken: string }> {
      const presented = readParam(body, 'refresh_token');
      const clientId = readParam(body, 'client_id');
      if (presented === undefined || presented === '' || clientId === undefined || clientId === '')
        throw new InvalidRequestError('refresh_token and client_id are required');
      if (parseStrictHttpUrl(clientId) === null) throw new MalformedClientError('client_id');
      if (!(await clientPolicy.isAllowed(clientId))) throw new InvalidClientError('client refused by policy');
      const requested = readParam(body, 'scope');
      // the owner is looked up before the transaction: on SQLite a query outside it would wait for it forever
      const found = await refreshTokens.findByHash(sha256Base64Url(presented));
      const owner = found === null ? null : await findUser(found.userId);
      return transact(async (repositories) => {
        const record = await repositories.refreshTokens.findByHash(sha256Base64Url(presented));
        const now = clock.now().toISOString();
        if (record === null || record.revokedAt !== null || record.expiresAt <= now)
          throw new InvalidGrantError('unknown, revoked or expired refresh token');
        if (!sameUrlIgnoringSchemeHostCase(record.clientId, clientId)) throw new InvalidGrantError('client_id differs from the grant');
        // a refresh token is good once: a second use means it leaked, so the whole grant goes (after this rollback)
        if (record.usedAt !== null || !(await repositories.refreshTokens.use(record.id, now)))
          throw new ReplayedRefreshTokenError('refresh token replayed; grant revoked');
        const granted = scopeNames(record.scope);
        const scope = requested === undefined ? record.scope : normalizeScope(requested);
        if (!scopeNames(scope).every((name) => granted.includes(name))) throw new InvalidScopeError('scope wider than the grant');
        // IndieAuth 5.3.3: empty scopes are invalid; no access token for them
        if (scope === '') throw new InvalidScopeError('empty scope');
        if (owner === null || !owner.isActive || owner.id !== record.userId) throw new InvalidGrantError('owner inactive');
        const access = await tokens.issue(
          { userId: record.userId, clientId: record.clientId, me: record.me, scope, expiresIn: tokenLifetime, grantId: record.grantId },
          repositories.tokens,
        );
        const refreshToken = await issueRefresh(repositories, {
          grantId: record.grantId,
          userId: record.userId,
          clientId: record.clientId,
          me: record.me,
          scope: record.scope,
        });
        return { ...access, refreshToken, user: owner };
      }).catch(async (error: unknown) => {
        // the replay revocation must land even though the exchange fails
        if (error instanceof ReplayedRefreshTokenError) {
          await revokeReplayedGrant(presented);
          throw new InvalidGrantError(error.message);
        }
        throw error;
      });
    },

    /**
     * Revocation (RFC 7009): an access token or a refresh token revokes its
     * whole grant, in both tables (RFC 7009 2.1 allows either direction).
     * Unknown values are fine: nothing to do.
     */
    async revoke(token: string): Promise<void> {
      const now = clock.now().toISOString();
      await transact(async (repositories) => {
        const hash = sha256Base64Url(token);
        const grantId =
          (await repositories.tokens.findByHash(hash))?.grantId ?? (await repositories.refreshTokens.findByHash(hash))?.grantId;
        if (grantId !== undefined) await revokeGrantWith(repositories, grantId, now);
      });
    },

    /** Code → `me` (authentication only). The code is consumed. */
    async verify(request: CodeRedemption): Promise<Redeemed> {
      const { codeHash, record, user } = await check(request);
      if (!(await authCodes.consume(codeHash, clock.now().toISOString()))) throw await revokeGrantOfCode(codeHash);
      return { code: record, user };
    },
  };
}
