/**
 * What a client says about itself at its client_id URL: a JSON client
 * metadata document, or an h-app / h-x-app with rel=redirect_uri links.
 * Fetched through the guarded outbound module, time-capped, cached per
 * Cache-Control (a cache only: any instance can fetch again).
 * @module
 */
import type { Clock } from '../core/clock.js';
import { createBoundedCache } from '../core/bounded-cache.js';
import type { Outbound } from '../outbound/fetch.js';
import type { ClientPage } from './client-page.js';
import { absolute, text } from './client-values.js';

/** The module whose `readClientPage` the parse pool runs. */
const CLIENT_PAGE_MODULE = new URL('./client-page.js', import.meta.url);

export interface ClientInfo {
  readonly name: string | null;
  readonly logo: string | null;
  readonly url: string | null;
  /** Redirect URIs the client publishes (absolute). */
  readonly redirectUris: readonly string[];
}

const DEFAULT_TTL_S = 300;
const MAX_TTL_S = 86_400;
const MAX_ENTRIES = 500;
/** A page that could not be read is tried again soon: a cross-host redirect_uri is refused meanwhile. */
const FAILURE_TTL_S = 30;

/** Reads a fetched client page; null when it says nothing usable about the client. */
export async function readClientInfo(
  outbound: Pick<Outbound, 'read'>,
  clientId: string,
  body: string,
  contentType: string,
  finalUrl: string,
): Promise<ClientInfo | null> {
  if (/json/i.test(contentType)) {
    let document: Record<string, unknown>;
    try {
      document = JSON.parse(body) as Record<string, unknown>;
    } catch {
      return null;
    }
    // a metadata document speaks only for the client_id it names
    if (typeof document !== 'object' || document === null || document.client_id !== clientId) return null;
    const uris = Array.isArray(document.redirect_uris)
      ? document.redirect_uris.map((uri) => absolute(uri, finalUrl)).filter((uri): uri is string => uri !== null)
      : [];
    return {
      name: text(document.client_name),
      logo: absolute(document.logo_uri, finalUrl),
      url: absolute(document.client_uri, finalUrl),
      redirectUris: uris,
    };
  }
  // parsed in the parse pool, off the event loop (issue 28 F4); a page past its bounds or budget throws, and reads as unreadable
  return outbound.read<ClientPage>(CLIENT_PAGE_MODULE, 'readClientPage', [body, finalUrl]);
}

function ttlOf(cacheControl: string | undefined): number {
  if (cacheControl === undefined) return DEFAULT_TTL_S;
  if (/no-store|no-cache/i.test(cacheControl)) return 0;
  const maxAge = /max-age=(\d+)/i.exec(cacheControl)?.[1];
  return maxAge === undefined ? DEFAULT_TTL_S : Math.min(Number(maxAge), MAX_TTL_S);
}

export type ClientInfoFetcher = ReturnType<typeof createClientInfoFetcher>;

export function createClientInfoFetcher(deps: { outbound: Outbound; clock: Clock }) {
  // the least recently asked client goes first
  const cache = createBoundedCache<string, { info: ClientInfo | null; until: number }>({ maxEntries: MAX_ENTRIES });
  return {
    /** The client's own description, or null when it cannot be fetched or says nothing. Never throws. */
    async get(clientId: string): Promise<ClientInfo | null> {
      const now = deps.clock.now().getTime();
      const cached = cache.get(clientId);
      if (cached !== undefined && cached.until > now) return cached.info;
      let info: ClientInfo | null = null;
      let ttl = DEFAULT_TTL_S;
      try {
        const response = await deps.outbound.fetch(clientId, { headers: { accept: 'application/json, text/html;q=0.9' } });
        const header = (name: string) => {
          const value = response.headers[name];
          return Array.isArray(value) ? value[0] : value;
        };
        if (response.status >= 200 && response.status < 300)
          info = await readClientInfo(
            deps.outbound,
            clientId,
            response.body.toString('utf8'),
            header('content-type') ?? 'text/html',
            response.url,
          );
        ttl = ttlOf(header('cache-control'));
      } catch {
        info = null;
      }
      if (info === null) ttl = Math.min(ttl, FAILURE_TTL_S);
      if (ttl > 0) cache.set(clientId, { info, until: now + ttl * 1000 });
      return info;
    },
  };
}
