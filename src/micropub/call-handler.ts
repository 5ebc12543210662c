/**
 * The single boundary between indiestack and a content handler: a
 * HandlerValueError becomes 400 invalid_request (its message stays in the
 * log), anything else becomes a logged 500 with an empty body.
 * @module
 */
import { isHandlerValueError } from '../contracts/handler-errors.js';
import { IndieWebError, InvalidRequestError } from '../core/errors.js';

/** A handler (or hook) failed in a way that is not the client's fault. */
export class HandlerFailureError extends IndieWebError {
  readonly code = 'handler_failure';
  readonly status = 500;
}

export async function callHandler<T>(operation: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (isHandlerValueError(error)) throw new InvalidRequestError(`${operation}: ${error.message}`, { cause: error });
    throw new HandlerFailureError(`${operation} failed`, { cause: error });
  }
}
