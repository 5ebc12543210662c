/**
 * A counting semaphore: at most `max` tasks run at once, the rest wait their
 * turn in arrival order.
 * @module
 */

export interface Semaphore {
  /** Runs `task` once a slot is free; the slot is given back however the task ends. */
  run<T>(task: () => Promise<T>): Promise<T>;
  /** Tasks running now. */
  readonly running: number;
  /** Tasks waiting for a slot. */
  readonly waiting: number;
}

export function createSemaphore(max: number): Semaphore {
  if (!Number.isInteger(max) || max < 1) throw new RangeError(`a semaphore needs at least one slot, not ${max}`);
  let running = 0;
  const queue: Array<() => void> = [];

  function acquire(): Promise<void> {
    if (running < max) {
      running += 1;
      return Promise.resolve();
    }
    // the slot passes straight from the task that ends to the next in line
    return new Promise((resolve) => queue.push(resolve));
  }

  function release(): void {
    const next = queue.shift();
    if (next === undefined) running -= 1;
    else next();
  }

  return {
    async run(task) {
      await acquire();
      try {
        return await task();
      } finally {
        release();
      }
    },
    get running() {
      return running;
    },
    get waiting() {
      return queue.length;
    },
  };
}
