/**
 * XRPC over HTTP to one account's PDS: the session made with the app
 * password (`com.atproto.server.createSession`, refreshed when the access
 * token expires) and every call's failure as a {@link SyndicationError}.
 * Plain `fetch` rather than `@atproto/api`: the client needs seven
 * procedures, and the SDK would bring its lexicon bundle and four runtime
 * dependencies for them.
 * @see https://atproto.com/specs/xrpc
 * @module
 */
import { createHash } from 'node:crypto';
import { trimEndOf } from '../../core/text.js';
import { SyndicationError } from '../client.js';

/** How long one request may take before it counts as a network failure (and is tried again later). */
const REQUEST_TIMEOUT_MS = 30_000;

export interface Session {
  readonly did: string;
  readonly handle: string;
  readonly accessJwt: string;
  readonly refreshJwt: string;
}

export interface XrpcCall {
  /** Query parameters; an array is sent as the parameter repeated (`reasons=reply&reasons=like`). */
  readonly params?: Readonly<Record<string, string | readonly string[]>>;
  /** A JSON body (procedures). */
  readonly json?: unknown;
  /** A binary body and its media type (`uploadBlob`). */
  readonly bytes?: { readonly data: Uint8Array; readonly type: string };
}

/** An XRPC error answer: its HTTP status and the `error` name of the body (`RecordNotFound`, `ExpiredToken`, …). */
export class XrpcError extends SyndicationError {
  readonly status: number;
  readonly error: string;
  constructor(message: string, status: number, error: string, options: { transient: boolean; retryAfterMs: number | null }) {
    super(message, options);
    this.status = status;
    this.error = error;
  }
}

/**
 * When to try again, from `Retry-After` (seconds or an HTTP date), else the PDS's `ratelimit-reset`
 * (Unix seconds); null when the answer says neither.
 */
export function retryAfterMs(headers: Headers, now: number = Date.now()): number | null {
  const retryAfter = headers.get('retry-after')?.trim();
  if (retryAfter) {
    if (/^\d+$/.test(retryAfter)) return Number(retryAfter) * 1000;
    const at = Date.parse(retryAfter);
    if (!Number.isNaN(at)) return Math.max(0, at - now);
  }
  const reset = headers.get('ratelimit-reset')?.trim();
  if (reset && /^\d+$/.test(reset)) return Math.max(0, Number(reset) * 1000 - now);
  return null;
}

/** A transient failure for a request that got no answer. */
function networkFailure(nsid: string, cause: unknown): SyndicationError {
  const reason = cause instanceof Error && cause.name === 'TimeoutError' ? 'timed out' : 'could not reach the PDS';
  return new SyndicationError(`Bluesky ${nsid}: ${reason}`, { transient: true, cause });
}

async function answerFailure(nsid: string, response: Response): Promise<XrpcError> {
  let error = '';
  let message = '';
  try {
    const body = (await response.json()) as { error?: unknown; message?: unknown };
    if (typeof body.error === 'string') error = body.error;
    if (typeof body.message === 'string') message = body.message;
  } catch {
    // not JSON: a proxy's or load balancer's page; the status says enough
  }
  const transient = response.status === 429 || response.status >= 500;
  const said = [error, message].filter((part) => part !== '').join(': ');
  const hint = error === 'AuthFactorTokenRequired' ? ' (use an app password)' : '';
  return new XrpcError(`Bluesky ${nsid} answered ${response.status}${said === '' ? '' : ` ${said}`}${hint}`, response.status, error, {
    transient,
    retryAfterMs: transient ? retryAfterMs(response.headers) : null,
  });
}

/**
 * Sessions shared by every client of one account in this process (per fetch function, so a test's
 * fetch gets its own): the feature makes a client per job, and Bluesky allows an account only 30
 * `createSession` calls in 5 minutes and 300 a day.
 */
const sessions = new WeakMap<typeof fetch, Map<string, { session: Promise<Session> | null }>>();

function sessionSlot(doFetch: typeof fetch, base: string, identifier: string, password: string): { session: Promise<Session> | null } {
  let byAccount = sessions.get(doFetch);
  if (byAccount === undefined) sessions.set(doFetch, (byAccount = new Map()));
  // the password is part of the key (a new app password is a new session), hashed so the map holds no secret
  const key = `${base}\n${identifier.toLowerCase()}\n${createHash('sha256').update(password).digest('hex')}`;
  let slot = byAccount.get(key);
  if (slot === undefined) byAccount.set(key, (slot = { session: null }));
  return slot;
}

