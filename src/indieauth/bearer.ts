/**
 * The resource guard of Micropub and media: finds the access token, checks
 * it, its owner and its client, then the scope an operation needs; and how
 * its refusals look on the wire, so every surface the guard protects
 * answers them alike.
 * @see SPEC.md "Authentication", "Scope enforcement"
 * @module
 */
import { NO_METER, type Meter } from '../core/meter.js';
import type { FastifyReply } from 'fastify';
import type { HostUser } from '../contracts/accounts.js';
import {
  AuthenticationError,
  forClient,
  InsufficientScopeError,
  InvalidClientError,
  InvalidRequestError,
  isIndieWebError,
} from '../core/errors.js';
import { hasScope } from '../core/scope.js';
import type { TokenRecord } from '../storage/repositories/tokens.js';
import type { ErrorRow } from '../web/error-handler.js';
import { sendText } from '../web/reply.js';
import type { ClientPolicy } from './client-policy.js';
import type { TokenService } from './token-service.js';

/** Who a resource request acts for. */
export interface BearerAuth {
  readonly user: HostUser;
  readonly token: TokenRecord;
  readonly scope: string;
}

/** The parts of a request the guard reads (a Fastify request fits). */
export interface BearerRequestParts {
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body?: unknown;
}

const BEARER = /^Bearer[ \t]+([^\s]+)[ \t]*$/i;

/** The token of an `Authorization: Bearer …` header value: undefined when absent, null when malformed. */
export function tokenFromAuthorizationHeader(value: string | string[] | undefined): string | undefined | null {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) return null;
  const match = BEARER.exec(value);
  return match === null ? null : (match[1] ?? null);
}

const BASIC = /^Basic[ \t]+([A-Za-z0-9+/]+={0,2})[ \t]*$/i;

/** One form-encoded half of Basic client credentials (RFC 6749 2.3.1); null when malformed. */
function formDecode(value: string): string | null {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return null;
  }
}

/**
 * The client credentials of an `Authorization: Basic …` header value
 * (RFC 6749 2.3.1, RFC 7617): undefined when the header is absent or of
 * another scheme, null when it is Basic but malformed.
 */
export function basicCredentialsFromHeader(value: string | string[] | undefined): { clientId: string; secret: string } | undefined | null {
  if (value === undefined || Array.isArray(value) || !/^Basic(?:[ \t]|$)/i.test(value)) return undefined;
  const encoded = BASIC.exec(value)?.[1];
  if (encoded === undefined) return null;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon === -1) return null;
  const clientId = formDecode(decoded.slice(0, colon));
  const secret = formDecode(decoded.slice(colon + 1));
  return clientId === null || secret === null ? null : { clientId, secret };
}

function fromBody(body: unknown): string | undefined | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const fields = body as Record<string, unknown>;
  const candidates: (string | null)[] = [];
  if (fields.Authorization !== undefined)
    candidates.push(typeof fields.Authorization === 'string' ? (BEARER.exec(fields.Authorization)?.[1] ?? null) : null);
  if (fields.access_token !== undefined)
    candidates.push(typeof fields.access_token === 'string' && fields.access_token !== '' ? fields.access_token : null);
  if (candidates.length === 0) return undefined;
  if (candidates.includes(null)) return null;
  if (new Set(candidates).size !== 1) throw new InvalidRequestError(forClient('different tokens in the body'));
  return candidates[0];
}

/**
 * The token of a request: the `Authorization` header, else (behind a trusted
 * proxy) `X-Forwarded-Authorization`, and the POST body fields `Authorization`
 * (`Bearer …`) or `access_token`. Header and body may both carry it only when
 * they carry the same token.
 */
