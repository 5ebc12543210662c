/**
 * The authorization request: its parameter rules, and the code issued once
 * the signed-in user approves.
 * @see SPEC.md "Authorization endpoint", "Authorization code record (Auth)"
 * @module
 */
import type { HostUser } from '../contracts/accounts.js';
import { addSeconds, type Clock } from '../core/clock.js';
import { randomToken, sha256Base64Url } from '../core/crypto.js';
import { InvalidClientError, InvalidRequestError, MalformedClientError, MissingParameterError } from '../core/errors.js';
import { readParam } from '../core/params.js';
import { normalizeScope } from '../core/scope.js';
import { parseStrictHttpUrl, profileUrlKey } from '../core/url.js';
import type { AuthCodesRepository } from '../storage/repositories/auth-codes.js';
import type { ClientPolicy } from './client-policy.js';
import { isPkceMethod, isPkceValue, type PkceMethod } from './pkce.js';

export interface AuthorizationRequest {
  readonly clientId: string;
  readonly redirectUri: string;
  readonly state: string;
  readonly me: string;
  /** Normalized; empty for no scope. */
  readonly scope: string;
  readonly codeChallenge: string | null;
  readonly codeChallengeMethod: PkceMethod | null;
}

/** The names carried through login and consent unchanged. */
export const AUTHORIZATION_PARAMS = [
  'client_id',
  'redirect_uri',
  'state',
  'me',
  'scope',
  'code_challenge',
  'code_challenge_method',
  'response_type',
] as const;

/**
 * Applies the structural rules, in the spec's order of severity: a missing
 * required parameter (404), a malformed client_id or redirect_uri (400 text),
 * malformed PKCE values (400 invalid_request).
 */
export function parseAuthorizationRequest(params: unknown): AuthorizationRequest {
  const required = (name: string): string => {
    const value = readParam(params, name);
    if (value === undefined || value === '') throw new MissingParameterError(`missing ${name}`);
    return value;
  };
  const clientId = required('client_id');
  const redirectUri = required('redirect_uri');
  const state = required('state');
  const me = required('me');
  if (parseStrictHttpUrl(clientId) === null) throw new MalformedClientError('client_id');
  if (parseStrictHttpUrl(redirectUri) === null) throw new MalformedClientError('redirect_uri');

  // today's IndieAuth sends response_type=code (older sign-in-only clients: id); absent keeps SPEC.md's behaviour
  const responseType = readParam(params, 'response_type');
  if (responseType !== undefined && responseType !== 'code' && responseType !== 'id')
    throw new InvalidRequestError('response_type must be code');
  const challenge = readParam(params, 'code_challenge');
  const method = readParam(params, 'code_challenge_method');
  if (challenge !== undefined && !isPkceValue(challenge)) throw new InvalidRequestError('malformed code_challenge');
  if (method !== undefined && !isPkceMethod(method)) throw new InvalidRequestError('code_challenge_method must be S256 or plain');

  return {
    clientId,
    redirectUri,
    state,
    me,
    scope: normalizeScope(readParam(params, 'scope')),
    codeChallenge: challenge ?? null,
    // spec: a challenge without a method means plain
    codeChallengeMethod: challenge === undefined ? null : ((method as PkceMethod | undefined) ?? 'plain'),
  };
}

/** The account's own spelling of `me` when it is one of the user's profile URLs, else null. */
export function ownProfileUrl(user: HostUser, me: string): string | null {
  const key = profileUrlKey(me);
  if (key === null) return null;
  return user.me.find((url) => profileUrlKey(url) === key) ?? null;
}

/** The host part of a URL, for telling the user when redirect_uri leaves the client's site. */
export function hostOf(url: string): string {
  return parseStrictHttpUrl(url)?.host ?? '';
}

/** Why a redirect_uri needs the client's page to publish it: another host, or http for an https client_id. */
export type RedirectProblem = 'cross_host' | 'downgrade';

/** The plain-text 400 of each {@link RedirectProblem} when the client's page does not publish the redirect_uri. */
export const REDIRECT_REFUSALS: Readonly<Record<RedirectProblem, string>> = {
  cross_host: 'invalid redirect_uri: on another host than client_id and not published by the client',
  downgrade: 'invalid redirect_uri: http for an https client_id and not published by the client',
};

/**
 * What keeps a redirect_uri from being accepted on the client_id alone: null
 * when it is on the client_id's host without leaving https.
 */
export function redirectProblem(request: Pick<AuthorizationRequest, 'clientId' | 'redirectUri'>): RedirectProblem | null {
  const client = parseStrictHttpUrl(request.clientId);
  const redirect = parseStrictHttpUrl(request.redirectUri);
  if (client === null || redirect === null || client.host.toLowerCase() !== redirect.host.toLowerCase()) return 'cross_host';
  // security: an https client's code must not travel in clear to the same host's http address (issue 28 F20)
  if (client.protocol === 'https:' && redirect.protocol !== 'https:') return 'downgrade';
  return null;
}

export type AuthorizationService = ReturnType<typeof createAuthorizationService>;

export function createAuthorizationService(deps: {
  authCodes: AuthCodesRepository;
  clientPolicy: ClientPolicy;
  clock: Clock;
  codeLifetime: number;
}) {
  const { authCodes, clientPolicy, clock, codeLifetime } = deps;
  return {
    /** Parses the request and runs the client validator (400 invalid_client when it refuses). */
    async validate(params: unknown): Promise<AuthorizationRequest> {
      const request = parseAuthorizationRequest(params);
      if (!(await clientPolicy.isAllowed(request.clientId))) throw new InvalidClientError('client refused by policy');
      return request;
    },

    /** Issues a single-use code for the approved request; only its hash is stored. */
    async issueCode(request: AuthorizationRequest, user: HostUser, me: string): Promise<string> {
      const code = randomToken();
      const now = clock.now();
      await authCodes.insert(sha256Base64Url(code), {
        userId: user.id,
        clientId: request.clientId,
        redirectUri: request.redirectUri,
        me,
        scope: request.scope,
        codeChallenge: request.codeChallenge,
        codeChallengeMethod: request.codeChallengeMethod,
        createdAt: now.toISOString(),
        expiresAt: addSeconds(now, codeLifetime).toISOString(),
      });
      // housekeeping: codes a day past expiry are of no use to anyone
      await authCodes.deleteExpired(addSeconds(now, -86_400).toISOString());
      return code;
    },
  };
}
