import { describe, expect, it } from 'vitest';
import { createManualClock } from './clock.js';
import { backoffSeconds, createFailureThrottle, MAX_THROTTLE_KEY_LENGTH, type FailureThrottle, type ThrottleAttempt } from './throttle.js';

function setup(options: { freeFailures?: number | null; maxDelaySeconds?: number; maxKeys?: number } = {}) {
  const clock = createManualClock();
  const throttle = createFailureThrottle({
    freeFailures: options.freeFailures === undefined ? 5 : options.freeFailures,
    maxDelaySeconds: options.maxDelaySeconds ?? 900,
    clock,
    ...(options.maxKeys === undefined ? {} : { maxKeys: options.maxKeys }),
  });
  return { clock, throttle };
}

/** Lets an attempt through (failing the test if it is refused). */
function allowed(throttle: FailureThrottle, keys: readonly string[]): ThrottleAttempt {
  const decision = throttle.begin(keys);
  if (!decision.allowed) throw new Error(`refused, retry after ${decision.retryAfter}`);
  return decision.attempt;
}

function retryAfter(throttle: FailureThrottle, keys: readonly string[]): number | null {
  const decision = throttle.begin(keys);
  if (decision.allowed) {
    decision.attempt.release();
    return null;
  }
  return decision.retryAfter;
}

function failTimes(throttle: FailureThrottle, keys: readonly string[], times: number): void {
  for (let i = 0; i < times; i++) allowed(throttle, keys).fail();
}

describe('backoffSeconds', () => {
  it('is 0 while free, then 1, 2, 4 … up to the cap', () => {
    expect([0, 4, 5, 6, 7, 8].map((failures) => backoffSeconds(failures, 5, 900))).toEqual([0, 0, 1, 2, 4, 8]);
    expect(backoffSeconds(15, 5, 900)).toBe(900);
    expect(backoffSeconds(5_000, 5, 900)).toBe(900);
  });
});