export function extractBearerToken(request: BearerRequestParts, options: { trustProxy: boolean }): string {
  let header = tokenFromAuthorizationHeader(request.headers.authorization);
  if (header === undefined && options.trustProxy) header = tokenFromAuthorizationHeader(request.headers['x-forwarded-authorization']);
  const body = fromBody(request.body);
  if (header === null || body === null) {
    if (header === null) throw new AuthenticationError('malformed Authorization header');
    throw new AuthenticationError('malformed token in the body');
  }
  if (header !== undefined && body !== undefined && header !== body)
    throw new InvalidRequestError(forClient('different tokens in header and body'));
  const token = header ?? body;
  if (token === undefined) throw new AuthenticationError('no access token');
  return token;
}

/** Whether a request carries a credential at all (well-formed or not) in a header or a body field. */
export function carriesCredential(request: BearerRequestParts, options: { trustProxy: boolean }): boolean {
  if (request.headers.authorization !== undefined) return true;
  if (options.trustProxy && request.headers['x-forwarded-authorization'] !== undefined) return true;
  const body = request.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  return (body as Record<string, unknown>).Authorization !== undefined || (body as Record<string, unknown>).access_token !== undefined;
}

export type BearerGuard = ReturnType<typeof createBearerGuard>;

export function createBearerGuard(deps: { tokens: TokenService; clientPolicy: ClientPolicy; trustProxy: boolean; meter?: Meter }) {
  const { tokens, clientPolicy, trustProxy } = deps;
  const meter = deps.meter ?? NO_METER;
  return {
    /** 401 for a missing, unknown, expired or revoked token or an inactive owner; 403 invalid_client when the client is refused. */
    async authenticate(request: BearerRequestParts): Promise<BearerAuth> {
      let token: string;
      try {
        token = extractBearerToken(request, { trustProxy });
      } catch (error) {
        meter.tokenRefused(
          'resource',
          error instanceof AuthenticationError && error.message === 'no access token' ? 'missing' : 'malformed',
        );
        throw error;
      }
      const valid = await tokens.validate(token);
      if (valid === null) {
        meter.tokenRefused('resource', 'not_accepted');
        throw new AuthenticationError('token not accepted');
      }
      // spec: stored client_ids are re-checked by policy on every request, not structurally
      if (!(await clientPolicy.isAllowed(valid.token.clientId))) {
        meter.tokenRefused('resource', 'client_refused');
        throw new InvalidClientError('client refused by policy');
      }
      return { user: valid.user, token: valid.token, scope: valid.token.scope };
    },

    /** 403 `authorization error` unless the scope holds the exact name (`post` counts as `create`). */
    assertScope(auth: BearerAuth, required: string): void {
      if (!hasScope(auth.scope, required)) throw new InsufficientScopeError(`scope ${required} required`);
    },
  };
}

/**
 * The resource servers' (Micropub, media, token verification) answers to
 * bearer problems: 401 `authentication error` with a Bearer challenge, 403
 * `authorization error` or `invalid_client`.
 * @see SPEC.md "Authentication" 2 and 3
 */
export function sendResourceAuthError(reply: FastifyReply, status: 401 | 403, code?: string): FastifyReply {
  if (status === 401) {
    return reply
      .code(401)
      .header('content-type', 'text/plain; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('www-authenticate', 'Bearer')
      .send('authentication error');
  }
  return sendText(reply, 403, code === 'invalid_client' ? 'invalid_client' : 'authorization error');
}

/** The rows of every table of a surface the guard protects. */
export const BEARER_ERROR_ROWS: Readonly<Record<string, ErrorRow>> = {
  authentication_error: { status: 401, answer: (reply) => sendResourceAuthError(reply, 401) },
  insufficient_scope: { status: 403, answer: (reply) => sendResourceAuthError(reply, 403) },
  invalid_client: { status: 403, answer: (reply) => sendResourceAuthError(reply, 403, 'invalid_client') },
};

/** Maps a bearer-guard error to its answer, or returns null when the error is not one. */
export function replyToBearerError(error: unknown, reply: FastifyReply): FastifyReply | null {
  if (!isIndieWebError(error)) return null;
  const row = BEARER_ERROR_ROWS[error.code];
  return row === undefined ? null : row.answer(reply, { error, request: reply.request, status: row.status ?? error.status });
}
