/**
 * The one way the server fetches anything: http(s) only, at most 5
 * redirects followed by hand, each hop's address checked after DNS, a
 * time cap and a body-size cap, and a descriptive User-Agent.
 * @see SPEC.md "Webmention endpoints" rule 3
 * @module
 */
import type { Agent, request as undiciRequest } from 'undici';
import ipaddr from 'ipaddr.js';
import { DEFAULT_OUTBOUND_TIMEOUT_S, type Config } from '../config/config.js';
import type { OutboundOutcome } from '../core/meter.js';
import { PARSE_LIMITS, parseOffThread } from '../html/pool.js';
import { ForbiddenAddressError, guardedLookup, isPublicAddress } from './address-guard.js';

export const MAX_REDIRECTS = 5;
export const DEFAULT_TIMEOUT_MS = DEFAULT_OUTBOUND_TIMEOUT_S * 1000;
export const DEFAULT_MAX_BYTES = 1024 * 1024;
export const USER_AGENT = 'indiestack/0.1 (IndieWeb server; Webmention, IndieAuth)';

export interface OutboundOptions {
  readonly allowPrivateNetworks: boolean;
  /** Time one fetch may take in all: connecting, every redirect, the headers and the whole body. @defaultValue 10 000 (`INDIEWEB_OUTBOUND_TIMEOUT`) */
  readonly timeoutMs?: number;
  readonly maxBytes?: number;
  readonly userAgent?: string;
  /** Told how each fetch ended (metrics). */
  readonly onOutcome?: (outcome: OutboundOutcome) => void;
  /** Time the parse of one fetched page may take in the parse pool ({@link Outbound.read}). @defaultValue 5 000 (`INDIEWEB_PARSE_TIMEOUT`) */
  readonly parseTimeoutMs?: number;
}

export interface OutboundRequest {
  readonly method?: 'GET' | 'POST' | 'HEAD';
  readonly headers?: Readonly<Record<string, string>>;
  /** A form payload (POST); kept across every redirect, 303 included (SPEC.md "Webmention endpoints" rule 3). */
  readonly form?: Readonly<Record<string, string>>;
  /** A raw POST body with its content type (a webhook's JSON), kept across redirects like a form. */
  readonly raw?: { readonly contentType: string; readonly data: string };
  readonly maxRedirects?: number;
  /** A body longer than the limit is cut there (and `truncated` set) instead of failing the fetch. */
  readonly truncate?: boolean;
}

export interface OutboundResponse {
  /** The URL that answered, after redirects: the base for relative URLs in the body. */
  readonly url: string;
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: Buffer;
  readonly redirects: number;
  /** True when `truncate` cut the body at the size limit. */
  readonly truncated?: boolean;
}

/**
 * Why a fetch failed; `transient` failures are worth retrying. The message
 * names the URL's host and the rule that failed, never a resolved address or
 * a socket's own message (those stay in `cause`): it is shown to whoever
 * sent a webmention as the reason it failed.
 */
export class OutboundError extends Error {
  constructor(
    message: string,
    readonly transient: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'OutboundError';
  }
}

export type Outbound = ReturnType<typeof createOutbound>;

/**
 * The outbound module as the server's settings make it (`INDIEWEB_ALLOW_PRIVATE_NETWORKS`,
 * `INDIEWEB_OUTBOUND_TIMEOUT`, `INDIEWEB_PARSE_TIMEOUT`): every door (routes, worker, CLI) builds its
 * fetcher here, so none forgets a setting. `overrides` tighten it for one use (the consent screen's
 * shorter time, the citation's smaller body) and add the metrics.
 */
export function outboundFor(
  config: Pick<Config, 'allowPrivateNetworks' | 'outboundTimeout' | 'parseTimeout'>,
  overrides: Omit<OutboundOptions, 'allowPrivateNetworks' | 'parseTimeoutMs'> = {},
): Outbound {
  return createOutbound({
    allowPrivateNetworks: config.allowPrivateNetworks,
    timeoutMs: config.outboundTimeout * 1000,
    parseTimeoutMs: config.parseTimeout * 1000,
    ...overrides,
  });
}

/** A failed socket's error code (`ECONNREFUSED`, `ENOTFOUND`), never its message, which may name the address connected to. */
function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[A-Z0-9_]{1,40}$/.test(code) ? ` (${code})` : '';
}

function headerValue(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function assertFetchable(url: URL, allowPrivate: boolean): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new OutboundError(`refusing ${url.protocol} URL`, false);
  if (url.username !== '' || url.password !== '') throw new OutboundError('refusing a URL with credentials', false);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  // an IP literal never goes through DNS, so check it here
  if (!allowPrivate && ipaddr.isValid(host) && !isPublicAddress(host))
    throw new OutboundError(`refusing to connect to ${host}: not a public address`, false);
}

