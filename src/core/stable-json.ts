/**
 * JSON with the keys of every object sorted: the text a `q=source` filter
 * matches (SPEC.md "List parameters": "a stable JSON serialization of an
 * object item"), stored with every entry, and how two property values are
 * compared. Written once here; it was spelled out in two places.
 *
 * The text is exactly `JSON.stringify` of the value with every object's
 * entries sorted by key (code unit order) and put back into an object — so,
 * as JavaScript orders an object's keys, keys that are array indices first,
 * in numeric order — which is what this module did before with a replacer.
 * Walking the value itself skips the copies the replacer made of every
 * object and its entries (issue 31: a fifth of what a create allocated in
 * the repository). Anything that is not a plain object, array or primitive
 * (a `toJSON`, a boxed primitive, a class instance) is handed to that
 * replacer as before.
 * @module
 */

const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The replacer this module used to serialise with: every object's entries sorted. */
function sortingReplacer(_key: string, inner: unknown): unknown {
  if (inner === null || typeof inner !== 'object' || Array.isArray(inner)) return inner;
  return Object.fromEntries(Object.entries(inner as Record<string, unknown>).sort(([a], [b]) => byCodeUnits(a, b)));
}

/** A canonical array index ("0" … "4294967294"): JavaScript puts such keys first, in numeric order. */
const ARRAY_INDEX = /^(?:0|[1-9][0-9]{0,9})$/;
const isArrayIndex = (key: string) => ARRAY_INDEX.test(key) && Number(key) < 4294967295;

/**
 * Sorts in place by code units. A handful of keys (every object of an entry)
 * by insertion, which allocates nothing; `Array.prototype.sort` copies the
 * array into a work area each time (5 % of what a create allocated).
 */
function sortKeys(keys: string[]): string[] {
  if (keys.length > 16) return keys.sort(byCodeUnits);
  for (let index = 1; index < keys.length; index++) {
    const key = keys[index]!;
    let at = index - 1;
    while (at >= 0 && keys[at]! > key) {
      keys[at + 1] = keys[at]!;
      at--;
    }
    keys[at + 1] = key;
  }
  return keys;
}

/** The keys in the order JSON.stringify meets them in the sorted copy the replacer made. */
function sortedKeys(value: object): string[] {
  const keys = sortKeys(Object.keys(value));
  if (!keys.some(isArrayIndex)) return keys;
  const indices = keys.filter(isArrayIndex).sort((a, b) => Number(a) - Number(b));
  return [...indices, ...keys.filter((key) => !isArrayIndex(key))];
}

const isPlainObject = (value: object): boolean => {
  const prototype: unknown = Object.getPrototypeOf(value);
  return (prototype === Object.prototype || prototype === null) && typeof (value as { toJSON?: unknown }).toJSON !== 'function';
};

/** The text of `value`, or undefined where JSON.stringify leaves it out (undefined, a function, a symbol). */
function write(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
    case 'number':
    case 'boolean':
      return JSON.stringify(value);
    case 'object': {
      if (value === null) return 'null';
      if (Array.isArray(value)) {
        if (Object.getPrototypeOf(value) !== Array.prototype || typeof (value as { toJSON?: unknown }).toJSON === 'function')
          return JSON.stringify(value, sortingReplacer);
        let text = '[';
        for (let index = 0; index < value.length; index++) text += `${index === 0 ? '' : ','}${write(value[index]) ?? 'null'}`;
        return `${text}]`;
      }
      if (!isPlainObject(value)) return JSON.stringify(value, sortingReplacer) as string | undefined;
      let text = '{';
      let first = true;
      for (const key of sortedKeys(value)) {
        const inner = write((value as Record<string, unknown>)[key]);
        if (inner === undefined) continue;
        text += `${first ? '' : ','}${JSON.stringify(key)}:${inner}`;
        first = false;
      }
      return `${text}}`;
    }
    case 'bigint':
      // as JSON.stringify does
      throw new TypeError('Do not know how to serialize a BigInt');
    default:
      return undefined;
  }
}

/** JSON with object keys sorted at every level (see the module comment). */
export function stableStringify(value: unknown): string {
  return write(value) as string;
}

/** The same through JSON.stringify and a replacer: what {@link stableStringify} is held to (tests). */
export function stableStringifyByReplacer(value: unknown): string {
  return JSON.stringify(value, sortingReplacer);
}
