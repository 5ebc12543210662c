/**
 * How the Write area publishes: through indiestack's own Micropub endpoint,
 * in process. Each call mints an access token for the signed-in user with
 * exactly the scope the operation needs and a 60-second lifetime, held in
 * the token service's memory only (no database row: page views leave
 * nothing behind), sends the request to the endpoint with `inject()` (no
 * socket), and forgets the token as soon as the answer is in. The token
 * never leaves the process.
 *
 * Why a token and the real route rather than calling the Micropub functions
 * with the session's user: the request then runs through exactly what any
 * Micropub client's request runs through (body parsers and their limits,
 * the bearer guard and the client policy, the scope table, the property and
 * URL rules, the handler boundary, the error table), so the admin can never
 * publish what a client could not, and nothing has to be kept in step.
 * @module
 */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { HostUser } from '../../contracts/accounts.js';
import type { MicropubProperties, UpdateOperations } from '../../contracts/micropub-types.js';
import type { TokenService } from '../../indieauth/token-service.js';

/** Seconds a minted token lives: one call, with room for a slow handler. */
export const WRITE_TOKEN_LIFETIME_S = 60;

/** The client_id of the admin's in-process tokens (what the client policy and the Micropub handler see). */
export function adminClientId(baseUrl: string): string {
  return `${baseUrl}/indieweb/admin/`;
}

/** What the endpoint answered when it refused: the status and its `error` / `error_description`. */
export class MicropubRefusal extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    readonly description: string | null,
  ) {
    super(`micropub answered ${status} ${error}${description === null ? '' : `: ${description}`}`);
    this.name = 'MicropubRefusal';
  }

  /** A sentence for the page. */
  get sentence(): string {
    if (this.status === 401) return "The Micropub endpoint did not accept the admin's token (is your account active?).";
    if (this.status === 403 && this.error === 'invalid_client')
      return 'The client policy (INDIEWEB_ALLOWED_CLIENT_IDS or INDIEWEB_CLIENT_ID_VALIDATOR) refuses the admin as a Micropub client: allow its client_id (see docs/admin.md).';
    if (this.status === 403) return "The admin's token lacks the scope this needs.";
    if (this.status === 501) return 'Your content handler does not support this.';
    if (this.status === 503) return 'The database is busy. Nothing was lost: try again in a moment.';
    if (this.status >= 500) return 'The content handler failed. Nothing was changed; the server log has the details.';
    return this.description === null ? 'The Micropub endpoint refused this.' : `The Micropub endpoint refused this: ${this.description}.`;
  }
}

export interface SourceItem {
  readonly type: readonly string[];
  readonly properties: MicropubProperties;
}

export interface SourcePage {
  readonly items: readonly SourceItem[];
  readonly paging: { readonly limit: number | null; readonly offset: number; readonly total?: number };
}

export interface SyndicationChoice {
  readonly uid: string;
  readonly name: string;
  readonly checked: boolean;
}

export type MicropubClient = ReturnType<typeof createMicropubClient>;

interface CallOptions {
  readonly method: 'GET' | 'POST';
  readonly query?: Readonly<Record<string, string>>;
  readonly json?: unknown;
}

function refusalOf(response: LightMyRequestResponse): MicropubRefusal {
  let error = response.body.trim() || String(response.statusCode);
  let description: string | null = null;
  try {
    const parsed = JSON.parse(response.body) as { error?: unknown; error_description?: unknown };
    if (typeof parsed.error === 'string') error = parsed.error;
    if (typeof parsed.error_description === 'string') description = parsed.error_description;
  } catch {
    // a text answer (401, 403): its body is the error
  }
  return new MicropubRefusal(response.statusCode, error.slice(0, 200), description?.slice(0, 500) ?? null);
}

function jsonOf(response: LightMyRequestResponse): unknown {
  try {
    return JSON.parse(response.body);
  } catch {
    return null;
  }
}

