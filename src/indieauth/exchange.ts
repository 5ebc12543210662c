/**
 * Redeeming an authorization code: at the token endpoint for an access
 * token, at the authorization endpoint for the `me` alone.
 * @see SPEC.md "Token endpoint", "Authorization code" state table
 * @module
 */
import type { HostUser } from '../contracts/accounts.js';
import type { Clock } from '../core/clock.js';
import { sha256Base64Url } from '../core/crypto.js';
import { InvalidClientError, InvalidGrantError, InvalidRequestError, MalformedClientError } from '../core/errors.js';
import { readParam } from '../core/params.js';
import { normalizeScope } from '../core/scope.js';
import { parseStrictHttpUrl, profileUrlKey, sameUrlIgnoringSchemeHostCase } from '../core/url.js';
import type { AuthCodeRecord, AuthCodesRepository } from '../storage/repositories/auth-codes.js';
import type { Transactor } from '../storage/unit-of-work.js';
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

export type ExchangeService = ReturnType<typeof createExchangeService>;

export function createExchangeService(deps: {
  authCodes: AuthCodesRepository;
  transact: Transactor;
  tokens: TokenService;
  clientPolicy: ClientPolicy;
  findUser: (id: string) => Promise<HostUser | null> | HostUser | null;
  clock: Clock;
  tokenLifetime: number;
}) {
  const { authCodes, transact, tokens, clientPolicy, findUser, clock, tokenLifetime } = deps;

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
    /** Code → access token. The code is consumed and the token created in one transaction. */
    async exchange(request: CodeRedemption): Promise<IssuedToken & { user: HostUser }> {
      const { codeHash, record, user } = await check(request);
      const issued = await transact(async (repositories) => {
        if (!(await repositories.authCodes.consume(codeHash, clock.now().toISOString()))) throw new InvalidGrantError('code already used');
        return tokens.issue({ userId: record.userId, clientId: record.clientId, me: record.me, scope: record.scope, expiresIn: tokenLifetime }, repositories.tokens);
      });
      return { ...issued, user };
    },

    /** Code → `me` (authentication only). The code is consumed. */
    async verify(request: CodeRedemption): Promise<Redeemed> {
      const { codeHash, record, user } = await check(request);
      if (!(await authCodes.consume(codeHash, clock.now().toISOString()))) throw new InvalidGrantError('code already used');
      return { code: record, user };
    },
  };
}
