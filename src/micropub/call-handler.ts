/**
 * The single boundary between indiestack and a content handler: a
 * HandlerValueError becomes 400 invalid_request (its message stays in the
 * log), anything else becomes a logged 500 with an empty body.
 * @module
 */
import { isHandlerValueError } from '../contracts/handler-errors.js';
import { HandlerFailureError, InvalidRequestError } from '../core/errors.js';

export async function callHandler<T>(operation: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    // spec: the handler's message is not sent to the client; the description names only the operation
    if (isHandlerValueError(error)) throw new InvalidRequestError(`${operation}: ${error.message}`, { cause: error, description: `the content handler refused ${operation}` });
    throw new HandlerFailureError(`${operation} failed`, { cause: error });
  }
}
