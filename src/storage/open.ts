/**
 * Opening the configured database for the server and the CLI: connect,
 * check that it answers, migrate — or one clear error.
 * @module
 */
import type { Config } from '../config/config.js';
import { redactUrl } from '../config/redact.js';
import { createDatabase, type DatabaseHandle } from './connect.js';
import { migrateToLatest } from './migrate.js';

export class DatabaseUnavailableError extends Error {
  constructor(description: string, options?: { cause?: unknown }) {
    super(`cannot use the database ${description}: ${errorText(options?.cause)}`, options);
    this.name = 'DatabaseUnavailableError';
  }
}

function errorText(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return errorText(error.errors[0]);
  if (error instanceof Error) return error.message.split('\n')[0] || error.name;
  return String(error);
}

export function describeDatabase(config: Config): string {
  return config.database.kind === 'postgres' ? redactUrl(config.database.url) : config.database.filename;
}

/** Opens the database, checks that it answers and migrates it; throws {@link DatabaseUnavailableError}. */
export async function openDatabase(config: Config): Promise<DatabaseHandle> {
  let database: DatabaseHandle;
  try {
    database = createDatabase(config.database, { timeoutSeconds: config.databaseTimeout });
  } catch (error) {
    throw new DatabaseUnavailableError(describeDatabase(config), { cause: error });
  }
  try {
    await database.ping();
    const { error } = await migrateToLatest(database.db);
    if (error !== undefined) throw error;
  } catch (error) {
    await database.close().catch(() => {});
    throw new DatabaseUnavailableError(describeDatabase(config), { cause: error });
  }
  return database;
}
