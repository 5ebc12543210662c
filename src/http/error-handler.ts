import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { isIndieWebError } from '../core/errors.js';
import { sendText } from './reply.js';

/** The HTTP status a thrown value stands for: ours, a client error Fastify raised, or 500. */
export function statusOf(error: unknown): number {
  if (isIndieWebError(error)) return error.status;
  const status = (error as Partial<FastifyError> | null)?.statusCode;
  return typeof status === 'number' && status >= 400 && status < 500 ? status : 500;
}

/**
 * The default answer of our routes: a client error becomes its status and a
 * short plain-text code; anything else is logged and answered with an empty 500.
 * Feature surfaces install their own tables on top of this.
 */
export function defaultErrorHandler(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const status = statusOf(error);
  if (status >= 500) {
    request.log.error({ err: error }, 'request failed');
    return sendText(reply, 500, '');
  }
  request.log.info({ status, reason: (error as Error).message }, 'request rejected');
  const code = isIndieWebError(error) ? error.code : 'invalid_request';
  return sendText(reply, status, code);
}
