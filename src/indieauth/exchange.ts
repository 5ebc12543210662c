/**
 * Redeeming an authorization code: at the token endpoint for an access
 * token, at the authorization endpoint for the `me` alone.
 * @see SPEC.md "Token endpoint", "Authorization code" state table
 * @module
 */
import type { HostUser } from '../contracts/accounts.js';
import { addSeconds, type Clock } from '../core/clock.js';
import { randomId, randomToken, sha256Base64Url } from '../core/crypto.js';
import { IndieWebError, InvalidClientError, InvalidGrantError, InvalidRequestError, MalformedClientError } from '../core/errors.js';
import { readParam } from '../core/params.js';
import { normalizeScope, scopeNames } from '../core/scope.js';
import { parseStrictHttpUrl, profileUrlKey, sameUrlIgnoringSchemeHostCase } from '../core/url.js';
import type { AuthCodeRecord, AuthCodesRepository } from '../storage/repositories/auth-codes.js';
import type { RefreshTokensRepository } from '../storage/repositories/refresh-tokens.js';
import type { Repositories, Transactor } from '../storage/unit-of-work.js';
import type { ClientPolicy } from './client-policy.js';
import { isPkceValue, verifyPkce } from './pkce.js';
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
  if (code === undefined || code === '' || clientId === undefined || clientId === '') throw new InvalidRequestError('code and client_id are required');
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

export class InvalidScopeError extends IndieWebError {
  readonly code = 'invalid_scope';
  readonly status = 400;
}

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
      const now = clock.now().toISOString();
      await repositories.refreshTokens.revokeGrant(record.grantId, now);
      await repositories.tokens.revokeGrant(record.grantId, now);
    });
  };

  async function issueRefresh(repositories: Repositories, grant: { grantId: string; userId: string; clientId: string; me: string; scope: string }): Promise<string> {
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
    if (request.redirectUri !== undefined && parseStrictHttpUrl(request.redirectUri) === null) throw new InvalidGrantError('malformed redirect_uri');
    if (request.codeVerifier !== undefined && !isPkceValue(request.codeVerifier)) throw new InvalidGrantError('malformed code_verifier');

    const codeHash = sha256Base64Url(request.code);
    const record = await authCodes.findByHash(codeHash);
    const now = clock.now().toISOString();
    if (record === null || record.consumedAt !== null || record.expiresAt <= now) throw new InvalidGrantError('unknown, used or expired code');
    if (!sameUrlIgnoringSchemeHostCase(record.clientId, request.clientId)) throw new InvalidGrantError('client_id differs from the code');
    if (request.redirectUri !== undefined && !sameUrlIgnoringSchemeHostCase(record.redirectUri, request.redirectUri)) {
      throw new InvalidGrantError('redirect_uri differs from the code');
    }
    // DESIGN: a client can never obtain a token claiming someone else's profile
    if (request.me !== undefined && profileUrlKey(request.me) !== profileUrlKey(record.me)) throw new InvalidGrantError('me differs from the code');
    // spec: the endpoint never broadens, narrows or replaces scope; explicit empty matches only no-scope codes
    if (request.scope !== undefined && normalizeScope(request.scope) !== record.scope) throw new InvalidGrantError('scope differs from the code');
    if (record.codeChallenge !== null) {
      if (request.codeVerifier === undefined) throw new InvalidGrantError('code_verifier required');
      if (!verifyPkce(record.codeChallengeMethod ?? 'plain', record.codeChallenge, request.codeVerifier)) throw new InvalidGrantError('code_verifier does not match');
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
    async exchange(request: CodeRedemption, options: { withRefresh?: boolean } = {}): Promise<IssuedToken & { user: HostUser; refreshToken: string | null }> {
      const { codeHash, record, user } = await check(request);
      const issued = await transact(async (repositories) => {
        if (!(await repositories.authCodes.consume(codeHash, clock.now().toISOString()))) throw new InvalidGrantError('code already used');
        // IndieAuth: an empty scope grants no access worth keeping: no refresh token for it
        const grantId = options.withRefresh === true && record.scope !== '' ? randomId() : null;
        const access = await tokens.issue({ userId: record.userId, clientId: record.clientId, me: record.me, scope: record.scope, expiresIn: tokenLifetime, grantId }, repositories.tokens);
        const refreshToken = grantId === null ? null : await issueRefresh(repositories, { grantId, userId: record.userId, clientId: record.clientId, me: record.me, scope: record.scope });
        return { ...access, refreshToken };
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
      if (presented === undefined || presented === '' || clientId === undefined || clientId === '') throw new InvalidRequestError('refresh_token and client_id are required');
      if (parseStrictHttpUrl(clientId) === null) throw new MalformedClientError('client_id');
      if (!(await clientPolicy.isAllowed(clientId))) throw new InvalidClientError('client refused by policy');
      const requested = readParam(body, 'scope');
      // the owner is looked up before the transaction: on SQLite a query outside it would wait for it forever
      const found = await refreshTokens.findByHash(sha256Base64Url(presented));
      const owner = found === null ? null : await findUser(found.userId);
      return transact(async (repositories) => {
        const record = await repositories.refreshTokens.findByHash(sha256Base64Url(presented));
        const now = clock.now().toISOString();
        if (record === null || record.revokedAt !== null || record.expiresAt <= now) throw new InvalidGrantError('unknown, revoked or expired refresh token');
        if (!sameUrlIgnoringSchemeHostCase(record.clientId, clientId)) throw new InvalidGrantError('client_id differs from the grant');
        // a refresh token is good once: a second use means it leaked, so the whole grant goes (after this rollback)
        if (record.usedAt !== null || !(await repositories.refreshTokens.use(record.id, now))) throw new ReplayedRefreshTokenError('refresh token replayed; grant revoked');
        const granted = scopeNames(record.scope);
        const scope = requested === undefined ? record.scope : normalizeScope(requested);
        if (!scopeNames(scope).every((name) => granted.includes(name))) throw new InvalidScopeError('scope wider than the grant');
        // IndieAuth 5.3.3: empty scopes are invalid; no access token for them
        if (scope === '') throw new InvalidScopeError('empty scope');
        if (owner === null || !owner.isActive || owner.id !== record.userId) throw new InvalidGrantError('owner inactive');
        const access = await tokens.issue({ userId: record.userId, clientId: record.clientId, me: record.me, scope, expiresIn: tokenLifetime, grantId: record.grantId }, repositories.tokens);
        const refreshToken = await issueRefresh(repositories, { grantId: record.grantId, userId: record.userId, clientId: record.clientId, me: record.me, scope: record.scope });
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
     * Revocation (RFC 7009): an access token is revoked; a refresh token
     * revokes its whole grant. Unknown values are fine: nothing to do.
     */
    async revoke(token: string): Promise<void> {
      const now = clock.now().toISOString();
      await transact(async (repositories) => {
        const hash = sha256Base64Url(token);
        const access = await repositories.tokens.findByHash(hash);
        if (access !== null) {
          await repositories.tokens.revoke(access.id, now);
          return;
        }
        const refresh = await repositories.refreshTokens.findByHash(hash);
        if (refresh !== null) {
          await repositories.refreshTokens.revokeGrant(refresh.grantId, now);
          await repositories.tokens.revokeGrant(refresh.grantId, now);
        }
      });
    },

    /** Code → `me` (authentication only). The code is consumed. */
    async verify(request: CodeRedemption): Promise<Redeemed> {
      const { codeHash, record, user } = await check(request);
      if (!(await authCodes.consume(codeHash, clock.now().toISOString()))) throw new InvalidGrantError('code already used');
      return { code: record, user };
    },
  };
}
