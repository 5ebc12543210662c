import { InvalidRequestError } from './errors.js';

/** Longest protocol parameter accepted (URLs, state, codes); longer ones are refused, not stored. */
export const MAX_PARAM_LENGTH = 4096;

/**
 * One parameter of a parsed query or form body: undefined when absent, the
 * string otherwise. A repeated or oversized parameter is refused.
 */
export function readParam(source: unknown, name: string, maxLength = MAX_PARAM_LENGTH): string | undefined {
  if (typeof source !== 'object' || source === null) return undefined;
  const value = (source as Record<string, unknown>)[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new InvalidRequestError(`parameter ${name} must be given once, as text`);
  if (value.length > maxLength) throw new InvalidRequestError(`parameter ${name} is longer than ${maxLength} characters`);
  return value;
}

/** Appends parameters to a URL's query with exactly one `?`, keeping what is there verbatim. */
export function appendQuery(url: string, params: Readonly<Record<string, string>>): string {
  const hash = url.indexOf('#');
  const base = hash === -1 ? url : url.slice(0, hash);
  const added = new URLSearchParams(params).toString();
  if (added === '') return base;
  if (!base.includes('?')) return `${base}?${added}`;
  return base.endsWith('?') || base.endsWith('&') ? `${base}${added}` : `${base}&${added}`;
}
