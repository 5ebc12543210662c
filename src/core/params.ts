import { forClient, InvalidRequestError } from './errors.js';

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
  if (typeof value !== 'string') throw new InvalidRequestError(forClient(`parameter ${name} must be given once, as text`));
  if (value.length > maxLength) throw new InvalidRequestError(forClient(`parameter ${name} is longer than ${maxLength} characters`));
  return value;
}

/** The decoded name of one `name=value` segment of a query; null when it cannot be decoded. */
function segmentName(segment: string): string | null {
  const eq = segment.indexOf('=');
  try {
    return decodeURIComponent((eq === -1 ? segment : segment.slice(0, eq)).replaceAll('+', ' '));
  } catch {
    return null;
  }
}

/**
 * Merges parameters into a URL's query with exactly one `?`: the URL's own
 * parameters stay verbatim, except those of the same names, which the new
 * values replace (a client reading `code` finds only ours).
 */
export function appendQuery(url: string, params: Readonly<Record<string, string>>): string {
  const hash = url.indexOf('#');
  const base = hash === -1 ? url : url.slice(0, hash);
  const added = new URLSearchParams(params).toString();
  const question = base.indexOf('?');
  if (question === -1) return added === '' ? base : `${base}?${added}`;
  const kept = base
    .slice(question + 1)
    .split('&')
    .filter((segment) => segment !== '' && !Object.hasOwn(params, segmentName(segment) ?? ''));
  return `${base.slice(0, question)}?${[...kept, ...(added === '' ? [] : [added])].join('&')}`;
}
