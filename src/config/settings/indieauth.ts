/**
 * Rows of the settings table: lifetimes of codes and tokens, the
 * introspection secret, the sign-in and token throttles, password hashing.
 * @module
 */
import {
  DEFAULT_AUTH_CODE_LIFETIME_S,
  DEFAULT_MAX_CONCURRENT_HASHES,
  DEFAULT_SIGNIN_FREE_ATTEMPTS,
  DEFAULT_THROTTLE_MAX_DELAY_S,
  DEFAULT_TOKEN_LIFETIME_S,
  MAX_LIFETIME_S,
} from '../config.js';
import { integer, integerOrNone, secret } from '../parsers.js';
import { defineSetting, type Setting } from '../setting.js';

export const TOKEN_SETTINGS: readonly Setting[] = [
  defineSetting({
    name: 'INDIEWEB_AUTH_CODE_EXPIRES_IN',
    key: 'authCodeExpiresIn',
    parser: integer({ min: 1, max: MAX_LIFETIME_S }),
    default: DEFAULT_AUTH_CODE_LIFETIME_S,
    description: 'Authorization code lifetime in seconds.',
  }),
  defineSetting({
    name: 'INDIEWEB_TOKEN_EXPIRES_IN',
    key: 'tokenExpiresIn',
    parser: integer({ min: 1, max: MAX_LIFETIME_S }),
    default: DEFAULT_TOKEN_LIFETIME_S,
    description: 'Access token lifetime in seconds.',
  }),
  defineSetting({
    name: 'INDIEWEB_REFRESH_TOKEN_EXPIRES_IN',
    key: 'refreshTokenExpiresIn',
    parser: integer({ min: 1, max: MAX_LIFETIME_S }),
    default: 30 * 24 * 3600,
    description: 'Lifetime in seconds of an unused refresh token (30 days); each use rotates it.',
  }),
  defineSetting({
    name: 'INDIEWEB_INTROSPECTION_SECRET',
    key: 'introspectionSecret',
    parser: secret(32),
    default: null,
    shownDefault: '(unset)',
    description:
      'Bearer secret (at least 32 characters) a resource server presents to the introspection endpoint; without it only a token of the same owner may introspect.',
  }),
];

export const THROTTLE_SETTINGS: readonly Setting[] = [
  defineSetting({
    name: 'INDIEWEB_SIGNIN_FREE_ATTEMPTS',
    key: 'signInThrottle.freeFailures',
    parser: integerOrNone({ min: 1, max: 1000 }),
    default: DEFAULT_SIGNIN_FREE_ATTEMPTS,
    description:
      "Failed sign-ins (and wrong current passwords on the account page) per client address and per account name that cost no wait; after them each attempt waits 1 s, 2 s, 4 s … and is answered 429 with Retry-After until then; `none` switches this throttle off. Counted in each instance's memory.",
  }),
  defineSetting({
    name: 'INDIEWEB_SIGNIN_MAX_DELAY',
    key: ['signInThrottle.maxDelay', 'tokenThrottle.maxDelay'],
    parser: integer({ min: 1, max: 86_400 }),
    default: DEFAULT_THROTTLE_MAX_DELAY_S,
    description: 'Longest wait in seconds the sign-in throttle (and the token endpoint throttle) imposes.',
  }),
  defineSetting({
    name: 'INDIEWEB_TOKEN_FREE_FAILURES',
    key: 'tokenThrottle.freeFailures',
    parser: integerOrNone({ min: 1, max: 1000 }),
    // SPEC.md: no rate limiting; conformance suites send many failing requests from one address
    default: null,
    description:
      'Failed code and refresh-token redemptions per client address that cost no wait; after them the token endpoint answers 429 with Retry-After as sign-in does. `none` (default) keeps SPEC.md\'s "no rate limiting".',
  }),
  defineSetting({
    name: 'INDIEWEB_MAX_CONCURRENT_HASHES',
    key: 'maxConcurrentHashes',
    // libuv's pool holds at most 1024 threads
    parser: integer({ min: 1, max: 1024 }),
    default: DEFAULT_MAX_CONCURRENT_HASHES,
    description:
      "Password hashes (scrypt) computed at once; further sign-ins wait their turn, so file reads and DNS keep threads of libuv's pool (UV_THREADPOOL_SIZE, default 4).",
  }),
];
