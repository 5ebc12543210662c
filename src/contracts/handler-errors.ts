const BRAND = Symbol.for('indiestack.handler-value-error');

/**
 * Thrown by a Micropub handler for an unknown or invalid target. It becomes a
 * 400 `invalid_request`; its message is never sent to the client. Anything
 * else a handler throws is an internal failure (500).
 * @example
 * ```ts
 * if (!entry) throw new HandlerValueError('no such entry');
 * ```
 */
export class HandlerValueError extends Error {
  readonly [BRAND] = true;
  constructor(message = 'invalid value', options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'HandlerValueError';
  }
}

/** True for a {@link HandlerValueError}, also one from another copy of the package. */
export function isHandlerValueError(value: unknown): value is HandlerValueError {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
}
