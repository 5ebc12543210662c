/**
 * A map bounded by its number of entries and by the sum of their weights
 * (bytes, characters…), that forgets what was least recently used first —
 * approximately: a "second chance" clock over the map's insertion order.
 *
 * Why not the usual `delete(key); set(key, value)` on every read to move a key
 * to the end: V8 rebuilds a long-lived Map's hash table in the old generation
 * when deleted keys fill it, so a cache read on every request left old-space
 * garbage that only a full collection frees — 18 MiB for a million reads of a
 * one-key map, a third of the database handler's heap growth under creates
 * (issue 31). Here a read only marks its entry; an entry is moved to the end
 * when it comes up for eviction marked (then unmarked), so the map is
 * rewritten only when something is evicted.
 * @module
 */

export interface BoundedCacheOptions<K, V> {
  /** At most this many entries (at least 1). */
  readonly maxEntries: number;
  /** At most this sum of {@link weigh}; an entry heavier than it alone is not kept. @defaultValue no bound */
  readonly maxWeight?: number;
  /** The weight of an entry. @defaultValue 0 */
  readonly weigh?: (key: K, value: V) => number;
}

export interface BoundedCache<K, V> {
  /** The value, marking the entry as used. */
  get(key: K): V | undefined;
  /** The value, without marking the entry. */
  peek(key: K): V | undefined;
  /** Sets a value (replacing one keeps the entry's place); then forgets entries, the least recently used first, until within bounds. */
  set(key: K, value: V): void;
  delete(key: K): boolean;
  readonly size: number;
  /** The sum of the entries' weights. */
  readonly weight: number;
}

interface Slot<V> {
  value: V;
  weight: number;
  used: boolean;
}

export function createBoundedCache<K, V>(options: BoundedCacheOptions<K, V>): BoundedCache<K, V> {
  const maxEntries = Math.max(1, options.maxEntries);
  const maxWeight = options.maxWeight ?? Number.POSITIVE_INFINITY;
  const weigh = options.weigh ?? (() => 0);
  const slots = new Map<K, Slot<V>>();
  let weight = 0;

  function forget(key: K, slot: Slot<V>): void {
    slots.delete(key);
    weight -= slot.weight;
  }

  /** Forgets the least recently used entry: marked ones met first are unmarked and moved to the end (each at most once a call). */
  function evictOne(): void {
    for (;;) {
      const [key, slot] = slots.entries().next().value as [K, Slot<V>];
      slots.delete(key);
      if (!slot.used) {
        weight -= slot.weight;
        return;
      }
      slot.used = false;
      slots.set(key, slot);
    }
  }

  return {
    get(key) {
      const slot = slots.get(key);
      if (slot === undefined) return undefined;
      slot.used = true;
      return slot.value;
    },
    peek: (key) => slots.get(key)?.value,
    set(key, value) {
      const entryWeight = weigh(key, value);
      const slot = slots.get(key);
      if (entryWeight > maxWeight) {
        if (slot !== undefined) forget(key, slot);
        return;
      }
      if (slot === undefined) {
        // room first, so the new entry is not the one forgotten
        while (slots.size > 0 && (slots.size >= maxEntries || weight + entryWeight > maxWeight)) evictOne();
        slots.set(key, { value, weight: entryWeight, used: false });
        weight += entryWeight;
        return;
      }
      weight += entryWeight - slot.weight;
      slot.value = value;
      slot.weight = entryWeight;
      // marked, so the others are forgotten before it
      slot.used = true;
      while (slots.size > 1 && weight > maxWeight) evictOne();
    },
    delete(key) {
      const slot = slots.get(key);
      if (slot === undefined) return false;
      forget(key, slot);
      return true;
    },
    get size() {
      return slots.size;
    },
    get weight() {
      return weight;
    },
  };
}
