/**
 * What the features count for the operator: a narrow interface they call at
 * the moment something happens, so none of them knows about Prometheus.
 * `operations/metrics` implements it with prom-client; {@link NO_METER}
 * stands in when metrics are off (INDIEWEB_METRICS_TOKEN unset).
 * Labels are always from small fixed sets, never client input.
 * @module
 */

/** How an outbound fetch ended: the answer's status class, or why there was none. */
export type OutboundOutcome = '2xx' | '3xx' | '4xx' | '5xx' | 'refused' | 'failed';

export interface Meter {
  /** An access token was issued by the token endpoint. */
  tokenIssued(grantType: 'authorization_code' | 'refresh_token'): void;
  /** A token (or code) was turned away: at the token endpoint, or by the bearer guard of a resource. */
  tokenRefused(where: 'token_endpoint' | 'resource', reason: string): void;
  /** A Micropub create or action succeeded. */
  micropubOperation(operation: 'create' | 'update' | 'delete' | 'undelete'): void;
  /** A file was stored (media endpoint or a Micropub multipart create). */
  mediaStored(bytes: number): void;
  /** A webmention was accepted for processing. */
  webmentionReceived(): void;
  /** A webmention's processing ended in a state. */
  webmentionProcessed(status: 'verified' | 'failed' | 'retry'): void;
  /** The server fetched something (webmention sources, client pages). */
  outboundFetch(outcome: OutboundOutcome): void;
}

const nothing = () => {};

/** Counts nothing. */
export const NO_METER: Meter = Object.freeze({
  tokenIssued: nothing,
  tokenRefused: nothing,
  micropubOperation: nothing,
  mediaStored: nothing,
  webmentionReceived: nothing,
  webmentionProcessed: nothing,
  outboundFetch: nothing,
});
