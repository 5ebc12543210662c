/**
 * The query parameters of the webmention.io-compatible API, read and
 * checked: `target` (also repeated, and `target[]`), `domain`, `token`,
 * `per-page` (or `perPage`), `page`, `since`, `since_id`, `sort-by`,
 * `sort-dir`, `wm-property` (also `wm-property[]`) and `jsonp`. A malformed
 * value is a 400 with a reason; parameter names it does not know are
 * ignored, as webmention.io ignores them (cache-busters such as `_=`).
 * @module
 */
import { forClient, InvalidRequestError } from '../../core/errors.js';
import { API_SORT_KEYS, type ApiSortKey } from '../../storage/repositories/webmentions.js';
import { canonicalUrl } from '../canonical-url.js';
import { bareHostOf } from '../host.js';
import { mentionTypeOfWmProperty, WM_PROPERTIES } from '../mention-type.js';
import { tokenParam } from './token-param.js';

export const DEFAULT_PER_PAGE = 20;
/** Larger pages are cut to this (eleventy-cache-webmentions asks for 1000 a page). */
export const MAX_PER_PAGE = 1000;
/** Targets in one request. */
export const MAX_TARGETS = 100;
const MAX_VALUE_LENGTH = 2048;

export interface ApiQuery {
  /** Canonical keys of the asked targets; undefined when no target was given. */
  readonly targetKeys: readonly string[] | undefined;
  readonly domain: string | undefined;
  readonly token: string | undefined;
  readonly perPage: number;
  readonly page: number;
  /** Received at or after this instant: `since` is strictly after, at webmention.io's one-second precision. */
  readonly receivedFrom: string | undefined;
  readonly sinceId: number | undefined;
  readonly sortBy: ApiSortKey;
  readonly ascending: boolean;
  readonly types: readonly string[] | undefined;
  readonly jsonp: string | undefined;
}

const invalid = (reason: string) => new InvalidRequestError(forClient(reason));

/** Every value of a parameter given as `name`, `name[]` (or `name[0]`…), once or repeated. */
export function valuesOf(query: unknown, name: string): string[] {
  if (typeof query !== 'object' || query === null) return [];
  const values: string[] = [];
  for (const [key, value] of Object.entries(query as Record<string, unknown>)) {
    if (key !== name && key !== `${name}[]` && !(key.startsWith(`${name}[`) && /^\[\d{1,3}\]$/.test(key.slice(name.length)))) continue;
    for (const one of Array.isArray(value) ? value : [value]) {
      if (typeof one !== 'string') continue;
      if (one.length > MAX_VALUE_LENGTH) throw invalid(`${name} is longer than ${MAX_VALUE_LENGTH} characters`);
      values.push(one);
    }
  }
  return values;
}

function single(query: unknown, name: string): string | undefined {
  const values = valuesOf(query, name);
  if (values.length > 1) throw invalid(`${name} must be given once`);
  return values[0];
}

function integer(name: string, raw: string | undefined, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^-?\d{1,15}$/.test(raw.trim())) throw invalid(`${name} must be a whole number`);
  const value = Number(raw.trim());
  if (value < min) throw invalid(`${name} must be at least ${min}`);
  if (value > max) throw invalid(`${name} must be at most ${max}`);
  return value;
}

/** The instant a `since` names, as milliseconds; a `+hh:mm` offset sent unencoded arrives as a space and is read as `+`. */
export function parseSince(raw: string): number {
  const value = raw
    .trim()
    .replace(/ (\d{2}:?\d{2})$/, '+$1')
    .replace(/([+-]\d{2})(\d{2})$/, '$1:$2');
  const ms = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})?)?$/i.test(value)
    ? Date.parse(value)
    : Number.NaN;
  if (Number.isNaN(ms)) throw invalid('since must be a date and time such as 2026-06-01T10:00:00Z');
  return ms;
}

function targetKeysOf(values: readonly string[]): string[] {
  const keys = new Set<string>();
  for (const value of values) {
    // webmention.io reads a target without scheme as both http: and https:
    const candidates = value.startsWith('//') ? [`https:${value}`, `http:${value}`] : [value];
    for (const candidate of candidates) {
      const key = canonicalUrl(candidate);
      if (key === null) throw invalid('target must be an http(s) URL');
      keys.add(key);
    }
  }
  return [...keys];
}

function domainOf(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  let host: string | null = raw.trim();
  if (/^https?:\/\//i.test(host)) {
    try {
      host = new URL(host).hostname;
    } catch {
      throw invalid('domain must be a host name');
    }
  }
  host = bareHostOf(host);
  if (host === null || !/^[a-z0-9.-]{1,253}$/.test(host)) throw invalid('domain must be a host name');
  return host;
}

export function parseApiQuery(query: unknown): ApiQuery {
  const targets = valuesOf(query, 'target').filter((value) => value !== '');
  if (targets.length > MAX_TARGETS) throw invalid(`at most ${MAX_TARGETS} targets at once`);
  const perPage = integer('per-page', single(query, 'per-page') ?? single(query, 'perPage'), 1) ?? DEFAULT_PER_PAGE;
  const sortBy = single(query, 'sort-by') ?? 'created';
  if (!(API_SORT_KEYS as readonly string[]).includes(sortBy)) throw invalid(`sort-by must be one of ${API_SORT_KEYS.join(', ')}`);
  const sortDir = single(query, 'sort-dir') ?? 'down';
  if (sortDir !== 'up' && sortDir !== 'down') throw invalid('sort-dir must be up or down');
  const properties = valuesOf(query, 'wm-property').filter((value) => value !== '');
  for (const property of properties) {
    if (mentionTypeOfWmProperty(property) === undefined) throw invalid(`wm-property must be one of ${WM_PROPERTIES.join(', ')}`);
  }
  const since = single(query, 'since');
  const jsonp = single(query, 'jsonp');
  // the callback name is written into JavaScript: a plain identifier path only
  if (jsonp !== undefined && !/^[A-Za-z_$][\w$]{0,63}(?:\.[A-Za-z_$][\w$]{0,63}){0,3}$/.test(jsonp))
    throw invalid('jsonp must be a JavaScript function name');
  return {
    targetKeys: targets.length === 0 ? undefined : targetKeysOf(targets),
    domain: domainOf(single(query, 'domain')),
    token: tokenParam(query),
    perPage: Math.min(perPage, MAX_PER_PAGE),
    page: integer('page', single(query, 'page'), 0, 1_000_000) ?? 0,
    receivedFrom:
      since === undefined || since === '' ? undefined : new Date(Math.floor(parseSince(since) / 1000) * 1000 + 1000).toISOString(),
    sinceId: integer('since_id', single(query, 'since_id'), 0),
    sortBy: sortBy as ApiSortKey,
    ascending: sortDir === 'up',
    types: properties.length === 0 ? undefined : [...new Set(properties.map((property) => mentionTypeOfWmProperty(property)!))],
    jsonp,
  };
}
