/**
 * The single boundary between indiestack and a content handler: a
 * HandlerValueError becomes 400 invalid_request (its message stays in the
 * log); indiestack's own database failing under the built-in database
 * handler stays what it is everywhere else (503 with Retry-After when the
 * database cannot answer now); anything else becomes a logged 500 with an
 * empty body.
 * @module
 */
import { isHandlerValueError } from '../contracts/handler-errors.js';
import { isDatabaseUnavailable } from '../core/database-faults.js';
import { HandlerFailureError, InvalidRequestError } from '../core/errors.js';

export async function callHandler<T>(operation: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    // spec: the handler's message is not sent to the client; the description names only the operation
    if (isHandlerValueError(error))
      throw new InvalidRequestError(`${operation}: ${error.message}`, {
        cause: error,
        description: `the content handler refused ${operation}`,
      });
    // only errors of indiestack's own storage layer are marked; a host handler's database failing stays a 500
    if (isDatabaseUnavailable(error)) throw error;
    throw new HandlerFailureError(`${operation} failed`, { cause: error });
  }
}
