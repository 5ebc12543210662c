/**
 * The IndieAuth endpoints, wire format only: `/indieweb/auth/` (GET start,
 * POST code verification), `/indieweb/auth/consent/` (our consent form) and
 * `/indieweb/token/`.
 * @module
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CSRF_FIELD } from '../accounts/csrf.js';
import type { HostUser } from '../contracts/accounts.js';
import { InvalidRequestError } from '../core/errors.js';
import { appendQuery, readParam } from '../core/params.js';
import { isValidCsrf, csrfTokenFor } from '../http/csrf.js';
import { html, sendPage } from '../http/html.js';
import { methodNotAllowed } from '../http/method-not-allowed.js';
import type { AuthorizationRequest } from './authorize.js';
import { ownProfileUrl } from './authorize.js';
import { consentBody, notYourProfileBody } from './consent-page.js';
import { parseCodeRedemption } from './exchange.js';
import {
  authorizationErrorHandler,
  prefersJson,
  codeVerificationErrorHandler,
  replyToBearerError,
  sendFields,
  tokenErrorHandler,
} from './responses.js';
import { remainingLifetime } from './token-service.js';

class UnsupportedGrantTypeError extends InvalidRequestError {
  override readonly code = 'unsupported_grant_type' as 'invalid_request';
}

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

export async function indieauthRoutes(app: FastifyInstance): Promise<void> {
  const ctx = app.indieweb;
  const { authorization, exchange, bearer, config } = ctx.indieauth;

  /** The origin of redirect_uri, allowed as a form target: browsers apply form-action to the redirect after our POST. */
  const formActionFor = (request: AuthorizationRequest) => {
    const url = new URL(request.redirectUri);
    return [`${url.protocol}//${url.host}`];
  };

  async function activeUser(request: FastifyRequest): Promise<HostUser | null> {
    const user = await ctx.accounts.currentUser(request);
    return user !== null && user.isActive ? user : null;
  }

  function showConsent(request: FastifyRequest, reply: FastifyReply, auth: AuthorizationRequest, user: HostUser, status = 200, expired = false) {
    const csrf = csrfTokenFor(ctx, request, reply, user.id);
    if (ownProfileUrl(user, auth.me) === null) {
      request.log.info({ clientId: auth.clientId }, 'authorization refused: me is not the signed-in account');
      return sendPage(reply, 403, { title: 'Not your profile', body: notYourProfileBody({ request: auth, user, csrf }), formAction: formActionFor(auth) });
    }
    const notice = expired ? html`<p class="error" role="alert">The form expired. Please decide again.</p>` : undefined;
    return sendPage(reply, status, {
      title: 'Approve sign-in',
      body: consentBody({ request: auth, user, csrf, ...(notice === undefined ? {} : { notice }) }),
      formAction: formActionFor(auth),
    });
  }

  // the front channel: the user's browser
  await app.register(async (front) => {
    front.setErrorHandler(authorizationErrorHandler);

    front.get('/auth/', async (request, reply) => {
      const auth = await authorization.validate(request.query);
      const user = await activeUser(request);
      if (user === null) return reply.redirect(ctx.accounts.loginUrl(authorizationPath(auth)), 302);
      return showConsent(request, reply, auth, user);
    });

    front.post('/auth/consent/', async (request, reply) => {
      const auth = await authorization.validate(request.body);
      const user = await activeUser(request);
      if (user === null) return reply.redirect(ctx.accounts.loginUrl(authorizationPath(auth)), 303);
      if (!isValidCsrf(ctx, request, user.id, readParam(request.body, CSRF_FIELD))) {
        request.log.info('consent rejected: csrf token missing or expired');
        return showConsent(request, reply, auth, user, 403, true);
      }
      const decision = readParam(request.body, 'decision');
      if (decision === 'deny') {
        request.log.info({ clientId: auth.clientId }, 'authorization denied');
        return reply.redirect(appendQuery(auth.redirectUri, { error: 'access_denied', state: auth.state }), 302);
      }
      if (decision !== 'approve') throw new InvalidRequestError('decision must be approve or deny');
      const me = ownProfileUrl(user, auth.me);
      if (me === null) return showConsent(request, reply, auth, user);
      const code = await authorization.issueCode(auth, user, me);
      request.log.info({ clientId: auth.clientId, userId: user.id, scope: auth.scope }, 'authorization code issued');
      return reply.redirect(appendQuery(auth.redirectUri, { code, state: auth.state, me, iss: config.issuer }), 302);
    });
  });

  // the back channel: clients, server to server
  await app.register(async (back) => {
    back.setErrorHandler(codeVerificationErrorHandler);
    back.post('/auth/', async (request, reply) => {
      const redeemed = await exchange.verify(parseCodeRedemption(request.body));
      request.log.info({ clientId: redeemed.code.clientId }, 'authorization code verified');
      reply.header('cache-control', 'no-store');
      return sendFields(request, reply, 200, { me: redeemed.code.me });
    });
  });

  await app.register(async (back) => {
    back.setErrorHandler(tokenErrorHandler);

    back.post('/token/', async (request, reply) => {
      const grantType = readParam(request.body, 'grant_type');
      if (grantType !== undefined && grantType !== 'authorization_code') throw new UnsupportedGrantTypeError(`grant_type ${grantType}`);
      const issued = await exchange.exchange(parseCodeRedemption(request.body));
      const { record } = issued;
      request.log.info({ clientId: record.clientId, userId: record.userId, scope: record.scope }, 'token issued');
      const expiresIn = remainingLifetime(record, ctx.clock.now());
      const fields: Record<string, string | number> = { access_token: issued.token, scope: record.scope, me: record.me };
      if (expiresIn !== null) fields.expires_in = expiresIn;
      reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
      // DESIGN: JSON (200, with token_type) only for a client that prefers it; SPEC's 201 form otherwise
      if (prefersJson(request)) return sendFields(request, reply, 200, { ...fields, token_type: 'Bearer' });
      return sendFields(request, reply, 201, fields);
    });

    // token verification (legacy IndieAuth): who does this bearer token act for?
    back.get('/token/', async (request, reply) => {
      try {
        const auth = await bearer.authenticate(request);
        reply.header('cache-control', 'no-store');
        return sendFields(request, reply, 200, { me: auth.token.me, client_id: auth.token.clientId, scope: auth.scope });
      } catch (error) {
        const answered = replyToBearerError(error, reply);
        if (answered !== null) return answered;
        throw error;
      }
    });
  });

  methodNotAllowed(app, '/auth/', ['GET', 'HEAD', 'POST']);
  methodNotAllowed(app, '/auth/consent/', ['POST']);
  methodNotAllowed(app, '/token/', ['GET', 'HEAD', 'POST']);
}
