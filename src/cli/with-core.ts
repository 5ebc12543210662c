/**
 * Every database command runs inside the application core (app/core.ts),
 * the same one the server builds, without its worker or routes: a CLI
 * approval notifies webhooks as the admin's does, a reprocess runs the
 * service's own processing, spam goes through the service (issue 29).
 * Jobs a command queues are run by a server's worker. The core and the
 * database load only when a command runs (docs/performance.md).
 * @module
 */
import { existsSync } from 'node:fs';
import type { UserService } from '../accounts/user-service.js';
import type { Core } from '../app/core.js';
import { commandLog } from './command-log.js';
import { configFrom } from './context.js';
import type { CliIo } from './io.js';

/**
 * Opens (and migrates) the configured database, builds the core on it,
 * runs `work`, and always closes both. Only a command that creates (`user
 * add`) may start a new SQLite file, and says so on stderr; every other
 * command refuses a file that does not exist and names where it looked —
 * run in the wrong directory, it would otherwise print an empty list or
 * "no user named …".
 */
/** The core a command runs in: always on indiestack's own accounts. */
export type CommandCore = Core & { readonly users: UserService };

export async function withCore<T>(io: CliIo, work: (core: CommandCore) => Promise<T>, options: { create?: boolean } = {}): Promise<T> {
  const config = configFrom(io);
  const { DatabaseUnavailableError, describeDatabase, openDatabase } = await import('../storage/open.js');
  const where = describeDatabase(config);
  const missing = config.database.kind === 'sqlite' && config.database.filename !== ':memory:' && !existsSync(config.database.filename);
  if (missing && options.create !== true) {
    throw new DatabaseUnavailableError(where, {
      cause: new Error('no such file; run this where `indiestack serve` runs, or give --data-dir or INDIEWEB_DATABASE_URL'),
    });
  }
  if (missing) io.stderr.write(`indiestack: creating a new database at ${where}\n`);
  const database = await openDatabase(config);
  try {
    const { createCore } = await import('../app/core.js');
    const core = await createCore({ config, database, log: commandLog(io), door: 'command' });
    const { users } = core;
    try {
      if (users === null) throw new Error('a command runs on the built-in accounts');
      return await work({ ...core, users });
    } finally {
      await core.close();
    }
  } finally {
    await database.close();
  }
}
