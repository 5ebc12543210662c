/**
 * Rows of the settings table: the server's own fetches (webmention
 * sources), which hosts may receive webmentions and how many, and the lease
 * of the background jobs that verify them.
 * @module
 */
import {
  DEFAULT_OUTBOUND_TIMEOUT_S,
  DEFAULT_PARSE_TIMEOUT_S,
  DEFAULT_WEBMENTION_LIMITS,
  WEBMENTION_MODERATIONS,
  WEBMENTION_SEND_MODES,
} from '../config.js';
import { boolean, integer, integerOrNone, limit, list, oneOf } from '../parsers.js';
import { defineSetting, type Setting } from '../setting.js';

export const OUTBOUND_SETTINGS: readonly Setting[] = [
  defineSetting({
    name: 'INDIEWEB_ALLOW_PRIVATE_NETWORKS',
    key: 'allowPrivateNetworks',
    parser: boolean(),
    default: false,
    description: 'Allow outbound fetches to private, loopback and link-local addresses (tests on one machine).',
  }),
  defineSetting({
    name: 'INDIEWEB_OUTBOUND_TIMEOUT',
    key: 'outboundTimeout',
    parser: integer({ min: 1, max: 600 }),
    default: DEFAULT_OUTBOUND_TIMEOUT_S,
    description:
      "Seconds the server's fetch of a webmention source may take in all (connecting, redirects, headers and body); a slower source fails that attempt and its job is retried later.",
  }),
  defineSetting({
    name: 'INDIEWEB_PARSE_TIMEOUT',
    key: 'parseTimeout',
    parser: integer({ min: 1, max: 60 }),
    default: DEFAULT_PARSE_TIMEOUT_S,
    description:
      'Seconds the parse of one fetched page (a webmention source, a client page, a cited page, a target searched for its endpoint) may take in the parse pool, off the event loop; a page over it fails with a clear reason and is not retried. Raise it on a slow or busy machine if legitimate large pages fail.',
  }),
];

export const WEBMENTION_SETTINGS: readonly Setting[] = [
  defineSetting({
    name: 'INDIEWEB_WEBMENTION_TARGET_HOSTS',
    key: 'webmentionTargetHosts',
    parser: list({ lowercase: true, check: (host) => (/^[a-z0-9.-]+$/.test(host) ? null : `"${host}" is not a host name`) }),
    default: [],
    description: "Extra host names that may receive webmentions, besides the base URL host and the hosts of the accounts' profile URLs.",
  }),
  defineSetting({
    name: 'INDIEWEB_WEBMENTION_MAX_PENDING_PER_HOST',
    key: 'webmentionLimits.maxPendingPerHost',
    parser: limit({ min: 1 }),
    default: DEFAULT_WEBMENTION_LIMITS.maxPendingPerHost,
    description:
      'Webmentions of one target host (`www.` ignored) that may wait to be checked, retries of a failed first check included; more are refused with 429 and `Retry-After` (nothing stored), or `none`.',
  }),
  defineSetting({
    name: 'INDIEWEB_WEBMENTION_RATE_LIMIT',
    key: 'webmentionLimits.perClientPerMinute',
    parser: limit({ min: 1 }),
    default: DEFAULT_WEBMENTION_LIMITS.perClientPerMinute,
    description:
      'Webmention submissions per minute from one client address (IPv6: one /64), counted per instance; more get 429 and `Retry-After`. Off (`none`) by default, as SPEC.md has no rate limiting.',
  }),
  defineSetting({
    name: 'INDIEWEB_WEBMENTION_SOURCE_RATE_LIMIT',
    key: 'webmentionLimits.perSourceHostPerMinute',
    parser: limit({ min: 1 }),
    default: DEFAULT_WEBMENTION_LIMITS.perSourceHostPerMinute,
    description:
      'Webmention submissions per minute naming one source host, counted per instance; more get 429 and `Retry-After`. Off (`none`) by default.',
  }),
  defineSetting({
    name: 'INDIEWEB_WEBMENTION_MODERATION',
    key: 'webmentionModeration',
    parser: oneOf(WEBMENTION_MODERATIONS),
    default: 'none',
    description:
      'New mentions: `none` (public once verified), `first-from-domain` (the first mention from a source domain waits for approval, later ones from an approved domain do not) or `all` (every new mention waits). Allowed sources never wait; blocked ones are spam.',
  }),
  defineSetting({
    name: 'INDIEWEB_WEBMENTION_SEND_ON_PUBLISH',
    key: 'webmentionSendOnPublish',
    parser: oneOf(WEBMENTION_SEND_MODES),
    default: 'auto',
    description:
      'Webmentions to the pages an entry links to when it is created, updated or deleted through Micropub: `on` (at once), `deploy` (when the site is live: `POST /indieweb/webmention/deploy` or INDIEWEB_WEBMENTION_SEND_DELAY), `off`; `auto` is `on` for the `database` handler, `deploy` for `files`, `off` for the in-memory handler and a handler of your own.',
  }),
  defineSetting({
    name: 'INDIEWEB_WEBMENTION_SEND_DELAY',
    key: 'webmentionSendDelay',
    parser: integerOrNone({ min: 0, max: 604_800 }),
    default: null,
    description:
      'Seconds after publishing when webmentions waiting for the deploy signal are sent anyway (a site that builds on a schedule); `none` waits for the signal.',
  }),
  defineSetting({
    name: 'INDIEWEB_JOB_LEASE_SECONDS',
    key: 'jobLeaseSeconds',
    parser: integer({ min: 1, max: 86_400 }),
    default: 60,
    description: 'How long a background job (webmention verification) stays claimed before another worker may take it over after a crash.',
  }),
  defineSetting({
    name: 'INDIEWEB_SYNDICATION_POLL_SECONDS',
    key: 'syndicationPollSeconds',
    parser: integer({ min: 2, max: 86_400 }),
    default: 300,
    description:
      'Backfeed: how often each syndication target (Mastodon, Bluesky) is polled for replies, likes and reposts of the copies, which come home as webmentions; a target that answers 429 waits as long as it says.',
  }),
];
