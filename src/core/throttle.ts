/**
 * Failure throttles: a count of failed attempts per key (a client address, an
 * account name) with exponential backoff. The first `freeFailures` failures of
 * a key cost nothing; after them each further attempt waits 1 s, 2 s, 4 s …
 * (at most `maxDelaySeconds`) after the key's last failure. Attempts still in
 * flight count as failures until they end, so parallel requests cannot slip
 * past the count. A key's failures are forgotten after a quiet period without
 * any (an hour, or four times the longest wait if that is longer).
 *
 * State lives in this process's memory: each instance counts on its own, and a
 * restart forgets. At most `maxKeys` keys are kept; the one whose last failure
 * is oldest is dropped first.
 * @see docs/security.md "Throttles"
 * @module
 */
import type { Clock } from './clock.js';

export interface FailureThrottleOptions {
  /** Failures per key that cost no wait (at least 1); null switches the throttle off. */
  readonly freeFailures: number | null;
  /** The longest wait, in seconds. */
  readonly maxDelaySeconds: number;
  readonly clock: Clock;
  /**
   * How many keys are remembered at most.
   * @defaultValue 10000
   */
  readonly maxKeys?: number;
}

/** One attempt let through; exactly one of its methods should be called when it ends (later calls do nothing). */
export interface ThrottleAttempt {
  /** The attempt failed: each of its keys counts one more failure. */
  fail(): void;
  /** The attempt succeeded: the keys in `forget` lose their failures, the others keep them. */
  succeed(forget?: readonly string[]): void;
  /** Neither (a malformed request, an internal error): the attempt ends without counting. */
  release(): void;
}

export type ThrottleDecision =
  | { readonly allowed: true; readonly attempt: ThrottleAttempt }
  /** `retryAfter`: whole seconds (at least 1) until an attempt may succeed the check again. */
  | { readonly allowed: false; readonly retryAfter: number };

export interface FailureThrottle {
  /** False when the throttle is off: every attempt is allowed and nothing is counted. */
  readonly enabled: boolean;
  /** Checks every key; when none of them has to wait, the attempt is let through and counted as in flight. */
  begin(keys: readonly string[]): ThrottleDecision;
  /** How many keys with failures are remembered now (for tests and diagnostics). */
  readonly size: number;
}

export const DEFAULT_THROTTLE_MAX_KEYS = 10_000;
/** Keys are cut to this many characters, so a long one (a forwarded address, a typed name) costs no more memory. */
export const MAX_THROTTLE_KEY_LENGTH = 128;
const MIN_QUIET_PERIOD_S = 3600;

interface KeyFailures {
  failures: number;
  /** Epoch milliseconds of the last failure. */
  lastFailure: number;
}

const bounded = (key: string) => key.slice(0, MAX_THROTTLE_KEY_LENGTH);

const NO_OP_ATTEMPT: ThrottleAttempt = Object.freeze({ fail() {}, succeed() {}, release() {} });
const ALWAYS_ALLOWED: ThrottleDecision = Object.freeze({ allowed: true, attempt: NO_OP_ATTEMPT });

/** Seconds to wait after `failures` failures of a key: 0 while free, then 1, 2, 4 … capped. */
export function backoffSeconds(failures: number, freeFailures: number, maxDelaySeconds: number): number {
  if (failures < freeFailures) return 0;
  return Math.min(maxDelaySeconds, 2 ** (failures - freeFailures));
}

export function createFailureThrottle(options: FailureThrottleOptions): FailureThrottle {
  const { freeFailures, maxDelaySeconds, clock } = options;
  if (freeFailures === null) return { enabled: false, begin: () => ALWAYS_ALLOWED, size: 0 };
  if (!Number.isInteger(freeFailures) || freeFailures < 1)
    throw new RangeError(`a throttle needs at least one free failure, not ${freeFailures}`);
  const free = freeFailures;
  const maxKeys = options.maxKeys ?? DEFAULT_THROTTLE_MAX_KEYS;
  const quietPeriodMs = Math.max(MIN_QUIET_PERIOD_S, 4 * maxDelaySeconds) * 1000;
  // insertion order is the order of last failures: the first key is the one to drop
  const failed = new Map<string, KeyFailures>();
  // attempts let through and not ended yet; bounded by the requests in flight
  const inFlight = new Map<string, number>();
  const nowMs = () => clock.now().getTime();

  function failuresOf(key: string, now: number): KeyFailures | undefined {
    const state = failed.get(key);
    if (state !== undefined && now - state.lastFailure >= quietPeriodMs) {
      failed.delete(key);
      return undefined;
    }
    return state;
  }

  function secondsToWait(key: string, now: number): number {
    const state = failuresOf(key, now);
    const failures = state?.failures ?? 0;
    if (state !== undefined && failures >= free) {
      const until = state.lastFailure + backoffSeconds(failures, free, maxDelaySeconds) * 1000;
      if (now < until) return Math.max(1, Math.ceil((until - now) / 1000));
    }
    // attempts in flight count as failures until they end: parallel requests get no more tries than serial ones
    const pending = inFlight.get(key) ?? 0;
    if (pending > 0 && failures + pending >= free) return 1;
    return 0;
  }

  function recordFailure(key: string, now: number): void {
    const state = failed.get(key) ?? { failures: 0, lastFailure: now };
    state.failures += 1;
    state.lastFailure = now;
    failed.delete(key);
    if (failed.size >= maxKeys) failed.delete(failed.keys().next().value!);
    failed.set(key, state);
  }

  function end(keys: readonly string[], outcome: 'fail' | 'succeed' | 'release', forget: readonly string[]): void {
    const now = nowMs();
    for (const key of keys) {
      const pending = (inFlight.get(key) ?? 1) - 1;
      if (pending > 0) inFlight.set(key, pending);
      else inFlight.delete(key);
      if (outcome === 'fail') recordFailure(key, now);
      else if (outcome === 'succeed' && forget.includes(key)) failed.delete(key);
    }
  }

  return {
    enabled: true,
    get size() {
      return failed.size;
    },
    begin(keys) {
      const unique = [...new Set(keys.map(bounded))];
      const now = nowMs();
      const wait = Math.max(0, ...unique.map((key) => secondsToWait(key, now)));
      if (wait > 0) return { allowed: false, retryAfter: wait };
      for (const key of unique) inFlight.set(key, (inFlight.get(key) ?? 0) + 1);
      let ended = false;
      const finish = (outcome: 'fail' | 'succeed' | 'release', forget: readonly string[] = []) => {
        if (ended) return;
        ended = true;
        end(unique, outcome, forget.map(bounded));
      };
      return {
        allowed: true,
        attempt: {
          fail: () => finish('fail'),
          succeed: (forget) => finish('succeed', forget),
          release: () => finish('release'),
        },
      };
    },
  };
}
