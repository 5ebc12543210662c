/**
 * The Micropub and media surface's error table.
 * @see SPEC.md "Errors" (Micropub and media)
 * @module
 */
import { BEARER_ERROR_ROWS } from '../indieauth/bearer.js';
import { createErrorHandler, jsonError, type ErrorTable } from '../web/error-handler.js';

/**
 * 401/403 as the bearer guard says; 501 `not_implemented`; every other
 * client error (400, 413, 415) `invalid_request` in JSON with the reason in
 * `error_description`; 503 `temporarily_unavailable` while the database
 * cannot answer; anything else (a handler crash, a storage failure) is
 * logged with its cause and answered with an empty 500.
 */
export const MICROPUB_ERRORS: ErrorTable = {
  codes: {
    ...BEARER_ERROR_ROWS,
    not_implemented: { status: 501, answer: jsonError('not_implemented') },
  },
  otherwise: jsonError('invalid_request', { described: true }),
  unavailable: jsonError('temporarily_unavailable'),
};

/** The handler of the scope Micropub and media share. */
export const micropubErrorHandler = createErrorHandler(MICROPUB_ERRORS);
