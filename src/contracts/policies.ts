/**
 * Callables a host may plug in (as functions in plugin mode, as
 * `./module.js#export` specifiers in standalone mode).
 * @module
 */

/** Decides whether a client_id may be used. Anything but `true` rejects. */
export type ClientIdValidator = (clientId: string) => boolean | Promise<boolean>;

/** Where a submitted URL is about to be forwarded to the handler. */
export type UrlPolicyKind = 'entry' | 'media';

/** Decides whether a submitted URL may be forwarded to the handler. Anything but `true` rejects. */
export type UrlPolicy = (url: string, kind: UrlPolicyKind, request: unknown) => boolean | Promise<boolean>;
