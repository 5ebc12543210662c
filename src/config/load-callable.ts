import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** A loaded callable, or why it could not be loaded (kept and reported per request). */
export type LoadedCallable<F> = { readonly ok: true; readonly fn: F } | { readonly ok: false; readonly error: Error };

/**
 * Imports the export a `module#export` specifier names (the default export
 * without `#`). Relative specifiers are resolved against `cwd`. Throws when
 * the module or the export cannot be found.
 */
export async function loadExport(specifier: string, cwd: string): Promise<unknown> {
  const hash = specifier.lastIndexOf('#');
  const moduleName = hash === -1 ? specifier : specifier.slice(0, hash);
  const exportName = hash === -1 ? 'default' : specifier.slice(hash + 1);
  const target = moduleName.startsWith('.') || path.isAbsolute(moduleName) ? pathToFileURL(path.resolve(cwd, moduleName)).href : moduleName;
  const loaded = (await import(target)) as Record<string, unknown>;
  if (!(exportName in loaded)) throw new TypeError(`${specifier}: the module has no export "${exportName}"`);
  return loaded[exportName];
}

/**
 * Resolves a `module#export` specifier to a function with `import()`. Never
 * throws: a failure is returned, to be reported on each use.
 * @example loadCallable('./lib/policy.js#allowClient', process.cwd())
 */
export async function loadCallable<F extends (...args: never[]) => unknown>(specifier: string, cwd: string): Promise<LoadedCallable<F>> {
  try {
    const fn = await loadExport(specifier, cwd);
    if (typeof fn !== 'function') return { ok: false, error: new TypeError(`${specifier} is not a function`) };
    return { ok: true, fn: fn as F };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error : new Error(String(error)) };
  }
}
