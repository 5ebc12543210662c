/**
 * The highest slug number this process has handed out per slug series,
 * while its insert may still be on its way to the database. Concurrent
 * creates of one slug (`hello`, `hello`…) used to read the same `max()`
 * from the database before any of them had inserted, so all but one hit the
 * unique index and retried — with 32 at once, until some gave up (issue 31:
 * 500s and ~280 creates/s). Taking the next number here, synchronously after
 * the `max()` is read, gives each its own. Other instances still race on
 * the unique index, which stays the arbiter (the handler retries).
 *
 * Bounded by series and by the bytes of their keys ({@link createBoundedCache}):
 * the least recently used series is forgotten first (forgetting only costs a
 * retry if a create of that series is in flight at that moment).
 * @module
 */
import { createBoundedCache } from '../../../core/bounded-cache.js';

export interface SlugNumberOptions {
  /** @defaultValue 1,024 series */
  readonly maxSeries?: number;
  /** Sum of the series' lengths (UTF-16 code units, about bytes for URL paths). @defaultValue 256 KiB */
  readonly maxKeyBytes?: number;
}

export interface SlugNumbers {
  /** The number to try next: above what the database said (`stored`), above what this process gave out, and above `atLeast`. */
  take(series: string, stored: number, atLeast?: number): number;
  /**
   * The number after the last one this process gave out in the series, when
   * it remembers one (taken at once, like {@link take}): the first try of a
   * create then needs no `max()` read. Another instance may hold that number
   * already; the unique index refuses it and the create reads the database.
   */
  takeKnown(series: string): number | undefined;
  /** Series remembered now (for tests and docs/performance.md). */
  readonly size: number;
}

export function createSlugNumbers(options: SlugNumberOptions = {}): SlugNumbers {
  const given = createBoundedCache<string, number>({
    maxEntries: options.maxSeries ?? 1_024,
    maxWeight: options.maxKeyBytes ?? 256 * 1024,
    weigh: (series) => series.length,
  });
  return {
    take(series, stored, atLeast = 0) {
      const number = Math.max(stored + 1, (given.get(series) ?? 0) + 1, atLeast);
      given.set(series, number);
      return number;
    },
    takeKnown(series) {
      const previous = given.get(series);
      if (previous === undefined) return undefined;
      given.set(series, previous + 1);
      return previous + 1;
    },
    get size() {
      return given.size;
    },
  };
}
