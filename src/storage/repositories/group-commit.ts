/**
 * Group commit (issue 31): writes asked for during one turn of the event
 * loop — and, while more keep coming, the next few turns — are written
 * together by one call of `write`, in the loop's check phase, so a burst of
 * requests pays one commit (SQLite: ~100 µs of fixed cost on the bench
 * machine; PostgreSQL: a round trip and a WAL flush) instead of one each.
 * Each caller's promise settles only once its batch has been written, so an
 * answer still means a committed row. One batch is written at a time: what
 * arrives meanwhile waits for it and goes in the next one, so on PostgreSQL
 * (where the write is asynchronous) batches grow with the load instead of
 * their number.
 *
 * Used by the entry inserts (`entry-inserts.ts`) and the entry updates
 * (`entry-updates.ts`).
 * @module
 */

/** Most writes in one batch; more wait for the next. */
const MAX_BATCH = 256;

/**
 * Turns of the event loop a batch waits for more writes while each turn
 * brings some. Under a steady load the requests otherwise settle into two
 * waves that commit in turn (one is being answered while the other is
 * written), each paying a commit: waiting a turn lets the other wave join,
 * ~31 instead of ~15 creates a commit under 32 connections and ~10 % less
 * CPU a create on SQLite (docs/performance.md, seventh pass). A turn that
 * brings none ends the wait: a write alone in its turn is written in that
 * turn.
 */
const MORE_TURNS = 4;

/**
 * A function that queues one item and resolves to what `write` answered for
 * it; `write` gets the items of a batch in the order they were asked for and
 * answers one result each, in that order. When `write` throws, every item of
 * the batch is rejected with that error (as each would have failed alone).
 */
export function createGroupCommit<Item, Result>(
  write: (batch: readonly Item[]) => Promise<readonly Result[]>,
): (item: Item) => Promise<Result> {
  const queue: { readonly item: Item; readonly resolve: (result: Result) => void; readonly reject: (error: unknown) => void }[] = [];
  let scheduled = false;
  let writing = false;

  /**
   * In the loop's check phase, after every request of this turn has asked, and then only once a turn
   * brought no more (at most {@link MORE_TURNS} turns later); never while a batch is being written.
   */
  function schedule(): void {
    if (scheduled || writing || queue.length === 0) return;
    scheduled = true;
    let asked = queue.length;
    let turns = 0;
    const whenQuiet = (): void => {
      if (queue.length > asked && turns < MORE_TURNS && queue.length < MAX_BATCH) {
        asked = queue.length;
        turns++;
        setImmediate(whenQuiet);
      } else void flush();
    };
    setImmediate(whenQuiet);
  }

  async function flush(): Promise<void> {
    scheduled = false;
    writing = true;
    const batch = queue.splice(0, MAX_BATCH);
    let results: readonly Result[] | undefined;
    let failure: unknown;
    try {
      results = await write(batch.map((queued) => queued.item));
    } catch (error) {
      failure = error;
    }
    writing = false;
    // what arrived while this batch was written goes next, together
    schedule();
    batch.forEach((queued, index) => {
      if (results === undefined) queued.reject(failure);
      else queued.resolve(results[index]!);
    });
  }

  return (item) =>
    new Promise<Result>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      schedule();
    });
}
