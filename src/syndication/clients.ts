/**
 * The client factory, keyed by service: the feature asks it for one target's
 * client and never knows which service it talks to: Mastodon
 * (`mastodon/client.ts`) or Bluesky (`bluesky/client.ts`).
 * @module
 */
import { SyndicationError, type SyndicationClient } from './client.js';
import { createBlueskyClient } from './bluesky/client.js';
import { createMastodonClient } from './mastodon/client.js';

export const SERVICES = ['mastodon', 'bluesky'] as const;
export type ServiceName = (typeof SERVICES)[number];

export function isService(value: string): value is ServiceName {
  return (SERVICES as readonly string[]).includes(value);
}

/** What Micropub's `q=syndicate-to` names a service. */
export const SERVICE_NAMES: Readonly<Record<ServiceName, string>> = { mastodon: 'Mastodon', bluesky: 'Bluesky' };

/** One target with its credentials opened. */
export interface OpenTarget {
  readonly service: ServiceName;
  /** The Mastodon instance or the Bluesky PDS. */
  readonly url: string;
  readonly handle: string | null;
  /** The access token (Mastodon) or the app password (Bluesky). */
  readonly secret: string;
}

export interface ClientOptions {
  readonly timeoutMs?: number;
  readonly fetch?: typeof fetch;
}

export async function clientFor(target: OpenTarget, options: ClientOptions = {}): Promise<SyndicationClient> {
  if (target.service === 'mastodon') return createMastodonClient({ instanceUrl: target.url, accessToken: target.secret }, options);
  if (target.handle === null) throw new SyndicationError('bluesky: the target has no handle', { transient: false });
  return createBlueskyClient({
    pdsUrl: target.url,
    handle: target.handle,
    appPassword: target.secret,
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  });
}
