/**
 * "Did you mean …?" for names a person typed: settings, scopes.
 * @module
 */

/** Edits (insert, delete, replace, swap of neighbours) that turn `a` into `b`. */
function distance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}

/** The candidate closest to `name` (case-insensitive) when it is near enough to be a typo, else null. */
export function closest(name: string, candidates: Iterable<string>): string | null {
  const typed = name.toLowerCase();
  let best: { candidate: string; edits: number } | null = null;
  for (const candidate of candidates) {
    const edits = distance(typed, candidate.toLowerCase());
    if (best === null || edits < best.edits) best = { candidate, edits };
  }
  const allowed = Math.max(1, Math.floor(typed.length / 4));
  return best !== null && best.edits <= allowed ? best.candidate : null;
}

/** ` (did you mean X?)`, or nothing. */
export function didYouMean(name: string, candidates: Iterable<string>): string {
  const match = closest(name, candidates);
  return match === null ? '' : ` (did you mean ${match}?)`;
}
