/**
 * Which failures mean "the database cannot answer now" (503 and a retry)
 * rather than "this request or our code is wrong". The storage layer marks
 * every error its driver throws (storage/tag-failures.ts); the web kit's
 * error handler asks {@link isDatabaseUnavailable}. Imports nothing: the
 * drivers' error codes and messages are read, never their types.
 * @module
 */

const FROM_DATABASE = Symbol.for('indiestack.database-failure');

/** Marks `error` as thrown by the database driver (a query, a connection, a transaction); returns it. */
export function markFromDatabase(error: unknown): unknown {
  if (typeof error === 'object' && error !== null && Object.isExtensible(error)) {
    Object.defineProperty(error, FROM_DATABASE, { value: true });
  }
  return error;
}

/** True when `error` was thrown by the database driver (a query, a connection, a transaction). */
function isFromDatabase(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[FROM_DATABASE] === true;
}

/** Network failures of the PostgreSQL connection: the server is down, unreachable or went away. */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * SQLSTATEs of a PostgreSQL that cannot serve now: connection exceptions
 * (class 08), shutting down or starting up (57P01–57P03), too many
 * connections (53300), out of disk or memory (53100, 53200).
 */
const POSTGRES_UNAVAILABLE = /^(08...|57P0[123]|53[123]00)$/;

/** SQLite result codes (with their extended forms) of a database that is locked elsewhere, unreadable or full. */
const SQLITE_UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|CANTOPEN|IOERR|FULL|READONLY|PROTOCOL)(_|$)/;

/** What pg and Kysely say, without a code, when a connection cannot be had or was lost. */
const UNAVAILABLE_MESSAGES =
  /timeout exceeded when trying to connect|Connection terminated|not queryable|database connection is not open|driver has already been destroyed/i;

/**
 * True when a storage error means "the database cannot answer now" (so the
 * request deserves 503 and a retry), not "this request or our code is wrong".
 * Only errors the database driver threw count (see {@link markFromDatabase}); looks
 * through `cause` chains and AggregateErrors (a refused connection to each
 * address of a host).
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const chain = errorChain(error);
  return chain.some(isFromDatabase) && chain.some(saysUnavailable);
}

function saysUnavailable(error: object): boolean {
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (UNREACHABLE_CODES.has(code) || POSTGRES_UNAVAILABLE.test(code) || SQLITE_UNAVAILABLE.test(code)))
    return true;
  return typeof message === 'string' && UNAVAILABLE_MESSAGES.test(message);
}

/** The error, its causes and the members of AggregateErrors, a few levels deep. */
function errorChain(error: unknown, depth = 0): object[] {
  if (typeof error !== 'object' || error === null || depth > 4) return [];
  const inner = error instanceof AggregateError ? error.errors : [];
  return [
    error,
    ...errorChain((error as { cause?: unknown }).cause, depth + 1),
    ...inner.flatMap((member: unknown) => errorChain(member, depth + 1)),
  ];
}
