/**
 * The Micropub update an edit form means: the entry's properties before and
 * the form's after, compared for the names the form edits only.
 *
 * - a property the form leaves empty: `delete: [name]`
 * - a property the entry did not have: `add`
 * - `category` (a set): the values taken out in `delete: { category: […] }`,
 *   the new ones in `add`
 * - any other change: `replace` with the form's values
 *
 * Micropub's `delete` is either a list of names or a map of values, never
 * both: when an edit needs both, the value removals become a `replace` of
 * the whole set instead.
 * @module
 */
import type { MicropubProperties, UpdateOperations } from '../../contracts/micropub-types.js';
import { stableStringify } from '../../core/stable-json.js';

/** Properties whose values are a set: single values are added and removed. */
const SET_PROPERTIES: ReadonlySet<string> = new Set(['category']);

const same = (a: readonly unknown[], b: readonly unknown[]) => stableStringify(a) === stableStringify(b);

/** The update from `before` to `after` over `names`; null when nothing changed. */
export function diffUpdate(before: MicropubProperties, after: MicropubProperties, names: readonly string[]): UpdateOperations | null {
  const replace: MicropubProperties = {};
  const add: MicropubProperties = {};
  const deleteNames: string[] = [];
  const deleteValues: MicropubProperties = {};

  for (const name of new Set(names)) {
    const old = Object.hasOwn(before, name) ? (before[name] ?? []) : [];
    const now = Object.hasOwn(after, name) ? (after[name] ?? []) : [];
    if (same(old, now)) continue;
    if (now.length === 0) {
      deleteNames.push(name);
    } else if (old.length === 0) {
      add[name] = [...now];
    } else if (SET_PROPERTIES.has(name)) {
      const oldKeys = new Set(old.map((value) => stableStringify(value)));
      const nowKeys = new Set(now.map((value) => stableStringify(value)));
      const removed = old.filter((value) => !nowKeys.has(stableStringify(value)));
      const added = now.filter((value) => !oldKeys.has(stableStringify(value)));
      if (removed.length > 0) deleteValues[name] = removed;
      if (added.length > 0) add[name] = added;
      // the same values in another order: the order is what changed
      if (removed.length === 0 && added.length === 0) replace[name] = [...now];
    } else {
      replace[name] = [...now];
    }
  }

  if (deleteNames.length > 0) {
    for (const name of Object.keys(deleteValues)) {
      replace[name] = [...(after[name] ?? [])];
      delete add[name];
      delete deleteValues[name];
    }
  }

  const operations: { replace?: MicropubProperties; add?: MicropubProperties; delete?: string[] | MicropubProperties } = {};
  if (Object.keys(replace).length > 0) operations.replace = replace;
  if (Object.keys(add).length > 0) operations.add = add;
  if (deleteNames.length > 0) operations.delete = deleteNames;
  else if (Object.keys(deleteValues).length > 0) operations.delete = deleteValues;
  return Object.keys(operations).length === 0 ? null : operations;
}
