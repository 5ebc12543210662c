/**
 * What a password attempt (the sign-in form, the account page's password
 * change) is counted against, and what a throttled one is told.
 * @see docs/security.md "Throttles"
 * @module
 */
import type { FastifyReply } from 'fastify';
import { clientAddressKey } from '../outbound/address-guard.js';
import type { SafeHtml } from '../web/html.js';
import { errorAlert } from '../web/ui/messages.js';

/**
 * The throttle key of an account name. It is built from the name as typed,
 * never from a lookup, so an unknown name is throttled exactly like a real
 * one and the answer does not tell whether the account exists.
 */
export function accountKey(name: string): string {
  // no account name is longer than 64 characters: a longer one needs no more of it to be told apart
  return `account:${name.slice(0, 65).toLowerCase()}`;
}

/** The keys of one password attempt: the client's address (IPv6 by its /64) and the account name. */
export function passwordAttemptKeys(address: string, name: string): { readonly account: string; readonly all: readonly string[] } {
  const account = accountKey(name);
  return { account, all: [`address:${clientAddressKey(address)}`, account] };
}

/** "5 seconds", "1 second", "15 minutes". */
export function describeWait(seconds: number): string {
  if (seconds < 120) return `${seconds} ${seconds === 1 ? 'second' : 'seconds'}`;
  return `${Math.ceil(seconds / 60)} minutes`;
}

/** Sets `Retry-After` and returns the alert shown on the form again. */
export function throttledAnswer(reply: FastifyReply, retryAfter: number): SafeHtml {
  reply.header('retry-after', String(retryAfter));
  return errorAlert(`Too many failed attempts. Wait ${describeWait(retryAfter)}, then try again.`);
}
