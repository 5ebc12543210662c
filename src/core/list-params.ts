/**
 * List parameters shared by every list query: `filter`, `limit`, `offset`.
 * @see SPEC.md "Micropub endpoint" (List parameters)
 * @module
 */
import type { PageRequest } from '../contracts/micropub-types.js';
import { forClient, InvalidRequestError } from './errors.js';
import { readParam } from './params.js';
import { stableStringify } from './stable-json.js';

function nonNegativeInteger(name: string, raw: string | undefined): number | null {
  if (raw === undefined) return null;
  // spec: non-integer, negative and float values are malformed
  if (!/^\d{1,15}$/.test(raw)) throw new InvalidRequestError(forClient(`${name} must be a non-negative integer`));
  return Number(raw);
}

/** Parses limit/offset/filter; `limit` null when absent, `offset` 0 when absent. */
export function parseListParams(query: unknown): PageRequest {
  return {
    limit: nonNegativeInteger('limit', readParam(query, 'limit')),
    offset: nonNegativeInteger('offset', readParam(query, 'offset')) ?? 0,
    filter: readParam(query, 'filter') ?? null,
  };
}

/** True when the filter (case-insensitive substring) matches a string item or the stable JSON of an object item. */
export function matchesFilter(item: unknown, filter: string | null): boolean {
  if (filter === null) return true;
  const text = typeof item === 'string' ? item : stableStringify(item);
  return text.toLowerCase().includes(filter.toLowerCase());
}

/** Filter, then offset, then limit. */
export function applyListParams<T>(items: readonly T[], page: PageRequest): T[] {
  const filtered = items.filter((item) => matchesFilter(item, page.filter));
  const rest = filtered.slice(page.offset);
  return page.limit === null ? rest : rest.slice(0, page.limit);
}
