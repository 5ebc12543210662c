/**
 * The one catalogue of errors domain code throws. Each surface (auth, token,
 * Micropub, media, pages) turns them into the wire answer its part of the
 * spec requires; the message is for logs and never sent to a client.
 * @module
 */

const BRAND = Symbol.for('indiestack.error');

export abstract class IndieWebError extends Error {
  abstract readonly code: string;
  abstract readonly status: number;
  readonly [BRAND] = true;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Recognises our errors across duplicate copies of the package (no `instanceof`). */
export function isIndieWebError(value: unknown): value is IndieWebError {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
}

export class InvalidRequestError extends IndieWebError {
  readonly code = 'invalid_request';
  readonly status = 400;
}

export class InvalidGrantError extends IndieWebError {
  readonly code = 'invalid_grant';
  readonly status = 400;
}

/** A structurally malformed `client_id` or `redirect_uri`. */
export class MalformedClientError extends IndieWebError {
  readonly code = 'invalid_request';
  readonly status = 400;
  constructor(
    readonly field: 'client_id' | 'redirect_uri',
    options?: { cause?: unknown },
  ) {
    super(`invalid ${field}`, options);
  }
}

export class InvalidClientError extends IndieWebError {
  readonly code = 'invalid_client';
  readonly status = 400;
}

export class MissingParameterError extends IndieWebError {
  readonly code = 'missing_parameter';
  readonly status = 404;
}

export class AuthenticationError extends IndieWebError {
  readonly code = 'authentication_error';
  readonly status = 401;
}

export class InsufficientScopeError extends IndieWebError {
  readonly code = 'insufficient_scope';
  readonly status = 403;
}

export class PayloadTooLargeError extends IndieWebError {
  readonly code = 'invalid_request';
  readonly status = 413;
}

export class UnsupportedMediaTypeError extends IndieWebError {
  readonly code = 'invalid_request';
  readonly status = 415;
}

export class NotFoundError extends IndieWebError {
  readonly code = 'not_found';
  readonly status = 404;
}

export class ConflictError extends IndieWebError {
  readonly code = 'conflict';
  readonly status = 409;
}

/** Over a throttle or a capacity limit: answered 429 with `Retry-After`. */
export class TooManyRequestsError extends IndieWebError {
  readonly code = 'too_many_requests';
  readonly status = 429;
  constructor(
    message: string,
    /** Whole seconds after which trying again makes sense (at least 1). */
    readonly retryAfterSeconds: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export class NotImplementedError extends IndieWebError {
  readonly code = 'not_implemented';
  readonly status = 501;
}

/** Invalid settings: every problem at once, one line each. */
export class ConfigError extends IndieWebError {
  readonly code = 'config_error';
  readonly status = 500;
  constructor(readonly problems: readonly string[]) {
    super(problems.join('\n'));
  }
}
