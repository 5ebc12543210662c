/**
 * Where a user's entries live: the one rule Micropub (which absolute URLs an
 * action may name) and webmention ownership (whose entry a target may be)
 * share.
 * @module
 */
import type { HostUser } from '../contracts/accounts.js';
import type { MicropubHandler } from '../contracts/micropub-handler.js';

/**
 * The hosts (`host[:port]`, lowercased) where `user`'s entries can live: the
 * base URL's, and those the handler names for the user (a static site's).
 */
export function entryHostsOf(baseUrl: string, handler: Pick<MicropubHandler, 'entryHosts'>, user: HostUser): string[] {
  return [new URL(baseUrl).host.toLowerCase(), ...(handler.entryHosts?.(user) ?? []).map((host) => host.toLowerCase())];
}
