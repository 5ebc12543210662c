/**
 * How errors and results of the IndieAuth surfaces look on the wire.
 * @see SPEC.md "Errors" (Authorization endpoint, Token endpoint, Micropub and media)
 * @module
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { empty, text, type ErrorAnswer, type ErrorRow, type ErrorTable } from '../web/error-handler.js';
import { prefersJson } from '../web/negotiation.js';
import { sendJson } from '../web/reply.js';
import { BEARER_ERROR_ROWS, sendResourceAuthError } from './bearer.js';

/** A form-encoded (or, on request, JSON) body with an explicit content type. */
export function sendFields(
  request: FastifyRequest | 'json',
  reply: FastifyReply,
  status: number,
  fields: Readonly<Record<string, string | number>>,
): FastifyReply {
  if (request === 'json' || prefersJson(request)) return sendJson(reply, status, fields);
  const body = new URLSearchParams(Object.entries(fields).map(([key, value]): [string, string] => [key, String(value)])).toString();
  return reply.code(status).header('content-type', 'application/x-www-form-urlencoded; charset=utf-8').send(body);
}

/** The authorization endpoint (GET /auth/, the consent submission): plain text; an empty 404 for a missing parameter. */
export const AUTHORIZATION_ERRORS: ErrorTable = {
  codes: {
    malformed_client_id: { answer: text('invalid client_id') },
    malformed_redirect_uri: { answer: text('invalid redirect_uri') },
    invalid_client: { answer: text('invalid_client') },
    missing_parameter: { status: 404, answer: empty },
  },
  otherwise: text('invalid_request'),
  unavailable: text('temporarily_unavailable'),
};

/** Requests whose back-channel errors answer in JSON whatever the client prefers (the refresh grant). */
const jsonAnswers = new WeakSet<FastifyRequest>();

/** From now on, errors of this request answer in JSON (RFC 6749 5.2), as the OAuth endpoints beyond SPEC.md do. */
export function answerErrorsInJson(request: FastifyRequest): void {
  jsonAnswers.add(request);
}

/** `error=<code>` form-encoded, or JSON when the client prefers it, when `json` is set, or when the request asked for it. */
const fieldsError =
  (code: string, options: { json?: boolean } = {}): ErrorAnswer =>
  (reply, { request, status }) =>
    sendFields(options.json === true || jsonAnswers.has(request) ? 'json' : request, reply, status, { error: code });

function backChannelErrors(codes: readonly string[], options: { json?: boolean } = {}): ErrorTable {
  return {
    headers: { 'cache-control': 'no-store' },
    codes: {
      authentication_error: { status: 401, answer: (reply) => sendResourceAuthError(reply, 401) },
      ...Object.fromEntries(codes.map((code): [string, ErrorRow] => [code, { answer: fieldsError(code, options) }])),
    },
    // validator and client_id problems, and anything else a client got wrong
    otherwise: fieldsError('invalid_request', options),
    unavailable: fieldsError('temporarily_unavailable', options),
  };
}

/** POST /token/: client and client_id problems are `invalid_request`, code problems `invalid_grant`. */
export const TOKEN_ERRORS = backChannelErrors(['invalid_grant', 'unsupported_grant_type', 'invalid_scope']);

/** The same codes, always as JSON (RFC 6749 5.2): revocation and introspection. */
export const OAUTH_ERRORS = backChannelErrors(['invalid_grant', 'unsupported_grant_type', 'invalid_scope'], { json: true });

/** POST /auth/ (code verification): like the token endpoint, but a refused client is `invalid_client`. */
export const CODE_VERIFICATION_ERRORS = backChannelErrors(['invalid_grant', 'invalid_client', 'unsupported_grant_type']);

/** GET /token/ (token verification): the resource guard's answers, else the token endpoint's. */
export const TOKEN_VERIFICATION_ERRORS: ErrorTable = { ...TOKEN_ERRORS, codes: { ...TOKEN_ERRORS.codes, ...BEARER_ERROR_ROWS } };

/**
 * GET /userinfo: RFC 6750 answers in JSON with a challenge naming the error
 * (IndieAuth's endpoint, not SPEC.md's resource format); a request that
 * presented no token gets no error code.
 */
export function userinfoErrors(options: { trustProxy: boolean }): ErrorTable {
  const presented = (request: FastifyRequest) =>
    request.headers.authorization !== undefined || (options.trustProxy && request.headers['x-forwarded-authorization'] !== undefined);
  return {
    ...TOKEN_ERRORS,
    codes: {
      ...TOKEN_ERRORS.codes,
      authentication_error: {
        status: 401,
        answer: (reply, { request }) => sendOAuthBearerError(reply, 401, presented(request) ? 'invalid_token' : null),
      },
      insufficient_scope: { status: 403, answer: (reply) => sendOAuthBearerError(reply, 403, 'insufficient_scope', 'profile') },
      invalid_client: { status: 403, answer: (reply) => sendOAuthBearerError(reply, 403, 'invalid_client') },
    },
  };
}

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
export function sendOAuthBearerError(
  reply: FastifyReply,
  status: 401 | 403,
  error: 'invalid_token' | 'insufficient_scope' | 'invalid_client' | null,
  scope?: string,
): FastifyReply {
  const challenge =
    error === null || error === 'invalid_client' ? 'Bearer' : `Bearer error="${error}"${scope === undefined ? '' : `, scope="${scope}"`}`;
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
