import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** A loaded callable, or why it could not be loaded (kept and reported per request). */
export type LoadedCallable<F> = { readonly ok: true; readonly fn: F } | { readonly ok: false; readonly error: Error };

/**
 * Resolves a `module#export` specifier (default export without `#`) with
 * `import()`. Relative specifiers are resolved against `cwd`. Never throws.
 * @example loadCallable('./lib/policy.js#allowClient', process.cwd())
 */
export async function loadCallable<F extends (...args: never[]) => unknown>(specifier: string, cwd: string): Promise<LoadedCallable<F>> {
  const hash = specifier.lastIndexOf('#');
  const moduleName = hash === -1 ? specifier : specifier.slice(0, hash);
  const exportName = hash === -1 ? 'default' : specifier.slice(hash + 1);
  const target = moduleName.startsWith('.') || path.isAbsolute(moduleName) ? pathToFileURL(path.resolve(cwd, moduleName)).href : moduleName;
  try {
    const loaded = (await import(target)) as Record<string, unknown>;
    const fn = loaded[exportName];
    if (typeof fn !== 'function') return { ok: false, error: new TypeError(`${specifier}: "${exportName}" is not a function`) };
    return { ok: true, fn: fn as F };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error : new Error(String(error)) };
  }
}
