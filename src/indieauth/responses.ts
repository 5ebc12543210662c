/**
 * How errors and results of the IndieAuth surfaces look on the wire.
 * @see SPEC.md "Errors" (Authorization endpoint, Token endpoint, Micropub and media)
 * @module
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isIndieWebError, MalformedClientError } from '../core/errors.js';
import { statusOf, unavailable } from '../web/error-handler.js';
import { prefersJson } from '../web/negotiation.js';
import { sendJson, sendText } from '../web/reply.js';
import { sendResourceAuthError } from './bearer.js';

/** A form-encoded (or, on request, JSON) body with an explicit content type. */
export function sendFields(request: FastifyRequest | 'json', reply: FastifyReply, status: number, fields: Readonly<Record<string, string | number>>): FastifyReply {
  if (request === 'json' || prefersJson(request)) return sendJson(reply, status, fields);
  const body = new URLSearchParams(Object.entries(fields).map(([key, value]): [string, string] => [key, String(value)])).toString();
  return reply.code(status).header('content-type', 'application/x-www-form-urlencoded; charset=utf-8').send(body);
}


function logRejection(request: FastifyRequest, error: unknown, status: number): void {
  if (status === 503) return; // unavailable() logs it
  if (status >= 500) request.log.error({ err: error }, 'request failed');
  else request.log.info({ status, reason: (error as Error).message }, 'request rejected');
}

/** GET /auth/ and the consent submission: plain text, 404 empty for a missing parameter. */
export function authorizationErrorHandler(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const status = statusOf(error);
  logRejection(request, error, status);
  if (status === 503) return sendText(unavailable(error, request, reply), 503, 'temporarily_unavailable');
  if (status >= 500) return sendText(reply, 500, '');
  if (error instanceof MalformedClientError) return sendText(reply, 400, `invalid ${error.field}`);
  if (isIndieWebError(error) && error.code === 'missing_parameter') return reply.code(404).send('');
  if (isIndieWebError(error) && error.code === 'invalid_client') return sendText(reply, 400, 'invalid_client');
  return sendText(reply, status, 'invalid_request');
}

/**
 * Back-channel answers (token endpoint, code verification): `error=…`,
 * form-encoded or JSON as the client prefers; always JSON with `json`
 * (the OAuth endpoints beyond SPEC.md: refresh, introspection, revocation).
 */
function backChannelError(codeFor: (error: unknown) => string, options: { json?: boolean } = {}) {
  return (error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const status = statusOf(error);
    logRejection(request, error, status);
    reply.header('cache-control', 'no-store');
    if (status === 503) return sendFields(options.json === true ? 'json' : request, unavailable(error, request, reply), 503, { error: 'temporarily_unavailable' });
    if (status >= 500) return sendText(reply, 500, '');
    if (status === 401) return sendResourceAuthError(reply, 401);
    return sendFields(options.json === true ? 'json' : request, reply, status, { error: codeFor(error) });
  };
}

const tokenErrorCode = (error: unknown) => {
  if (!isIndieWebError(error)) return 'invalid_request';
  if (error.code === 'invalid_grant' || error.code === 'unsupported_grant_type' || error.code === 'invalid_scope') return error.code;
  return 'invalid_request';
};

/** POST /token/: validator and client_id problems are `invalid_request`, code problems `invalid_grant`. */
export const tokenErrorHandler = backChannelError(tokenErrorCode);

/** The same codes, always as JSON (RFC 6749 5.2): refresh, introspection and revocation. */
export const oauthErrorHandler = backChannelError(tokenErrorCode, { json: true });

/** POST /auth/ (code verification): like the token endpoint, but a refused client is `invalid_client`. */
export const codeVerificationErrorHandler = backChannelError((error) => {
  if (!isIndieWebError(error)) return 'invalid_request';
  if (error.code === 'invalid_grant' || error.code === 'invalid_client' || error.code === 'unsupported_grant_type') return error.code;
  return 'invalid_request';
});

/**
 * A client address the token throttle makes wait (docs/security.md
 * "Throttles"; off unless INDIEWEB_TOKEN_FREE_FAILURES is set): 429 with
 * `Retry-After` and an OAuth error body in JSON.
 */
export function sendTooManyFailures(reply: FastifyReply, retryAfter: number): FastifyReply {
  return sendJson(reply.header('retry-after', String(retryAfter)).header('cache-control', 'no-store'), 429, {
    error: 'temporarily_unavailable',
    error_description: `too many failed attempts from this address; retry after ${retryAfter} seconds`,
  });
}

/**
 * The RFC 6750 answer of the endpoints beyond SPEC.md (userinfo,
 * introspection): a JSON body and a `WWW-Authenticate` header naming the
 * error; a request that presented no token at all gets no error code.
 */
export function sendOAuthBearerError(reply: FastifyReply, status: 401 | 403, error: 'invalid_token' | 'insufficient_scope' | 'invalid_client' | null, scope?: string): FastifyReply {
  const challenge = error === null || error === 'invalid_client' ? 'Bearer' : `Bearer error="${error}"${scope === undefined ? '' : `, scope="${scope}"`}`;
  return reply
    .code(status)
    .header('content-type', 'application/json; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('www-authenticate', challenge)
    .send(JSON.stringify({ error: error ?? 'invalid_request' }));
}

/**
 * RFC 6749 5.2: a client that tried to authenticate with `Authorization:
 * Basic` and failed gets 401 `invalid_client` with a Basic challenge.
 */
export function sendInvalidClientBasic(reply: FastifyReply): FastifyReply {
  return reply
    .code(401)
    .header('content-type', 'application/json; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('www-authenticate', 'Basic realm="indiestack"')
    .send(JSON.stringify({ error: 'invalid_client' }));
}
