import type { UrlPolicy, UrlPolicyKind } from '../contracts/policies.js';
import type { LoadedCallable } from '../config/load-callable.js';
import { forClient, HandlerFailureError, InvalidRequestError } from '../core/errors.js';

export type UrlPolicyCheck = (url: string, kind: UrlPolicyKind, request: unknown) => Promise<void>;

/**
 * The optional URL policy, run before a submitted URL reaches the handler.
 * Only `true` permits (anything else 400); a throw, an import failure or a
 * non-callable is a 500. Unset changes nothing.
 * @see SPEC.md "Micropub endpoint" (Optional URL policy)
 */
export function createUrlPolicyCheck(policy: LoadedCallable<UrlPolicy> | null): UrlPolicyCheck {
  return async (url, kind, request) => {
    if (policy === null) return;
    if (!policy.ok) throw new HandlerFailureError('url policy unavailable', { cause: policy.error });
    let verdict: unknown;
    try {
      verdict = await policy.fn(url, kind, request);
    } catch (error) {
      throw new HandlerFailureError('url policy failed', { cause: error });
    }
    if (verdict !== true) throw new InvalidRequestError(forClient(`url refused by policy (${kind})`));
  };
}
