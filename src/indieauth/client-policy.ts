/**
 * Which clients may be used: the configured validator callable and the
 * allow-list. Both fail closed; structural URL rules live in core/url.ts.
 * @see SPEC.md "Authentication" 3 and 4
 * @module
 */
import type { ClientIdValidator } from '../contracts/policies.js';
import type { LoadedCallable } from '../config/load-callable.js';

export interface ClientPolicy {
  /** True only when every configured check accepts the client_id. Never throws. */
  isAllowed(clientId: string): Promise<boolean>;
}

export interface ClientPolicyOptions {
  /** Exact client_id URLs; null means no list. */
  readonly allowedClientIds: readonly string[] | null;
  /** The validator, or why it could not be loaded; null when none is configured. */
  readonly validator: LoadedCallable<ClientIdValidator> | null;
  readonly onValidatorError?: (error: unknown) => void;
}

export function createClientPolicy(options: ClientPolicyOptions): ClientPolicy {
  const allowed = options.allowedClientIds === null ? null : new Set(options.allowedClientIds);
  const { validator } = options;
  return {
    async isAllowed(clientId: string): Promise<boolean> {
      if (allowed !== null && !allowed.has(clientId)) return false;
      if (validator === null) return true;
      if (!validator.ok) return false;
      try {
        // spec: only a true return permits
        return (await validator.fn(clientId)) === true;
      } catch (error) {
        options.onValidatorError?.(error);
        return false;
      }
    },
  };
}
