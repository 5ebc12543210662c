/**
 * The back channel of IndieAuth, client to server: `POST /indieweb/auth/`
 * (code verification) and `POST /indieweb/token/` (code and refresh-token
 * grants, and the legacy `action=revoke`).
 * @module
 */
import type { IndieAuthRoutesDeps } from './route-deps.js';
import type { ProfileClaims } from './profile-claims.js';
import { revocationAnswer } from './oauth-extensions.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { HostUser } from '../contracts/accounts.js';
import type { TokenRecord } from '../storage/repositories/tokens.js';
import { isIndieWebError, UnsupportedGrantTypeError } from '../core/errors.js';
import { readParam } from '../core/params.js';
import { createErrorHandler } from '../web/error-handler.js';
import { prefersJson } from '../web/negotiation.js';
import { sendJson } from '../web/reply.js';
import { parseCodeRedemption } from './exchange.js';
import { clientAddressKey } from '../outbound/address-guard.js';
import { answerErrorsInJson, CODE_VERIFICATION_ERRORS, sendFields, sendTooManyFailures, TOKEN_ERRORS } from './responses.js';
import { remainingLifetime } from './token-service.js';

export async function backChannelRoutes(app: FastifyInstance, deps: IndieAuthRoutesDeps, profileFor: ProfileClaims): Promise<void> {
  const { exchange, clock, tokenThrottle, meter } = deps;
  const revokeAndAnswer = revocationAnswer(deps);

  /**
   * Runs a code or refresh-token redemption under the token throttle: a client
   * address that must wait gets 429 (and null here) before anything is looked
   * up; an `invalid_grant` counts as a failure, other errors do not.
   */
  async function redeemThrottled<T>(
    request: FastifyRequest,
    reply: FastifyReply,
    redeem: () => Promise<T>,
    grant: 'authorization_code' | 'refresh_token' | null = null,
  ): Promise<T | null> {
    const decision = tokenThrottle.begin([clientAddressKey(request.ip)]);
    if (!decision.allowed) {
      if (grant !== null) meter.tokenRefused('token_endpoint', 'throttled');
      request.log.info({ retryAfter: decision.retryAfter }, 'redemption throttled');
      sendTooManyFailures(reply, decision.retryAfter);
      return null;
    }
    try {
      const redeemed = await redeem();
      decision.attempt.succeed();
      if (grant !== null) meter.tokenIssued(grant);
      return redeemed;
    } catch (error) {
      if (grant !== null) meter.tokenRefused('token_endpoint', isIndieWebError(error) ? error.code : 'error');
      if (isIndieWebError(error) && error.code === 'invalid_grant') decision.attempt.fail();
      else decision.attempt.release();
      throw error;
    }
  }

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
        const refreshed = await redeemThrottled(request, reply, () => exchange.refresh(request.body), 'refresh_token');
        if (refreshed === null) return reply;
        request.log.info({ clientId: refreshed.record.clientId, userId: refreshed.record.userId }, 'token refreshed');
        return sendTokenResponse(request, reply, refreshed, refreshed.refreshToken, { json: true });
      }
      if (grantType !== undefined && grantType !== 'authorization_code') throw new UnsupportedGrantTypeError(`grant_type ${grantType}`);
      // a refresh token only for a modern client: it names the grant type and asks for JSON (SPEC's form answer keeps its four fields)
      const issued = await redeemThrottled(
        request,
        reply,
        () =>
          exchange.exchange(parseCodeRedemption(request.body), { withRefresh: grantType === 'authorization_code' && prefersJson(request) }),
        'authorization_code',
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
      if (options.json !== true && !prefersJson(request))
        return sendFields(request, reply, 201, refreshToken === null ? fields : { ...fields, refresh_token: refreshToken });
      const profile = await profileFor(issued.user, record.scope);
      return sendJson(reply, 200, {
        ...fields,
        token_type: 'Bearer',
        ...(refreshToken === null ? {} : { refresh_token: refreshToken }),
        ...(profile === null ? {} : { profile }),
      });
    }
  });
}