export function createMicropubClient(deps: {
  /** Any instance of the app: `inject()` always enters at the root. */
  readonly app: FastifyInstance;
  readonly tokens: TokenService;
  readonly baseUrl: string;
  /** Path of the Micropub endpoint on the app (the plugin's prefix included). */
  readonly endpointPath: string;
}) {
  const { app, tokens, baseUrl, endpointPath } = deps;
  const clientId = adminClientId(baseUrl);

  /** One request with a token of `scope` minted for `user`, revoked afterwards whatever happened. */
  async function call(user: HostUser, host: string, scope: string, options: CallOptions): Promise<LightMyRequestResponse> {
    // held in this process's memory only: a page view writes no token row (issue 28 F21)
    const issued = tokens.issueInProcess({
      userId: user.id,
      clientId,
      me: user.me[0] ?? `${baseUrl}/`,
      scope,
      expiresIn: WRITE_TOKEN_LIFETIME_S,
    });
    try {
      const query = options.query === undefined ? '' : `?${new URLSearchParams(options.query).toString()}`;
      return await app.inject({
        method: options.method,
        url: `${endpointPath}${query}`,
        headers: {
          host,
          authorization: `Bearer ${issued.token}`,
          accept: 'application/json',
          ...(options.json === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(options.json === undefined ? {} : { payload: JSON.stringify(options.json) }),
      });
    } finally {
      issued.end();
    }
  }

  async function expect(response: LightMyRequestResponse, statuses: readonly number[]): Promise<LightMyRequestResponse> {
    if (!statuses.includes(response.statusCode)) throw refusalOf(response);
    return response;
  }

  /** The client for one signed-in user; `host` is the Host the admin page was asked on (action URLs are checked against it). */
  return function forUser(user: HostUser, host: string) {
    const send = (scope: string, options: CallOptions) => call(user, host, scope, options);
    return {
      /** POST create (JSON): the new entry's URL. */
      async create(entry: { type: readonly string[]; properties: MicropubProperties }): Promise<string> {
        const response = await expect(await send('create', { method: 'POST', json: entry }), [201, 202]);
        return String(response.headers.location ?? '');
      },

      /** POST action=update: the entry's URL afterwards (a handler may move it). */
      async update(url: string, operations: UpdateOperations): Promise<string> {
        const response = await expect(
          await send('update', { method: 'POST', json: { action: 'update', url, ...operations } }),
          [200, 201, 204],
        );
        return response.statusCode === 201 ? String(response.headers.location ?? url) : url;
      },

      async delete(url: string): Promise<void> {
        await expect(await send('delete', { method: 'POST', json: { action: 'delete', url } }), [200, 204]);
      },

      /** POST action=undelete: the entry's URL afterwards. */
      async undelete(url: string): Promise<string> {
        const response = await expect(await send('undelete', { method: 'POST', json: { action: 'undelete', url } }), [200, 201, 204]);
        return response.statusCode === 201 ? String(response.headers.location ?? url) : url;
      },

      /** q=source&url=…: the entry's type and properties. */
      async source(url: string): Promise<SourceItem> {
        const body = jsonOf(
          await expect(await send('update', { method: 'GET', query: { q: 'source', url } }), [200]),
        ) as Partial<SourceItem> | null;
        return { type: Array.isArray(body?.type) ? body.type : ['h-entry'], properties: (body?.properties ?? {}) as MicropubProperties };
      },

      /** q=source list mode; a handler without listEntries is a 501 refusal. */
      async list(page: { limit: number; offset: number; filter: string }): Promise<SourcePage> {
        const query: Record<string, string> = { q: 'source', limit: String(page.limit), offset: String(page.offset) };
        if (page.filter !== '') query.filter = page.filter;
        const body = jsonOf(await expect(await send('update', { method: 'GET', query }), [200])) as Partial<SourcePage> | null;
        const items = Array.isArray(body?.items)
          ? body.items.filter((item) => typeof item === 'object' && item !== null && typeof item.properties === 'object')
          : [];
        return { items, paging: body?.paging ?? { limit: page.limit, offset: page.offset } };
      },

      /** q=category: the categories the handler suggests (strings only). */
      async categories(): Promise<string[]> {
        const body = jsonOf(await expect(await send('create', { method: 'GET', query: { q: 'category' } }), [200])) as {
          categories?: unknown;
        } | null;
        return Array.isArray(body?.categories)
          ? body.categories.filter((item): item is string => typeof item === 'string' && item !== '')
          : [];
      },

      /** q=syndicate-to: the targets offered (uid and name). */
      async syndicateTo(): Promise<SyndicationChoice[]> {
        const body = jsonOf(await expect(await send('create', { method: 'GET', query: { q: 'syndicate-to' } }), [200])) as {
          'syndicate-to'?: unknown;
        } | null;
        const targets = Array.isArray(body?.['syndicate-to']) ? body['syndicate-to'] : [];
        return targets
          .filter(
            (target): target is { uid: string; name?: unknown; checked?: unknown } =>
              typeof target === 'object' && target !== null && typeof (target as { uid?: unknown }).uid === 'string',
          )
          .map((target) => ({
            uid: target.uid,
            name: typeof target.name === 'string' && target.name !== '' ? target.name : target.uid,
            checked: target.checked === true,
          }));
      },
    };
  };
}

export type UserMicropubClient = ReturnType<MicropubClient>;
