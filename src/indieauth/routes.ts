/**
 * The IndieAuth endpoints, wire format only: `/indieweb/auth/` (GET start,
 * POST code verification), `/indieweb/auth/consent/` (our consent form) and
 * `/indieweb/token/`.
 * @module
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CSRF_FIELD } from '../web/csrf-token.js';
import type { Accounts, HostUser } from '../contracts/accounts.js';
import type { Config } from '../config/config.js';
import type { Clock } from '../core/clock.js';
import type { FailureThrottle } from '../core/throttle.js';
import { constantTimeEqual } from '../core/crypto.js';
import { hasScope } from '../core/scope.js';
import type { TokenRecord } from '../storage/repositories/tokens.js';
import { InvalidRequestError, isIndieWebError, UnsupportedGrantTypeError } from '../core/errors.js';
import { appendQuery, readParam } from '../core/params.js';
import type { Csrf } from '../web/csrf.js';
import { sendPage } from '../web/html.js';
import { errorAlert } from '../web/ui/messages.js';
import { createErrorHandler } from '../web/error-handler.js';
import { methodNotAllowed } from '../web/method-not-allowed.js';
import { prefersJson } from '../web/negotiation.js';
import { sendJson, sendText } from '../web/reply.js';
import type { AuthorizationRequest, AuthorizationService } from './authorize.js';
import { hostOf, ownProfileUrl } from './authorize.js';
import { consentBody, notYourProfileBody } from './consent-page.js';
import type { ClientInfo, ClientInfoFetcher } from './client-info.js';
import { basicCredentialsFromHeader, tokenFromAuthorizationHeader, type BearerGuard } from './bearer.js';
import { parseCodeRedemption, type ExchangeService } from './exchange.js';
import { clientAddressKey } from '../outbound/address-guard.js';
import {
  answerErrorsInJson,
  AUTHORIZATION_ERRORS,
  CODE_VERIFICATION_ERRORS,
  OAUTH_ERRORS,
  sendFields,
  sendInvalidClientBasic,
  sendOAuthBearerError,
  sendTooManyFailures,
  TOKEN_ERRORS,
  TOKEN_VERIFICATION_ERRORS,
  userinfoErrors,
} from './responses.js';
import type { ProfileService } from '../profile/service.js';
import { remainingLifetime, type TokenService } from './token-service.js';

/** The GET URL of an authorization request, to come back to after signing in. */
function authorizationPath(request: AuthorizationRequest): string {
  const params: Record<string, string> = { client_id: request.clientId, redirect_uri: request.redirectUri, state: request.state, me: request.me };
  if (request.scope !== '') params.scope = request.scope;
  if (request.codeChallenge !== null) {
    params.code_challenge = request.codeChallenge;
    params.code_challenge_method = request.codeChallengeMethod ?? 'plain';
  }
  return `/indieweb/auth/?${new URLSearchParams(params).toString()}`;
}

export interface IndieAuthRoutesDeps {
  readonly authorization: AuthorizationService;
  readonly exchange: ExchangeService;
  readonly tokens: TokenService;
  /** The resource guard, for token verification and userinfo. */
  readonly bearer: BearerGuard;
  /** What clients publish about themselves at their client_id. */
  readonly clientInfo: ClientInfoFetcher;
  readonly accounts: Accounts;
  readonly profiles: ProfileService;
  readonly csrf: Csrf;
  readonly clock: Clock;
  /** Code and refresh-token redemptions: a key per client address; off unless INDIEWEB_TOKEN_FREE_FAILURES is set. */
  readonly tokenThrottle: FailureThrottle;
  /** The `iss` of authorization responses: the base URL with a trailing slash. */
  readonly issuer: string;
  readonly config: Pick<Config, 'introspectionSecret' | 'trustProxy'>;
}

