/**
 * Marks every error that comes out of the database driver, so the HTTP
 * layer can tell "the database cannot answer" (503) from anything else
 * that happens to carry the same network error code, such as an S3 upload
 * refused by its endpoint (500, SPEC.md).
 * @module
 */
import type { DatabaseConnection, Dialect, Driver } from 'kysely';
import { markFromDatabase as mark } from '../core/database-faults.js';

async function* markedRows<T>(rows: AsyncIterableIterator<T>): AsyncIterableIterator<T> {
  try {
    yield* rows;
  } catch (error) {
    throw mark(error);
  }
}

/** `target` with every method's failure (thrown or rejected) marked; `wrap` may replace a method's result. */
function marking<T extends object>(target: T, wrap: (name: PropertyKey, result: unknown) => unknown = (_name, result) => result): T {
  return new Proxy(target, {
    get(object, name) {
      const value: unknown = Reflect.get(object, name, object);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        let result: unknown;
        try {
          result = (value as (...a: unknown[]) => unknown).apply(object, args);
        } catch (error) {
          throw mark(error);
        }
        if (result instanceof Promise)
          return result.then(
            (settled: unknown) => wrap(name, settled),
            (error: unknown) => Promise.reject(mark(error)),
          );
        return wrap(name, result);
      };
    },
  });
}

function markedConnection(connection: DatabaseConnection): DatabaseConnection {
  return marking(connection, (name, result) => (name === 'streamQuery' ? markedRows(result as AsyncIterableIterator<unknown>) : result));
}

/** The dialect with its driver's and connections' failures marked (see `isFromDatabase` in core/database-faults.ts). */
export function markingFailures(dialect: Dialect): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createDriver: (): Driver =>
      marking(dialect.createDriver(), (name, result) =>
        name === 'acquireConnection' ? markedConnection(result as DatabaseConnection) : result,
      ),
  };
}
