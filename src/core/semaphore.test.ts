import { describe, expect, it } from 'vitest';
import { createSemaphore } from './semaphore.js';

/** A task that runs until `finish()` is called. */
function gate() {
  let finish!: () => void;
  let fail!: (error: Error) => void;
  const done = new Promise<void>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  return { task: () => done, finish: () => finish(), fail: (error: Error) => fail(error) };
}

describe('createSemaphore', () => {
  it('runs at most max tasks at once; the others wait', async () => {
    const slots = createSemaphore(2);
    const gates = Array.from({ length: 5 }, gate);
    const started: number[] = [];
    const runs = gates.map((g, index) =>
      slots.run(async () => {
        started.push(index);
        await g.task();
        return index;
      }),
    );
    await Promise.resolve();
    expect(slots.running).toBe(2);
    expect(slots.waiting).toBe(3);
    expect(started).toEqual([0, 1]);
    gates[1]!.finish();
    await runs[1];
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual([0, 1, 2]);
    expect(slots.running).toBe(2);
    for (const g of gates) g.finish();
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3, 4]);
    expect(started).toEqual([0, 1, 2, 3, 4]);
    expect(slots.running).toBe(0);
    expect(slots.waiting).toBe(0);
  });

  it('gives the slot back when a task fails', async () => {
    const slots = createSemaphore(1);
    const failing = gate();
    const first = slots.run(failing.task);
    const second = slots.run(async () => 'second');
    failing.fail(new Error('boom'));
    await expect(first).rejects.toThrow('boom');
    await expect(second).resolves.toBe('second');
    expect(slots.running).toBe(0);
  });

  it('needs at least one slot', () => {
    expect(() => createSemaphore(0)).toThrow(RangeError);
    expect(() => createSemaphore(1.5)).toThrow(RangeError);
  });
});