export async function indieauthRoutes(app: FastifyInstance, deps: IndieAuthRoutesDeps): Promise<void> {
  const { authorization, exchange, tokens, bearer, clientInfo, accounts, profiles, csrf, clock, tokenThrottle, issuer, config } = deps;

  /** The `profile` object for a token with the `profile` scope (and `email` with the `email` scope); null without it. */
  async function profileFor(user: HostUser, scope: string): Promise<Record<string, string> | null> {
    if (!hasScope(scope, 'profile')) return null;
    const card = (await profiles.get(user)).hCard;
    const profile: Record<string, string> = {};
    const name = card.name?.[0];
    const url = card.url?.[0] ?? user.me[0];
    const photo = card.photo?.[0];
    if (name !== undefined) profile.name = name;
    if (url !== undefined) profile.url = url;
    if (photo !== undefined) profile.photo = photo;
    const email = card.email?.[0];
    if (hasScope(scope, 'email') && email !== undefined) profile.email = email.replace(/^mailto:/i, '');
    return profile;
  }

  /** The origin of redirect_uri, allowed as a form target: browsers apply form-action to the redirect after our POST. */
  const formActionFor = (request: AuthorizationRequest) => {
    const url = new URL(request.redirectUri);
    return [`${url.protocol}//${url.host}`];
  };

  async function activeUser(request: FastifyRequest): Promise<HostUser | null> {
    const user = await accounts.currentUser(request);
    return user !== null && user.isActive ? user : null;
  }

  /**
   * A redirect_uri on the client_id's host is always accepted; on another
   * host only when the client's own page publishes it. A page that cannot be
   * read publishes nothing, so the redirect is refused then too: nothing is
   * ever sent to an address the client did not vouch for.
   */
  async function clientCheck(auth: AuthorizationRequest): Promise<{ info: ClientInfo | null; refused: boolean }> {
    const info = await clientInfo.get(auth.clientId);
    const crossHost = hostOf(auth.redirectUri).toLowerCase() !== hostOf(auth.clientId).toLowerCase();
    return { info, refused: crossHost && (info === null || !info.redirectUris.includes(auth.redirectUri)) };
  }

  /** The 400 for a redirect_uri the client does not vouch for: plain text, like SPEC.md's malformed redirect_uri, and no redirect. */
  function refuseRedirect(request: FastifyRequest, reply: FastifyReply, auth: AuthorizationRequest, info: ClientInfo | null) {
    request.log.info({ clientId: auth.clientId, clientPageRead: info !== null }, 'authorization refused: cross-host redirect_uri not published by the client');
    return sendText(reply, 400, 'invalid redirect_uri: on another host than client_id and not published by the client');
  }

  async function showConsent(request: FastifyRequest, reply: FastifyReply, auth: AuthorizationRequest, user: HostUser, status = 200, expired = false) {
    const { info, refused } = await clientCheck(auth);
    if (refused) return refuseRedirect(request, reply, auth, info);
    const csrfToken = csrf.tokenFor(request, reply, user.id);
    if (ownProfileUrl(user, auth.me) === null) {
      request.log.info({ clientId: auth.clientId }, 'authorization refused: me is not the signed-in account');
      return sendPage(reply, 403, { title: 'Not your profile', body: notYourProfileBody({ request: auth, user, csrf: csrfToken }), formAction: formActionFor(auth) });
    }
    const notice = expired ? errorAlert('The form expired. Please decide again.') : undefined;
    return sendPage(reply, status, {
      title: 'Approve sign-in',
      body: consentBody({ request: auth, user, csrf: csrfToken, client: info, ...(notice === undefined ? {} : { notice }) }),
      formAction: formActionFor(auth),
    });
  }

  // the front channel: the user's browser
  await app.register(async (front) => {
    front.setErrorHandler(createErrorHandler(AUTHORIZATION_ERRORS));

    front.get('/auth/', async (request, reply) => {
      const auth = await authorization.validate(request.query);
      const user = await activeUser(request);
      if (user === null) return reply.redirect(accounts.loginUrl(authorizationPath(auth)), 302);
      return showConsent(request, reply, auth, user);
    });

    front.post('/auth/consent/', async (request, reply) => {
      const auth = await authorization.validate(request.body);
      const user = await activeUser(request);
      if (user === null) return reply.redirect(accounts.loginUrl(authorizationPath(auth)), 303);
      if (!csrf.isValid(request, user.id, readParam(request.body, CSRF_FIELD))) {
        request.log.info('consent rejected: csrf token missing or expired');
        return showConsent(request, reply, auth, user, 403, true);
      }
      // the submitted form is checked again as a new request: a forged redirect_uri gets no redirect, not even a denial
      const checked = await clientCheck(auth);
      if (checked.refused) return refuseRedirect(request, reply, auth, checked.info);
      const decision = readParam(request.body, 'decision');
      if (decision === 'deny') {
        request.log.info({ clientId: auth.clientId }, 'authorization denied');
        // RFC 9207: iss on error responses too
        return reply.redirect(appendQuery(auth.redirectUri, { error: 'access_denied', state: auth.state, iss: issuer }), 302);
      }
      if (decision !== 'approve') throw new InvalidRequestError('decision must be approve or deny');
      const me = ownProfileUrl(user, auth.me);
      if (me === null) return showConsent(request, reply, auth, user);
      const code = await authorization.issueCode(auth, user, me);
      request.log.info({ clientId: auth.clientId, userId: user.id, scope: auth.scope }, 'authorization code issued');
      return reply.redirect(appendQuery(auth.redirectUri, { code, state: auth.state, me, iss: issuer }), 302);
    });
  });

  /**
   * Runs a code or refresh-token redemption under the token throttle: a client
   * address that must wait gets 429 (and null here) before anything is looked
   * up; an `invalid_grant` counts as a failure, other errors do not.
   */
  async function redeemThrottled<T>(request: FastifyRequest, reply: FastifyReply, redeem: () => Promise<T>): Promise<T | null> {
    const decision = tokenThrottle.begin([clientAddressKey(request.ip)]);
    if (!decision.allowed) {
      request.log.info({ retryAfter: decision.retryAfter }, 'redemption throttled');
      sendTooManyFailures(reply, decision.retryAfter);
      return null;
    }
    try {
      const redeemed = await redeem();
      decision.attempt.succeed();
      return redeemed;
    } catch (error) {
      if (isIndieWebError(error) && error.code === 'invalid_grant') decision.attempt.fail();
      else decision.attempt.release();
      throw error;
    }
  }

  // the back channel: clients, server to server
  await app.register(async (back) => {
    back.setErrorHandler(createErrorHandler(CODE_VERIFICATION_ERRORS));
    back.post('/auth/', async (request, reply) => {
      const grantType = readParam(request.body, 'grant_type');
      if (grantType !== undefined && grantType !== 'authorization_code') throw new UnsupportedGrantTypeError(`grant_type ${grantType}`);
      const redeemed = await redeemThrottled(request, reply, () => exchange.verify(parseCodeRedemption(request.body)));
      if (redeemed === null) return reply;
      request.log.info({ clientId: redeemed.code.clientId }, 'authorization code verified');
      reply.header('cache-control', 'no-store');
      const profile = prefersJson(request) ? await profileFor(redeemed.user, redeemed.code.scope) : null;
      if (profile !== null) return sendJson(reply, 200, { me: redeemed.code.me, profile });
      return sendFields(request, reply, 200, { me: redeemed.code.me });
    });
  });

  await app.register(async (back) => {
    back.setErrorHandler(createErrorHandler(TOKEN_ERRORS));

    back.post('/token/', async (request, reply) => {
      // older clients revoke through the token endpoint
      if (readParam(request.body, 'action') === 'revoke') return revokeAndAnswer(request, reply);
      const grantType = readParam(request.body, 'grant_type');
      if (grantType === 'refresh_token') {
        // beyond SPEC.md: the refresh grant answers JSON, as IndieAuth and OAuth say, success and error alike
        answerErrorsInJson(request);
        const refreshed = await redeemThrottled(request, reply, () => exchange.refresh(request.body));
        if (refreshed === null) return reply;
        request.log.info({ clientId: refreshed.record.clientId, userId: refreshed.record.userId }, 'token refreshed');
        return sendTokenResponse(request, reply, refreshed, refreshed.refreshToken, { json: true });
      }
      if (grantType !== undefined && grantType !== 'authorization_code') throw new UnsupportedGrantTypeError(`grant_type ${grantType}`);
      // a refresh token only for a modern client: it names the grant type and asks for JSON (SPEC's form answer keeps its four fields)
      const issued = await redeemThrottled(request, reply, () =>
        exchange.exchange(parseCodeRedemption(request.body), { withRefresh: grantType === 'authorization_code' && prefersJson(request) }),
      );
      if (issued === null) return reply;
      request.log.info({ clientId: issued.record.clientId, userId: issued.record.userId, scope: issued.record.scope }, 'token issued');
      return sendTokenResponse(request, reply, issued, issued.refreshToken);
    });

    async function sendTokenResponse(
      request: FastifyRequest,
      reply: FastifyReply,
      issued: { token: string; record: TokenRecord; user: HostUser },
      refreshToken: string | null,
      options: { json?: boolean } = {},
    ) {
      const { record } = issued;
      const expiresIn = remainingLifetime(record, clock.now());
      const fields: Record<string, string | number> = { access_token: issued.token, scope: record.scope, me: record.me };
      if (expiresIn !== null) fields.expires_in = expiresIn;
      reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
      // DESIGN: JSON (200, with token_type) only for a client that prefers it; SPEC's 201 form otherwise
      if (options.json !== true && !prefersJson(request)) return sendFields(request, reply, 201, refreshToken === null ? fields : { ...fields, refresh_token: refreshToken });
      const profile = await profileFor(issued.user, record.scope);
      return sendJson(reply, 200, { ...fields, token_type: 'Bearer', ...(refreshToken === null ? {} : { refresh_token: refreshToken }), ...(profile === null ? {} : { profile }) });
    }
  });

  async function revokeAndAnswer(request: FastifyRequest, reply: FastifyReply) {
    const token = readParam(request.body, 'token');
    // RFC 7009: token is required; the answer is 200 whether or not it was valid
    if (token === undefined || token === '') throw new InvalidRequestError('token is required');
    await exchange.revoke(token);
    request.log.info('token revocation requested');
    return reply.code(200).header('cache-control', 'no-store').header('content-type', 'text/plain; charset=utf-8').send('');
  }

  async function introspect(request: FastifyRequest, reply: FastifyReply) {
    reply.header('cache-control', 'no-store');
    const inactive = () => sendJson(reply, 200, { active: false });
    const secret = config.introspectionSecret;
    // RFC 7662 2.1: a resource server may also authenticate as a confidential client (client_secret_basic, the secret as its password)
    const basic = basicCredentialsFromHeader(request.headers.authorization);
    if (basic !== undefined && (basic === null || secret === null || !constantTimeEqual(basic.secret, secret))) return sendInvalidClientBasic(reply);
    const caller = basic === undefined ? (tokenFromAuthorizationHeader(request.headers.authorization) ?? undefined) : undefined;
    const isResourceServer = basic !== undefined || (caller !== undefined && secret !== null && constantTimeEqual(caller, secret));
    const callerToken = caller === undefined || isResourceServer ? null : await tokens.validate(caller);
    // RFC 7662 2.3 / RFC 6750: a JSON error, with the error named only when a credential was presented
    if (!isResourceServer && callerToken === null) return sendOAuthBearerError(reply, 401, caller === undefined ? null : 'invalid_token');
    const token = readParam(request.body, 'token');
    // RFC 7662 2.1: token is required
    if (token === undefined || token === '') throw new InvalidRequestError('token is required');
    const valid = await tokens.validate(token);
    // a caller that is not a resource server may only learn about tokens of its own owner
    if (valid === null || (!isResourceServer && valid.user.id !== callerToken?.user.id)) return inactive();
    const body: Record<string, unknown> = { active: true, me: valid.token.me, client_id: valid.token.clientId, scope: valid.token.scope, iat: Math.floor(Date.parse(valid.token.createdAt) / 1000) };
    if (valid.token.expiresAt !== null) body.exp = Math.floor(Date.parse(valid.token.expiresAt) / 1000);
    return sendJson(reply, 200, body);
  }

  // revocation, introspection, userinfo and token verification: each its own scope, with its own answers to errors
  await app.register(async (revocation) => {
    revocation.setErrorHandler(createErrorHandler(OAUTH_ERRORS));
    revocation.post('/token/revoke', revokeAndAnswer);
  });

  await app.register(async (introspection) => {
    introspection.setErrorHandler(createErrorHandler(OAUTH_ERRORS));
    introspection.post('/token/introspect', introspect);
  });

  await app.register(async (userinfo) => {
    userinfo.setErrorHandler(createErrorHandler(userinfoErrors({ trustProxy: config.trustProxy })));
    userinfo.get('/userinfo', async (request, reply) => {
      const auth = await bearer.authenticate(request);
      bearer.assertScope(auth, 'profile');
      reply.header('cache-control', 'no-store');
      return reply.send(await profileFor(auth.user, auth.scope));
    });
  });

  // token verification (legacy IndieAuth): who does this bearer token act for?
  await app.register(async (verification) => {
    verification.setErrorHandler(createErrorHandler(TOKEN_VERIFICATION_ERRORS));
    verification.get('/token/', async (request, reply) => {
      const auth = await bearer.authenticate(request);
      reply.header('cache-control', 'no-store');
      return sendFields(request, reply, 200, { me: auth.token.me, client_id: auth.token.clientId, scope: auth.scope });
    });
  });

  methodNotAllowed(app, '/auth/', ['GET', 'HEAD', 'POST']);
  methodNotAllowed(app, '/auth/consent/', ['POST']);
  methodNotAllowed(app, '/token/', ['GET', 'HEAD', 'POST']);
  methodNotAllowed(app, '/token/revoke', ['POST']);
  methodNotAllowed(app, '/token/introspect', ['POST']);
}
