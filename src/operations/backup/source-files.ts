/**
 * Reading the files of a backup for restore: what a manifest lists is read
 * only when it is a regular file reached through real directories of the
 * backup. A symbolic link (to a file or directory outside, or to a device),
 * a named pipe, a socket or a device is refused, never followed or opened
 * for reading: a crafted backup could otherwise restore the contents of any
 * file the operator may read, or hang the restore on a pipe.
 * @module
 */
import { constants, type Stats } from 'node:fs';
import { lstat, open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { BackupError } from '../../core/errors.js';

/** What an entry that is not a regular file is, in words. */
function kindOf(info: Stats): string {
  if (info.isSymbolicLink()) return 'a symbolic link';
  if (info.isDirectory()) return 'a directory';
  if (info.isFIFO()) return 'a named pipe';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

const notRegular = (relative: string, info: Stats) =>
  new BackupError(
    `${relative} in the backup is ${kindOf(info)}, not a regular file: a restore reads regular files only, and never follows links`,
  );

// O_NOFOLLOW fails on a link instead of following it; O_NONBLOCK keeps opening a named pipe from waiting for a writer
const READ_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/**
 * Opens `relative` (`/`-separated, already checked to be a plain path) below
 * the backup directory `root` for reading; throws {@link BackupError} when it
 * or a directory on its way is anything but a regular file or a directory.
 */
export async function openBackupFile(root: string, relative: string): Promise<FileHandle> {
  const segments = relative.split('/');
  for (let depth = 1; depth < segments.length; depth++) {
    const prefix = segments.slice(0, depth).join('/');
    const info = await lstat(path.join(root, prefix)).catch(() => null);
    if (info === null) throw new BackupError(`${relative} is missing from the backup (ENOENT)`);
    if (!info.isDirectory()) throw notRegular(prefix, info);
  }
  const file = path.join(root, ...segments);
  const info = await lstat(file).catch((error: NodeJS.ErrnoException) => {
    throw new BackupError(`${relative} is missing from the backup (${error.code ?? 'unreadable'})`);
  });
  if (!info.isFile()) throw notRegular(relative, info);
  let handle: FileHandle;
  try {
    handle = await open(file, READ_FLAGS);
  } catch (error) {
    throw new BackupError(`${relative} cannot be read from the backup (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`);
  }
  // replaced between the look and the open: judged again by what was opened
  const opened = await handle.stat();
  if (!opened.isFile()) {
    await handle.close();
    throw notRegular(relative, opened);
  }
  return handle;
}
