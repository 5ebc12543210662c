/**
 * The worker side of the parse pool (pool.ts): imports the module a task
 * names and calls one of its exports with the task's arguments. What goes
 * back is plain data; a thrown error goes back as its name and message, so
 * the caller can tell a page that breaks the shape bounds from any other.
 * Nothing here may use TypeScript syntax that Node cannot strip (the pool
 * runs this file from source under the test runner).
 * @module
 */

export interface ParseTask {
  /** A file URL of a module of ours. */
  readonly module: string;
  readonly name: string;
  readonly args: readonly unknown[];
}

export type ParseOutcome =
  { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly name: string; readonly message: string };

export default async function run(task: ParseTask): Promise<ParseOutcome> {
  const loaded = (await import(task.module)) as Record<string, unknown>;
  const fn = loaded[task.name];
  if (typeof fn !== 'function') return { ok: false, name: 'TypeError', message: `${task.name} is not a function of ${task.module}` };
  try {
    return { ok: true, value: await (fn as (...args: unknown[]) => unknown)(...task.args) };
  } catch (error) {
    return {
      ok: false,
      name: error instanceof Error ? error.name : 'Error',
      message: error instanceof Error ? error.message : String(error),
    };
  }
}