/** XRPC calls to `pdsUrl` as the account of `identifier` (a handle or DID) with `password` (an app password). */
export function createXrpc(options: { pdsUrl: string; identifier: string; password: string; fetch?: typeof fetch | undefined }) {
  const base = trimEndOf(options.pdsUrl, '/');
  const doFetch = options.fetch ?? globalThis.fetch;
  const slot = sessionSlot(doFetch, base, options.identifier, options.password);

  async function send(method: 'GET' | 'POST', nsid: string, call: XrpcCall, token: string | null): Promise<Response> {
    const url = new URL(`${base}/xrpc/${nsid}`);
    for (const [name, value] of Object.entries(call.params ?? {})) {
      if (typeof value === 'string') url.searchParams.set(name, value);
      else for (const item of value) url.searchParams.append(name, item);
    }
    const headers: Record<string, string> = {};
    if (token !== null) headers.authorization = `Bearer ${token}`;
    let body: string | Uint8Array<ArrayBuffer> | undefined;
    if (call.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(call.json);
    } else if (call.bytes !== undefined) {
      headers['content-type'] = call.bytes.type;
      body = call.bytes.data as Uint8Array<ArrayBuffer>;
    }
    try {
      return await doFetch(url, {
        method,
        headers,
        ...(body === undefined ? {} : { body }),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
    } catch (cause) {
      throw networkFailure(nsid, cause);
    }
  }

  async function request<T>(method: 'GET' | 'POST', nsid: string, call: XrpcCall, token: string | null): Promise<T> {
    const response = await send(method, nsid, call, token);
    if (!response.ok) throw await answerFailure(nsid, response);
    const text = await response.text();
    if (text === '') return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch (cause) {
      throw new SyndicationError(`Bluesky ${nsid} answered ${response.status} with a body that is not JSON`, { transient: true, cause });
    }
  }

  function createSession(): Promise<Session> {
    return request<Session>(
      'POST',
      'com.atproto.server.createSession',
      {
        json: { identifier: options.identifier, password: options.password },
      },
      null,
    );
  }

  /** The session, made once and shared by concurrent calls; a failed attempt is forgotten so the next call tries again. */
  function current(): Promise<Session> {
    const made = (slot.session ??= createSession().catch((error: unknown) => {
      if (slot.session === made) slot.session = null;
      throw error;
    }));
    return made;
  }

  /** A new session after the access token expired: refreshed, or made again when the refresh token is no good either. */
  function renew(stale: Session): Promise<Session> {
    const renewed: Promise<Session> = request<Session>('POST', 'com.atproto.server.refreshSession', {}, stale.refreshJwt)
      .catch((error: unknown) => {
        if (error instanceof XrpcError && !error.transient) return createSession();
        throw error;
      })
      .catch((error: unknown) => {
        if (slot.session === renewed) slot.session = null;
        throw error;
      });
    slot.session = renewed;
    return renewed;
  }

  return {
    session: current,
    /** A call as the account; an expired access token is renewed once and the call made again. */
    async call<T>(method: 'GET' | 'POST', nsid: string, call: XrpcCall = {}): Promise<T> {
      const used = await current();
      try {
        return await request<T>(method, nsid, call, used.accessJwt);
      } catch (error) {
        if (!(error instanceof XrpcError) || !isExpiredToken(error)) throw error;
        // another call may have renewed it already
        const latest = await current();
        const fresh = latest.accessJwt === used.accessJwt ? await renew(latest) : latest;
        return request<T>(method, nsid, call, fresh.accessJwt);
      }
    },
    /** A call without the session (public reads). */
    anonymous<T>(method: 'GET' | 'POST', nsid: string, call: XrpcCall = {}): Promise<T> {
      return request<T>(method, nsid, call, null);
    },
  };
}

export type Xrpc = ReturnType<typeof createXrpc>;

function isExpiredToken(error: XrpcError): boolean {
  return (error.status === 400 || error.status === 401) && (error.error === 'ExpiredToken' || error.error === 'InvalidToken');
}
