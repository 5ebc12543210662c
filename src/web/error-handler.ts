/**
 * One error handler for every surface, run from the surface's table: an
 * error's `code` picks the row that writes the answer, so each surface's
 * part of SPEC.md "Errors" reads as one literal table. Around the rows, the
 * same rules everywhere: a database that cannot answer is a 503 with
 * `Retry-After`; any other server failure is logged with its cause and
 * answered with an empty 500; a client error no row names gets the
 * surface's `otherwise` answer with its own status.
 * @module
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { isIndieWebError } from '../core/errors.js';
import { isDatabaseUnavailable } from '../core/database-faults.js';
import { sendJson, sendText } from './reply.js';

/** Seconds a client is asked to wait before it retries a 503. */
export const RETRY_AFTER_SECONDS = 5;

/** The HTTP status a thrown value stands for: ours, a client error Fastify raised, 503 for a database that cannot answer now, or 500. */
export function statusOf(error: unknown): number {
  if (isIndieWebError(error)) return error.status;
  if (isDatabaseUnavailable(error)) return 503;
  const status = (error as Partial<FastifyError> | null)?.statusCode;
  return typeof status === 'number' && status >= 400 && status < 500 ? status : 500;
}

/** What a row or answer gets to work with. */
export interface ErrorContext {
  readonly error: unknown;
  readonly request: FastifyRequest;
  /** The answer's status: the row's, else the error's own. */
  readonly status: number;
}

/** Writes the status, headers and body of one answer. */
export type ErrorAnswer = (reply: FastifyReply, context: ErrorContext) => FastifyReply;

export interface ErrorRow {
  /** The status answered; the error's own when absent (`invalid_request` is 400, 413 or 415). */
  readonly status?: number;
  readonly answer: ErrorAnswer;
}

/** A surface's answers to errors. */
export interface ErrorTable {
  /** Rows by the `code` of our errors (core/errors.ts). */
  readonly codes: Readonly<Record<string, ErrorRow>>;
  /** A client error no row names (an unlisted code, a 4xx Fastify raised), answered with its own status. */
  readonly otherwise: ErrorAnswer;
  /** The body of a 503, after the status, `Retry-After` and `Cache-Control` are set. */
  readonly unavailable: ErrorAnswer;
  /** Headers on every answer of the surface, failures included. */
  readonly headers?: Readonly<Record<string, string>>;
}

const GENERIC_DESCRIPTIONS: Readonly<Record<number, string>> = {
  400: 'the request is not valid',
  404: 'not found',
  405: 'method not allowed',
  413: 'the request is too large',
  415: 'this content type is not accepted',
  429: 'too many requests',
};

/**
 * The reason a client may read: the error's `description` (written for
 * clients, see `forClient`), else a generic line for the status. Never the
 * error's message.
 */
export function clientReason(error: unknown, status: number): string {
  if (isIndieWebError(error) && error.description !== undefined) return error.description;
  return GENERIC_DESCRIPTIONS[status] ?? 'the request cannot be answered';
}

/** A plain-text body. */
export const text =
  (body: string): ErrorAnswer =>
  (reply, { status }) =>
    sendText(reply, status, body);

/** No body and no content type (the authorization endpoint's 404). */
export const empty: ErrorAnswer = (reply, { status }) => reply.code(status).send('');

/** A JSON `{ "error": code }`; with `described`, the client's reason in `error_description` too. */
export const jsonError =
  (code: string, options: { described?: boolean } = {}): ErrorAnswer =>
  (reply, { status, error }) =>
    sendJson(reply, status, options.described === true ? { error: code, error_description: clientReason(error, status) } : { error: code });

function logRejection(request: FastifyRequest, error: unknown, status: number): void {
  request.log.info({ status, reason: (error as Error | null)?.message }, 'request rejected');
}

/** The error handler that runs `table`; install it with `setErrorHandler` in the surface's scope. */
export function createErrorHandler(table: ErrorTable) {
  return (error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    if (table.headers !== undefined) reply.headers(table.headers);
    const status = statusOf(error);
    if (status === 503) return table.unavailable(unavailable(error, request, reply), { error, request, status });
    const row = isIndieWebError(error) ? table.codes[error.code] : undefined;
    if (row !== undefined) {
      const answered = row.status ?? status;
      logRejection(request, error, answered);
      return row.answer(reply, { error, request, status: answered });
    }
    if (status >= 500) {
      request.log.error({ err: error }, 'request failed');
      return sendText(reply, 500, '');
    }
    logRejection(request, error, status);
    return table.otherwise(reply, { error, request, status });
  };
}

/**
 * The pages' table, and the default of every route of ours: a client error
 * becomes its status and its code as short plain text.
 */
export const PAGE_ERRORS: ErrorTable = {
  codes: {
    malformed_client_id: { answer: text('invalid_request') },
    malformed_redirect_uri: { answer: text('invalid_request') },
  },
  otherwise: (reply, { error, status }) => sendText(reply, status, isIndieWebError(error) ? error.code : 'invalid_request'),
  unavailable: text('temporarily_unavailable'),
};

/** The default answer of our routes (pages, and anything outside a surface with its own table). */
export const defaultErrorHandler = createErrorHandler(PAGE_ERRORS);

/**
 * The start of every surface's 503 (the database cannot answer: down,
 * unreachable, locked elsewhere, full): logged as a warning, `Retry-After`,
 * never cached. The surface adds its own body.
 */
export function unavailable(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  request.log.warn({ err: error }, 'database unavailable');
  return reply.code(503).header('retry-after', String(RETRY_AFTER_SECONDS)).header('cache-control', 'no-store');
}