export function createOutbound(options: OutboundOptions) {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const userAgent = options.userAgent ?? USER_AGENT;
  // undici loads on the first fetch, not at start
  let client: Promise<{ dispatcher: Agent; request: typeof undiciRequest }> | null = null;
  const loadClient = () =>
    (client ??= import('undici').then(({ Agent, request }) => ({
      request,
      dispatcher: new Agent({
        connect: { lookup: guardedLookup(options.allowPrivateNetworks) as never, timeout: timeoutMs },
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        // undici 8 would speak HTTP/2 where TLS offers it; the caps and timeouts here are measured on HTTP/1.1
        allowH2: false,
      }),
    })));

  async function fetchUrl(target: string, request: OutboundRequest = {}): Promise<OutboundResponse> {
    const signal = AbortSignal.timeout(timeoutMs);
    let url: URL;
    try {
      url = new URL(target);
    } catch (error) {
      throw new OutboundError(`not a URL: ${target}`, false, { cause: error });
    }
    const method = request.method ?? 'GET';
    const form = request.form;
    // the spec's limit is a ceiling: callers may ask for fewer hops, never more
    const maxRedirects = Math.min(request.maxRedirects ?? MAX_REDIRECTS, MAX_REDIRECTS);
    let headers = request.headers ?? {};
    for (let redirects = 0; ; redirects++) {
      assertFetchable(url, options.allowPrivateNetworks);
      const body = method !== 'POST' ? undefined : form !== undefined ? new URLSearchParams(form).toString() : request.raw?.data;
      const contentType =
        form !== undefined ? 'application/x-www-form-urlencoded' : (request.raw?.contentType ?? 'application/octet-stream');
      let response: Awaited<ReturnType<typeof undiciRequest>>;
      const { dispatcher, request: undiciRequest } = await loadClient();
      try {
        response = await undiciRequest(url, {
          method,
          dispatcher,
          signal,
          headers: {
            'user-agent': userAgent,
            accept: 'text/html, application/xhtml+xml;q=0.9, */*;q=0.5',
            ...headers,
            ...(body === undefined ? {} : { 'content-type': contentType }),
          },
          ...(body === undefined ? {} : { body }),
        });
      } catch (error) {
        const forbidden = error instanceof ForbiddenAddressError || (error as { cause?: unknown })?.cause instanceof ForbiddenAddressError;
        const timedOut = signal.aborted || (error as Error).name === 'TimeoutError';
        const message = forbidden
          ? `refused address for ${url.host}`
          : timedOut
            ? `${url.host} did not answer within ${timeoutMs} ms`
            : `cannot reach ${url.host}${errorCode(error)}`;
        throw new OutboundError(message, !forbidden, { cause: error });
      }
      const location = headerValue(response.headers, 'location');
      if (response.statusCode >= 300 && response.statusCode < 400 && location !== undefined && response.statusCode !== 304) {
        await response.body.dump();
        if (redirects >= maxRedirects) throw new OutboundError(`more than ${maxRedirects} redirects`, false);
        let next: URL;
        try {
          next = new URL(location, url);
        } catch (error) {
          throw new OutboundError(`invalid redirect location from ${url.host}`, false, { cause: error });
        }
        // caller headers (credentials among them) never follow a redirect to another origin
        if (next.origin !== url.origin) headers = {};
        url = next;
        // spec: a POST keeps its method and form payload across every redirect, 303 included
        continue;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      let truncated = false;
      try {
        for await (const chunk of response.body) {
          const bytes = chunk as Buffer;
          if (size + bytes.length > maxBytes) {
            response.body.destroy();
            if (request.truncate !== true) throw new OutboundError(`response larger than ${maxBytes} bytes`, false);
            chunks.push(bytes.subarray(0, maxBytes - size));
            truncated = true;
            break;
          }
          size += bytes.length;
          chunks.push(bytes);
        }
      } catch (error) {
        if (error instanceof OutboundError) throw error;
        // the time cap covers the body too: a page dripped a byte at a time ends here
        if (signal.aborted) throw new OutboundError(`${url.host} did not send its answer within ${timeoutMs} ms`, true, { cause: error });
        throw new OutboundError(`reading ${url.host} failed${errorCode(error)}`, true, { cause: error });
      }
      return {
        url: url.href,
        status: response.statusCode,
        headers: response.headers,
        body: Buffer.concat(chunks),
        redirects,
        ...(truncated ? { truncated } : {}),
      };
    }
  }

  const onOutcome = options.onOutcome;
  const counted =
    onOutcome === undefined
      ? fetchUrl
      : async (target: string, request?: OutboundRequest): Promise<OutboundResponse> => {
          try {
            const response = await fetchUrl(target, request);
            onOutcome(`${Math.min(Math.max(Math.floor(response.status / 100), 2), 5)}xx` as OutboundOutcome);
            return response;
          } catch (error) {
            // not transient: refused by a rule (address, scheme, size, redirects) rather than a network that failed
            onOutcome(error instanceof OutboundError && !error.transient ? 'refused' : 'failed');
            throw error;
          }
        };

  const parseTimeoutMs = options.parseTimeoutMs ?? PARSE_LIMITS.budgetMs;
  return {
    fetch: counted,
    /**
     * Calls `name` of `module` on a fetched page in the parse pool, off the event loop, within this server's
     * parse time (`INDIEWEB_PARSE_TIMEOUT`) and the pool's memory bounds ({@link parseOffThread}).
     */
    read: <T>(module: URL, name: string, args: readonly unknown[]): Promise<T> =>
      parseOffThread<T>(module, name, args, { budgetMs: parseTimeoutMs }),
    async close(): Promise<void> {
      if (client !== null) await (await client).dispatcher.close();
    },
  };
}
