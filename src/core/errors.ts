/**
 * The one catalogue of errors domain code throws. Each surface (auth, token,
 * Micropub, media, webmention, pages) turns them into the wire answer its
 * part of the spec requires, through its table in `web/error-handler.ts`.
 * The message is for logs and never sent to a client; what a client may
 * read is the `description`, written for it on purpose (see {@link forClient}).
 * @module
 */

const BRAND = Symbol.for('indiestack.error');
const CLIENT_TEXT = Symbol('indiestack.clientText');

/** The longest description a client is sent; longer ones are cut. */
export const MAX_DESCRIPTION_LENGTH = 200;

/** Text written for the client: short, naming the rule that failed, without internals. */
export interface ClientText {
  readonly [CLIENT_TEXT]: string;
}

/**
 * Marks a message as written for the client: the error's message and its
 * `description` both. Never pass it internals (paths, driver messages, a
 * handler's message) or long client input; quote input through {@link excerpt}.
 * @example
 * ```ts
 * throw new InvalidRequestError(forClient('url is required'));
 * ```
 */
export function forClient(text: string): ClientText {
  return Object.freeze({ [CLIENT_TEXT]: text });
}

/** A piece of client input fit to quote in a description: control characters dropped, at most `max` characters. */
export function excerpt(value: string, max = 40): string {
  const clean = value.replace(/[\u0000-\u001f\u007f]/g, '');
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

export interface IndieWebErrorOptions {
  readonly cause?: unknown;
  /** What the client is told, when the message itself is for the log only. */
  readonly description?: string;
}

export abstract class IndieWebError extends Error {
  abstract readonly code: string;
  abstract readonly status: number;
  readonly [BRAND] = true;
  /** The reason written for the client; undefined when the client is told only the code. */
  readonly description: string | undefined;

  constructor(message: string | ClientText, options?: IndieWebErrorOptions) {
    const text = typeof message === 'string' ? message : message[CLIENT_TEXT];
    super(text, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    const description = options?.description ?? (typeof message === 'string' ? undefined : text);
    this.description = description === undefined ? undefined : description.slice(0, MAX_DESCRIPTION_LENGTH);
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

/** A body whose shape crosses a limit of the request limits (nesting, keys, items, field names). */
export class BodyShapeError extends InvalidRequestError {}

/** The client went away before the body ended: nobody is left to answer. */
export class ClientGoneError extends InvalidRequestError {}

/** A `grant_type` the endpoint does not offer (RFC 6749 5.2). */
export class UnsupportedGrantTypeError extends IndieWebError {
  readonly code = 'unsupported_grant_type';
  readonly status = 400;
}

/** A refresh that asks for more scope than the grant has (RFC 6749 6). */
export class InvalidScopeError extends IndieWebError {
  readonly code = 'invalid_scope';
  readonly status = 400;
}

/** A structurally malformed `client_id` or `redirect_uri` (each surface's table says how it is answered). */
export class MalformedClientError extends IndieWebError {
  readonly code: `malformed_${'client_id' | 'redirect_uri'}`;
  readonly status = 400;
  constructor(
    readonly field: 'client_id' | 'redirect_uri',
    options?: IndieWebErrorOptions,
  ) {
    super(`invalid ${field}`, options);
    this.code = `malformed_${field}`;
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
    message: string | ClientText,
    /** Whole seconds after which trying again makes sense (at least 1). */
    readonly retryAfterSeconds: number,
    options?: IndieWebErrorOptions,
  ) {
    super(message, options);
  }
}

export interface HCardProblem {
  /** The property name (or `h_card` for the whole). */
  readonly field: string;
  readonly message: string;
}

/** Invalid h-card data; nothing was saved. */
export class HCardValidationError extends IndieWebError {
  readonly code = 'invalid_request';
  readonly status = 400;
  constructor(readonly problems: readonly HCardProblem[]) {
    super(problems.map((problem) => `${problem.field}: ${problem.message}`).join('; '));
  }
}

/** Why a passkey ceremony was refused (see accounts/passkeys/service.ts for what the person is told). */
export const PASSKEY_REFUSALS = [
  'malformed',
  'challenge',
  'origin',
  'unknown_credential',
  'counter',
  'verification',
  'duplicate',
  'inactive',
] as const;
export type PasskeyRefusal = (typeof PASSKEY_REFUSALS)[number];

/** A passkey registration or sign-in that was refused; nothing was stored and nobody signed in. */
export class PasskeyRefusedError extends IndieWebError {
  readonly code = 'passkey_refused';
  readonly status = 400;
  constructor(
    readonly reason: PasskeyRefusal,
    message: string | ClientText,
    options?: IndieWebErrorOptions,
  ) {
    super(message, options);
  }
}

/** A content handler (or a host hook) failed in a way that is not the client's fault. */
export class HandlerFailureError extends IndieWebError {
  readonly code = 'handler_failure';
  readonly status = 500;
}

/** `send-webmentions`: some targets were not notified; the summary is printed, the exit code is 1. */
export class WebmentionsFailedError extends IndieWebError {
  readonly code = 'webmentions_failed';
  readonly status = 500;
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

/** `backup` or `restore` refused or failed; the message says why and what to do. Nothing half-written stays behind. */
export class BackupError extends IndieWebError {
  readonly code = 'backup_error';
  readonly status = 500;
}
