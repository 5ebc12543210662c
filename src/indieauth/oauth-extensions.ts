/**
 * The OAuth endpoints beyond SPEC.md — revocation (RFC 7009), introspection
 * (RFC 7662), userinfo — and legacy token verification (`GET /token/`),
 * each in its own scope with its own answers to errors.
 * @module
 */
import type { IndieAuthRoutesDeps } from './route-deps.js';
import type { ProfileClaims } from './profile-claims.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { constantTimeEqual } from '../core/crypto.js';
import { InvalidRequestError } from '../core/errors.js';
import { readParam } from '../core/params.js';
import { createErrorHandler } from '../web/error-handler.js';
import { sendJson } from '../web/reply.js';
import { basicCredentialsFromHeader, tokenFromAuthorizationHeader } from './bearer.js';
import {
  OAUTH_ERRORS,
  sendFields,
  sendInvalidClientBasic,
  sendOAuthBearerError,
  TOKEN_VERIFICATION_ERRORS,
  userinfoErrors,
} from './responses.js';

/** `POST /token/revoke` (and the token endpoint's `action=revoke`): 200 whether or not the token was valid. */
export function revocationAnswer(deps: Pick<IndieAuthRoutesDeps, 'exchange'>) {
  const { exchange } = deps;
  return async function revokeAndAnswer(request: FastifyRequest, reply: FastifyReply) {
    const token = readParam(request.body, 'token');
    // RFC 7009: token is required; the answer is 200 whether or not it was valid
    if (token === undefined || token === '') throw new InvalidRequestError('token is required');
    await exchange.revoke(token);
    request.log.info('token revocation requested');
    return reply.code(200).header('cache-control', 'no-store').header('content-type', 'text/plain; charset=utf-8').send('');
  };
}

export async function extensionRoutes(app: FastifyInstance, deps: IndieAuthRoutesDeps, profileFor: ProfileClaims): Promise<void> {
  const { tokens, bearer, config } = deps;
  const revokeAndAnswer = revocationAnswer(deps);

  async function introspect(request: FastifyRequest, reply: FastifyReply) {
    reply.header('cache-control', 'no-store');
    const inactive = () => sendJson(reply, 200, { active: false });
    const secret = config.introspectionSecret;
    // RFC 7662 2.1: a resource server may also authenticate as a confidential client (client_secret_basic, the secret as its password)
    const basic = basicCredentialsFromHeader(request.headers.authorization);
    if (basic !== undefined && (basic === null || secret === null || !constantTimeEqual(basic.secret, secret)))
      return sendInvalidClientBasic(reply);
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
    const body: Record<string, unknown> = {
      active: true,
      me: valid.token.me,
      client_id: valid.token.clientId,
      scope: valid.token.scope,
      iat: Math.floor(Date.parse(valid.token.createdAt) / 1000),
    };
    if (valid.token.expiresAt !== null) body.exp = Math.floor(Date.parse(valid.token.expiresAt) / 1000);
    return sendJson(reply, 200, body);
  }

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
}
