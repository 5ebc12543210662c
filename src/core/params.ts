import { InvalidRequestError } from './errors.js';

/**
 * One parameter of a parsed query or form body: undefined when absent, the
 * string otherwise. A repeated parameter is ambiguous and refused.
 */
export function readParam(source: unknown, name: string): string | undefined {
  if (typeof source !== 'object' || source === null) return undefined;
  const value = (source as Record<string, unknown>)[name];
  if (value === undefined) return undefined;
  if (typeof value === 'string') return value;
  throw new InvalidRequestError(`parameter ${name} must be given once, as text`);
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
