/**
 * The client factory, keyed by service: the feature asks it for one target's
 * client and never knows which service it talks to. Bluesky's client
 * (`bluesky/client.ts`, `createBlueskyClient`) is loaded when it is part of
 * the build; until then a Bluesky target answers "not available in this build".
 * @module
 */
import { SyndicationError, type SyndicationClient } from './client.js';
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

export class ServiceUnavailableError extends SyndicationError {
  constructor(service: string) {
    super(`${service}: not available in this build`, { transient: false });
  }
}

type BlueskyFactory = (target: { pdsUrl: string; handle: string; appPassword: string }, options?: unknown) => SyndicationClient;

let bluesky: Promise<BlueskyFactory | null> | null = null;

/** The Bluesky client's factory when it is part of this build, else null. */
export function loadBluesky(): Promise<BlueskyFactory | null> {
  // a name TypeScript does not resolve: the module lands in its own change (src/syndication/bluesky/)
  const specifier = './bluesky/client.js';
  bluesky ??= import(specifier).then(
    (module: { createBlueskyClient?: BlueskyFactory }) =>
      typeof module.createBlueskyClient === 'function' ? module.createBlueskyClient : null,
    () => null,
  );
  return bluesky;
}

export async function clientFor(target: OpenTarget, options: ClientOptions = {}): Promise<SyndicationClient> {
  if (target.service === 'mastodon') return createMastodonClient({ instanceUrl: target.url, accessToken: target.secret }, options);
  const create = await loadBluesky();
  if (create === null || target.handle === null) throw new ServiceUnavailableError('bluesky');
  return create({ pdsUrl: target.url, handle: target.handle, appPassword: target.secret }, options);
}
