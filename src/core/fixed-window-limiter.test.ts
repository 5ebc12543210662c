import { describe, expect, it } from 'vitest';
import { createManualClock } from './clock.js';
import { createFixedWindowLimiter } from './fixed-window-limiter.js';

describe('createFixedWindowLimiter', () => {
  it('allows `limit` takes per key in a window, then refuses with the seconds left in it', () => {
    const clock = createManualClock();
    const limiter = createFixedWindowLimiter({ limit: 3, windowSeconds: 60, clock });
    expect([1, 2, 3].map(() => limiter.take('a').allowed)).toEqual([true, true, true]);
    expect(limiter.take('a')).toEqual({ allowed: false, retryAfterSeconds: 60 });
    clock.advance(45);
    expect(limiter.take('a')).toEqual({ allowed: false, retryAfterSeconds: 15 });
    clock.advance(14.5);
    expect(limiter.take('a')).toEqual({ allowed: false, retryAfterSeconds: 1 });
  });

  it('counts each key apart', () => {
    const limiter = createFixedWindowLimiter({ limit: 1, windowSeconds: 60, clock: createManualClock() });
    expect(limiter.take('a').allowed).toBe(true);
    expect(limiter.take('a').allowed).toBe(false);
    expect(limiter.take('b').allowed).toBe(true);
  });

  it('starts a fresh window once the old one has passed, and forgets expired keys', () => {
    const clock = createManualClock();
    const limiter = createFixedWindowLimiter({ limit: 2, windowSeconds: 60, clock });
    limiter.take('a');
    limiter.take('a');
    limiter.take('b');
    expect(limiter.take('a').allowed).toBe(false);
    clock.advance(60);
    expect(limiter.take('a').allowed).toBe(true);
    // b's window ended too and was dropped on the way
    expect(limiter.size).toBe(1);
  });

  it('remembers at most maxKeys keys, dropping the oldest window first', () => {
    const clock = createManualClock();
    const limiter = createFixedWindowLimiter({ limit: 1, windowSeconds: 60, clock, maxKeys: 100 });
    limiter.take('first');
    expect(limiter.take('first').allowed).toBe(false);
    for (let i = 0; i < 10_000; i++) {
      clock.advance(0.001);
      limiter.take(`flood-${i}`);
    }
    expect(limiter.size).toBe(100);
    // the oldest key was forgotten: its count starts again
    expect(limiter.take('first').allowed).toBe(true);
    // the newest are still counted
    expect(limiter.take('flood-9999').allowed).toBe(false);
  });
});
