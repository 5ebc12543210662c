/**
 * The webmention endpoint's error table: plain text, the code first, then
 * the reason written for the client.
 * @module
 */
import type { TooManyRequestsError } from '../core/errors.js';
import { clientReason, text, type ErrorTable } from '../web/error-handler.js';
import { sendText } from '../web/reply.js';

export const WEBMENTION_ERRORS: ErrorTable = {
  codes: {
    not_found: { answer: text('not found') },
    too_many_requests: {
      status: 429,
      answer: (reply, { error, status }) => {
        const { retryAfterSeconds } = error as TooManyRequestsError;
        return sendText(
          reply.header('retry-after', String(retryAfterSeconds)),
          429,
          `too_many_requests: ${clientReason(error, status)}; try again in ${retryAfterSeconds} seconds`,
        );
      },
    },
  },
  // the reason is a description written for clients, never an error's message
  otherwise: (reply, { error, status }) =>
    sendText(reply, status, status === 404 ? 'not found' : `invalid_request: ${clientReason(error, status)}`),
  unavailable: text('temporarily_unavailable'),
};
