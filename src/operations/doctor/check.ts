/**
 * One finding of the doctor: a status, what was found and, when something
 * is wrong, the fix. Printed as one line starting with the status.
 * @module
 */

export const CHECK_STATUSES = ['PASS', 'WARN', 'FAIL'] as const;
export type CheckStatus = (typeof CHECK_STATUSES)[number];

export interface CheckResult {
  /** Stable id, e.g. `authorization-header`, `profile-links https://alice.example/`. */
  readonly name: string;
  readonly status: CheckStatus;
  /** What was found, and why it matters. */
  readonly message: string;
  /** What to change; null when nothing needs changing. */
  readonly fix: string | null;
}

export const pass = (name: string, message: string): CheckResult => ({ name, status: 'PASS', message, fix: null });
export const warn = (name: string, message: string, fix: string): CheckResult => ({ name, status: 'WARN', message, fix });
export const fail = (name: string, message: string, fix: string): CheckResult => ({ name, status: 'FAIL', message, fix });

/** `STATUS name: message; fix: …` on one line (control characters of fetched text cannot break it). */
export function formatCheck(check: CheckResult): string {
  const line = `${check.status} ${check.name}: ${check.message}${check.fix === null ? '' : `; fix: ${check.fix}`}`;
  return line.replace(/[\u0000-\u001f\u007f]+/g, ' ');
}

export function hasFailure(checks: readonly CheckResult[]): boolean {
  return checks.some((check) => check.status === 'FAIL');
}