describe('createFailureThrottle', () => {
  it('lets the free failures through, then asks for 1 s after the last one', () => {
    const { throttle } = setup();
    failTimes(throttle, ['a'], 5);
    expect(retryAfter(throttle, ['a'])).toBe(1);
  });

  it('doubles the wait with every further failure: 1 s, 2 s, 4 s, 8 s', () => {
    const { clock, throttle } = setup();
    failTimes(throttle, ['a'], 5);
    const waits: number[] = [];
    for (let i = 0; i < 4; i++) {
      const wait = retryAfter(throttle, ['a'])!;
      waits.push(wait);
      clock.advance(wait - 0.5);
      expect(retryAfter(throttle, ['a'])).toBe(1);
      clock.advance(0.5);
      allowed(throttle, ['a']).fail();
    }
    expect(waits).toEqual([1, 2, 4, 8]);
  });

  it('never asks for more than the longest wait', () => {
    const { clock, throttle } = setup({ maxDelaySeconds: 10 });
    failTimes(throttle, ['a'], 5);
    for (let i = 0; i < 8; i++) {
      clock.advance(10);
      allowed(throttle, ['a']).fail();
    }
    expect(retryAfter(throttle, ['a'])).toBe(10);
  });

  it('refuses when any of the keys must wait, with the longest wait of them', () => {
    const { clock, throttle } = setup();
    failTimes(throttle, ['address'], 5);
    clock.advance(1);
    allowed(throttle, ['address']).fail();
    failTimes(throttle, ['alice'], 5);
    expect(retryAfter(throttle, ['address'])).toBe(2);
    expect(retryAfter(throttle, ['alice'])).toBe(1);
    expect(retryAfter(throttle, ['alice', 'address'])).toBe(2);
    expect(retryAfter(throttle, ['other', 'alice'])).toBe(1);
    expect(retryAfter(throttle, ['other', 'carol'])).toBeNull();
  });

  it('does not count refused attempts', () => {
    const { clock, throttle } = setup();
    failTimes(throttle, ['a'], 5);
    for (let i = 0; i < 50; i++) expect(retryAfter(throttle, ['a'])).toBe(1);
    clock.advance(1);
    expect(retryAfter(throttle, ['a'])).toBeNull();
  });

  it('counts attempts in flight as failures: parallel attempts get no more tries than serial ones', () => {
    const { throttle } = setup();
    const inFlight = Array.from({ length: 5 }, () => allowed(throttle, ['a']));
    expect(retryAfter(throttle, ['a'])).toBe(1);
    for (const attempt of inFlight) attempt.fail();
    expect(retryAfter(throttle, ['a'])).toBe(1);
  });

  it('past the free failures, lets one attempt at a time through', () => {
    const { clock, throttle } = setup();
    failTimes(throttle, ['a'], 5);
    clock.advance(1);
    const first = allowed(throttle, ['a']);
    expect(retryAfter(throttle, ['a'])).toBe(1);
    first.release();
    expect(retryAfter(throttle, ['a'])).toBeNull();
  });

  it('forgets the keys a success names and keeps the others', () => {
    const { clock, throttle } = setup();
    failTimes(throttle, ['address', 'alice'], 5);
    clock.advance(1);
    allowed(throttle, ['address', 'alice']).succeed(['alice']);
    failTimes(throttle, ['elsewhere', 'alice'], 5);
    expect(retryAfter(throttle, ['elsewhere2', 'alice'])).toBe(1);
    allowed(throttle, ['address', 'bob']).fail();
    expect(retryAfter(throttle, ['address', 'bob'])).toBe(2);
  });

  it('releases without counting', () => {
    const { throttle } = setup();
    for (let i = 0; i < 20; i++) allowed(throttle, ['a']).release();
    expect(throttle.size).toBe(0);
    expect(retryAfter(throttle, ['a'])).toBeNull();
  });

  it('ends an attempt once: later calls do nothing', () => {
    const { throttle } = setup({ freeFailures: 1 });
    const attempt = allowed(throttle, ['a']);
    attempt.release();
    attempt.fail();
    attempt.fail();
    expect(retryAfter(throttle, ['a'])).toBeNull();
  });

  it('forgets a key an hour after its last failure', () => {
    const { clock, throttle } = setup();
    failTimes(throttle, ['a'], 5);
    clock.advance(1);
    allowed(throttle, ['a']).fail();
    clock.advance(3599);
    expect(retryAfter(throttle, ['a'])).toBeNull();
    allowed(throttle, ['a']).fail();
    expect(retryAfter(throttle, ['a'])).toBe(4);
    clock.advance(3600);
    failTimes(throttle, ['a'], 5);
    expect(retryAfter(throttle, ['a'])).toBe(1);
  });

  it('keeps at most maxKeys keys, dropping the one whose last failure is oldest', () => {
    const { throttle } = setup({ freeFailures: 2, maxKeys: 3 });
    for (const key of ['a', 'b', 'c']) allowed(throttle, [key]).fail();
    allowed(throttle, ['a']).fail();
    expect(retryAfter(throttle, ['a'])).toBe(1);
    allowed(throttle, ['d']).fail();
    expect(throttle.size).toBe(3);
    // b was dropped: a second failure is only its first again
    allowed(throttle, ['b']).fail();
    expect(retryAfter(throttle, ['b'])).toBeNull();
    expect(retryAfter(throttle, ['a'])).toBe(1);
  });

  it('remembers nothing for attempts that did not fail, so they cannot push failures out', () => {
    const { throttle } = setup({ freeFailures: 2, maxKeys: 3 });
    failTimes(throttle, ['a'], 2);
    for (let i = 0; i < 1_000; i++) allowed(throttle, [`probe:${i}`]).release();
    for (let i = 0; i < 1_000; i++) allowed(throttle, [`fine:${i}`]).succeed();
    expect(throttle.size).toBe(1);
    expect(retryAfter(throttle, ['a'])).toBe(1);
  });

  it('stays within maxKeys under a flood of distinct keys', () => {
    const { throttle } = setup({ maxKeys: 100 });
    for (let i = 0; i < 5_000; i++) allowed(throttle, [`address:${i}`, `account:${i}`]).fail();
    expect(throttle.size).toBe(100);
  });

  it('cuts keys to MAX_THROTTLE_KEY_LENGTH characters: long keys with the same start share a count', () => {
    const { throttle } = setup({ freeFailures: 1 });
    const start = 'k'.repeat(MAX_THROTTLE_KEY_LENGTH);
    const attempt = allowed(throttle, [`${start}${'a'.repeat(100_000)}`]);
    attempt.fail();
    expect(retryAfter(throttle, [`${start}b`])).toBe(1);
    expect(retryAfter(throttle, [start.slice(1)])).toBeNull();
  });

  it('forgets a long key on success by the same cut', () => {
    const { clock, throttle } = setup({ freeFailures: 1 });
    const long = 'n'.repeat(1_000);
    allowed(throttle, [long]).fail();
    clock.advance(1);
    allowed(throttle, [long]).succeed([long]);
    expect(throttle.size).toBe(0);
  });

  it('with 1 free failure, the second attempt after a failure waits 1 s', () => {
    const { throttle } = setup({ freeFailures: 1 });
    allowed(throttle, ['a']).fail();
    expect(retryAfter(throttle, ['a'])).toBe(1);
  });

  it('needs at least one free failure', () => {
    expect(() => setup({ freeFailures: 0 })).toThrow(RangeError);
  });

  it('is off with null free failures: everything is allowed and nothing remembered', () => {
    const { throttle } = setup({ freeFailures: null });
    expect(throttle.enabled).toBe(false);
    failTimes(throttle, ['a'], 500);
    expect(retryAfter(throttle, ['a'])).toBeNull();
    expect(throttle.size).toBe(0);
  });
});
