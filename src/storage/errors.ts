/** True for a unique-constraint violation on either dialect. */
export function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  // better-sqlite3 reports SQLITE_CONSTRAINT_UNIQUE / _PRIMARYKEY; pg reports SQLSTATE 23505
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === 'UNIQUE_VIOLATION';
}

/** A row refused because a unique column already holds its value, found without the database raising it (`on conflict do nothing`). */
export class UniqueViolationError extends Error {
  readonly code = 'UNIQUE_VIOLATION';
}
