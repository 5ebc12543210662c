/**
 * The `token` parameter of the webmention.io-compatible API: one plain
 * `token=` value only. An array spelling (`token[]=`, `token[0]=`) or a
 * repeated `token` is refused with a 400, so that exactly one spelling of
 * the secret exists, the one the request log redacts (issue 28 F18).
 * @module
 */
import { forClient, InvalidRequestError } from '../../core/errors.js';

/** What a client is told when the token is not one plain `token=` value. */
export const TOKEN_SPELLING = 'token must be given once, as a plain token= parameter (not token[] or repeated)';

/** The token of a parsed query string; undefined when none (or an empty one) is given. */
export function tokenParam(query: unknown): string | undefined {
  if (typeof query !== 'object' || query === null) return undefined;
  let token: string | undefined;
  for (const [key, value] of Object.entries(query as Record<string, unknown>)) {
    if (key !== 'token' && !key.startsWith('token[')) continue;
    if (key !== 'token' || typeof value !== 'string') throw new InvalidRequestError(forClient(TOKEN_SPELLING));
    token = value;
  }
  return token === '' ? undefined : token;
}
