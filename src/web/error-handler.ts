import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { isIndieWebError } from '../core/errors.js';
import { isDatabaseUnavailable } from '../core/database-faults.js';
import { sendText } from './reply.js';

/** Seconds a client is asked to wait before it retries a 503. */
export const RETRY_AFTER_SECONDS = 5;

/** The HTTP status a thrown value stands for: ours, a client error Fastify raised, 503 for a database that cannot answer now, or 500. */
export function statusOf(error: unknown): number {
  if (isIndieWebError(error)) return error.status;
  if (isDatabaseUnavailable(error)) return 503;
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
  if (status === 503) return sendText(unavailable(error, request, reply), 503, 'temporarily_unavailable');
  if (status >= 500) {
    request.log.error({ err: error }, 'request failed');
    return sendText(reply, 500, '');
  }
  request.log.info({ status, reason: (error as Error).message }, 'request rejected');
  const code = isIndieWebError(error) ? error.code : 'invalid_request';
  return sendText(reply, status, code);
}

/**
 * The start of every surface's 503 (the database cannot answer: down,
 * unreachable, locked elsewhere, full): logged as a warning, `Retry-After`,
 * never cached. The surface adds its own body.
 */
export function unavailable(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  request.log.warn({ err: error }, 'database unavailable');
  return reply.code(503).header('retry-after', String(RETRY_AFTER_SECONDS)).header('cache-control', 'no-store');
}
