/**
 * The Micropub and media surface's error table.
 * @see SPEC.md "Errors" (Micropub and media)
 * @module
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isIndieWebError } from '../core/errors.js';
import { statusOf, unavailable } from '../web/error-handler.js';
import { replyToBearerError } from '../indieauth/bearer.js';
import { sendJson, sendText } from '../web/reply.js';

/**
 * 401/403 as the bearer guard says; 400, 413, 415 `invalid_request` and 501
 * `not_implemented` as JSON `{ "error": … }`; 503 `temporarily_unavailable`
 * while the database cannot answer; anything else (a handler crash,
 * a storage failure) is logged with its cause and answered with an empty 500.
 */
export function resourceErrorHandler(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const status = statusOf(error);
  if (status === 503) return sendJson(unavailable(error, request, reply), 503, { error: 'temporarily_unavailable' });
  if (status >= 500) {
    request.log.error({ err: error }, 'request failed');
    return sendText(reply, status === 501 ? 501 : 500, '');
  }
  request.log.info({ status, reason: (error as Error).message }, 'request rejected');
  const answered = replyToBearerError(error, reply);
  if (answered !== null) return answered;
  return sendJson(reply, status, { error: 'invalid_request' });
}

/** 501 answers carry `not_implemented`; handled apart because statusOf() treats 5xx as failures. */
export function notImplementedHandler(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (isIndieWebError(error) && error.status === 501) {
    request.log.info({ reason: error.message }, 'not implemented');
    return sendJson(reply, 501, { error: 'not_implemented' });
  }
  return resourceErrorHandler(error, request, reply);
}
