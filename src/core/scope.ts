/**
 * Scope rules: normalisation and exact-token matching.
 * @see SPEC.md "Scope enforcement"
 */

/** Whitespace-split, duplicates dropped keeping first-seen order, joined by single spaces. */
export function normalizeScope(scope: string | null | undefined): string {
  if (scope === null || scope === undefined) return '';
  const seen = new Set<string>();
  for (const name of scope.split(/\s+/)) {
    if (name !== '') seen.add(name);
  }
  return [...seen].join(' ');
}

export function scopeNames(scope: string): string[] {
  return scope.split(/\s+/).filter((name) => name !== '');
}

/**
 * Exact-token match; `post` is the legacy alias of `create`.
 * `createXYZ` never satisfies `create`, and `draft` never grants an operation.
 */
export function hasScope(granted: string, required: string): boolean {
  const names = scopeNames(granted);
  if (names.includes(required)) return true;
  return required === 'create' && names.includes('post');
}
