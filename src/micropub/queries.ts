/**
 * `GET /micropub/?q=…`: configuration, lists and the source of entries.
 * @see SPEC.md "Micropub endpoint" (GET with q, Source single and list mode)
 * @module
 */
import type { HostUser } from '../contracts/accounts.js';
import type { MicropubHandler } from '../contracts/micropub-handler.js';
import type { MicropubConfig } from '../contracts/micropub-types.js';
import { excerpt, forClient, InvalidRequestError, NotImplementedError } from '../core/errors.js';
import { applyListParams, parseListParams } from '../core/list-params.js';
import { readParam } from '../core/params.js';
import { callHandler } from '../content/call-handler.js';
import type { UrlPolicyCheck } from '../content/url-policy.js';

export const DEFAULT_SOURCE_LIMIT = 20;

/** The user's syndication targets the server adds to the handler's (`{ uid, name, service }` each). */
export type SyndicationTargets = (user: HostUser) => Promise<readonly object[]>;

export interface QueryDeps {
  readonly handler: MicropubHandler;
  /** Added after the handler's `syndicate-to` list; null: none. */
  readonly syndicationTargets?: SyndicationTargets | null;
  /** Absolute URL of the bundled media endpoint. */
  readonly mediaEndpoint: string;
  readonly urlPolicy: UrlPolicyCheck;
}

function listOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** The handler's config with `media-endpoint` always present: a truthy handler value is kept. */
function withMediaEndpoint(deps: QueryDeps, config: unknown): MicropubConfig {
  const map = typeof config === 'object' && config !== null ? (config as MicropubConfig) : {};
  return { ...map, 'media-endpoint': map['media-endpoint'] || deps.mediaEndpoint };
}

async function loadConfigMap(deps: QueryDeps, user: HostUser): Promise<MicropubConfig> {
  return withMediaEndpoint(deps, await callHandler('get_config', () => deps.handler.getConfig(user)));
}

/** The handler's syndication targets, then the user's own (an empty list when there are none of either). */
async function syndicateToList(deps: QueryDeps, config: MicropubConfig, user: HostUser): Promise<unknown[]> {
  const extra = deps.syndicationTargets === undefined || deps.syndicationTargets === null ? [] : await deps.syndicationTargets(user);
  return [...listOf(config['syndicate-to']), ...extra];
}

/**
 * True for JSON data that can never change: plain objects and arrays, frozen
 * all the way down, with data properties only and no `toJSON`.
 */
export function isFrozenJson(value: unknown, depth = 0): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean' || typeof value === 'number') return true;
  if (typeof value !== 'object' || depth > 32 || !Object.isFrozen(value)) return false;
  if (!Array.isArray(value)) {
    const proto: unknown = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) return false;
  }
  for (const [key, descriptor] of Object.entries(Object.getOwnPropertyDescriptors(value))) {
    if (key === 'toJSON' || !('value' in descriptor)) return false;
    if (!isFrozenJson(descriptor.value, depth + 1)) return false;
  }
  return true;
}

/**
 * `q=config` as JSON text. When the handler hands back the same deeply frozen
 * object it did before (the in-memory handler always does), the text made
 * then is sent again: such an object cannot have changed. Any other config is
 * serialised on every request.
 */
export function createConfigText(deps: QueryDeps): (user: HostUser) => Promise<string> {
  const texts = new WeakMap<object, string>();
  return async (user) => {
    const config = await callHandler('get_config', () => deps.handler.getConfig(user));
    const extra = deps.syndicationTargets === undefined || deps.syndicationTargets === null ? [] : await deps.syndicationTargets(user);
    if (extra.length > 0) {
      // the user's targets: never cached (they change without the handler's config changing)
      const map = withMediaEndpoint(deps, config);
      return JSON.stringify({ ...map, 'syndicate-to': [...listOf(map['syndicate-to']), ...extra] });
    }
    const cacheable = typeof config === 'object' && config !== null;
    const known = cacheable ? texts.get(config) : undefined;
    if (known !== undefined) return known;
    const text = JSON.stringify(withMediaEndpoint(deps, config));
    if (cacheable && isFrozenJson(config)) texts.set(config, text);
    return text;
  };
}

/** Runs every query but `config` (see {@link createConfigText}) and `source` (which needs a scope); returns the JSON body. */
export async function runConfigQuery(deps: QueryDeps, q: string, query: unknown, user: HostUser): Promise<Record<string, unknown>> {
  switch (q) {
    case 'syndicate-to':
      return { 'syndicate-to': await syndicateToList(deps, await loadConfigMap(deps, user), user) };
    case 'media-endpoint':
      return { 'media-endpoint': (await loadConfigMap(deps, user))['media-endpoint'] };
    case 'category': {
      const page = parseListParams(query);
      return { categories: applyListParams(listOf((await loadConfigMap(deps, user)).categories), page) };
    }
    case 'channel': {
      const page = parseListParams(query);
      return { channels: applyListParams(listOf((await loadConfigMap(deps, user)).channels), page) };
    }
    case 'post-types': {
      const page = parseListParams(query);
      const postType = readParam(query, 'post-type');
      const all = listOf((await loadConfigMap(deps, user))['post-types']);
      // spec: post-type narrows first, then filter, offset, limit
      const narrowed =
        postType === undefined
          ? all
          : all.filter((item) => typeof item === 'object' && item !== null && (item as { type?: unknown }).type === postType);
      return { 'post-types': applyListParams(narrowed, page) };
    }
    default:
      throw new InvalidRequestError(forClient(`unsupported query ${excerpt(q)}`));
  }
}

function requestedProperties(query: unknown): string[] | null {
  const raw = (query as Record<string, unknown> | null)?.['properties[]'] ?? (query as Record<string, unknown> | null)?.properties;
  if (raw === undefined) return null;
  const names = Array.isArray(raw) ? raw : [raw];
  if (!names.every((name) => typeof name === 'string')) throw new InvalidRequestError(forClient('properties[] must be property names'));
  return names as string[];
}

/** `q=source`: one entry (by `url`), or a page of entries. The caller has checked the `update` scope. */
export async function runSourceQuery(deps: QueryDeps, query: unknown, user: HostUser, request: unknown): Promise<Record<string, unknown>> {
  const url = readParam(query, 'url');
  if (url !== undefined) {
    if (url === '') throw new InvalidRequestError(forClient('url is empty'));
    const wanted = requestedProperties(query);
    await deps.urlPolicy(url, 'entry', request);
    const entry = await callHandler('get_entry', () => deps.handler.getEntry(url, user));
    if (entry === null) throw new InvalidRequestError(forClient('no such entry'));
    if (wanted === null) return { type: entry.type, properties: entry.properties };
    // spec: with properties[], type is omitted and missing names are left out silently
    return {
      properties: Object.fromEntries(
        wanted.filter((name) => Object.hasOwn(entry.properties, name)).map((name) => [name, entry.properties[name]]),
      ),
    };
  }

  const params = parseListParams(query);
  const listEntries = deps.handler.listEntries?.bind(deps.handler);
  if (listEntries === undefined) throw new NotImplementedError('the handler cannot list entries');
  const page = { limit: params.limit ?? DEFAULT_SOURCE_LIMIT, offset: params.offset, filter: params.filter };
  const result = await callHandler('list_entries', () => listEntries(user, page));
  const paging: Record<string, number | null> = { limit: page.limit, offset: page.offset };
  if (typeof result.total === 'number') paging.total = result.total;
  return { items: result.items.map((item) => ({ type: item.type, properties: item.properties })), paging };
}
