/**
 * Who may read a SQLite database on disk: its owner only. The database holds
 * password hashes, token hashes and the webhook deliveries, so like a backup
 * (0600) the live files are 0600 and a directory made for them 0700. SQLite
 * creates `-wal` and `-shm` with the mode of the main file, so making the
 * main file first is enough for new databases; files an earlier version left
 * readable by others are tightened, and named, before the database opens.
 * @module
 */
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';
import path from 'node:path';

/** The mode of a database file and of its `-wal` and `-shm` companions. */
export const DATABASE_FILE_MODE = 0o600;
/** The mode of a directory made to hold the database. */
export const DATABASE_DIRECTORY_MODE = 0o700;

/** The database file and the companions SQLite keeps next to it in WAL mode. */
export function databaseFiles(filename: string): string[] {
  return [filename, `${filename}-wal`, `${filename}-shm`];
}

/**
 * Makes the database's directory (0700, only the levels that are missing),
 * creates an absent database file 0600, and takes group and other
 * permissions off the database and its companions where present. Returns the
 * files whose mode was changed, for the log, and those that are readable by
 * others but could not be changed (owned by another user): the database still
 * opens, as it did before. An existing directory is left as it is: it may be
 * the working directory or shared with other files.
 */
export function prepareDatabaseFiles(filename: string): { tightened: string[]; failed: string[] } {
  mkdirSync(path.dirname(filename), { recursive: true, mode: DATABASE_DIRECTORY_MODE });
  if (!existsSync(filename)) {
    try {
      closeSync(openSync(filename, 'wx', DATABASE_FILE_MODE));
    } catch (error) {
      // made by another process in between: tightened below like any existing file
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  // Windows has no group and other bits to take away
  if (process.platform === 'win32') return { tightened: [], failed: [] };
  const tightened: string[] = [];
  const failed: string[] = [];
  for (const file of databaseFiles(filename)) {
    let mode: number;
    try {
      mode = statSync(file).mode & 0o777;
    } catch {
      continue;
    }
    if ((mode & 0o077) === 0) continue;
    try {
      chmodSync(file, mode & 0o700);
      tightened.push(file);
    } catch (error) {
      failed.push(`${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  }
  return { tightened, failed };
}
