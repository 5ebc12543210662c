/**
 * Fixed-window counters kept in this process's memory: at most `limit`
 * takes per key in each window of `windowSeconds`. The table is bounded:
 * past `maxKeys` the oldest window is forgotten, so a flood of distinct keys
 * costs a fixed amount of memory (and only frees the forgotten keys'
 * counts, never blocks anyone).
 * @module
 */
import type { Clock } from './clock.js';

export type LimiterDecision = { readonly allowed: true } | { readonly allowed: false; readonly retryAfterSeconds: number };

export interface FixedWindowLimiter {
  /** Counts one use of `key`; refused (with the seconds until its window ends) once the window's limit is reached. */
  take(key: string): LimiterDecision;
  /** Keys currently remembered. */
  readonly size: number;
}

/** Keys remembered per limiter unless told otherwise. */
export const DEFAULT_LIMITER_KEYS = 10_000;

export function createFixedWindowLimiter(options: {
  limit: number;
  windowSeconds: number;
  clock: Clock;
  maxKeys?: number;
}): FixedWindowLimiter {
  const { limit, clock } = options;
  const windowMs = options.windowSeconds * 1000;
  const maxKeys = Math.max(1, options.maxKeys ?? DEFAULT_LIMITER_KEYS);
  // insertion order is window-start order: a key is re-inserted when its window starts again
  const windows = new Map<string, { start: number; count: number }>();

  function forgetExpired(now: number): void {
    for (const [key, window] of windows) {
      if (now - window.start < windowMs) break;
      windows.delete(key);
    }
  }

  return {
    take(key: string): LimiterDecision {
      const now = clock.now().getTime();
      forgetExpired(now);
      let window = windows.get(key);
      if (window === undefined) {
        window = { start: now, count: 0 };
        windows.set(key, window);
        if (windows.size > maxKeys) windows.delete(windows.keys().next().value!);
      }
      if (window.count >= limit)
        return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((window.start + windowMs - now) / 1000)) };
      window.count += 1;
      return { allowed: true };
    },
    get size() {
      return windows.size;
    },
  };
}
