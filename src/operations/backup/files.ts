/**
 * The file work of backup and restore: copying a file while hashing the
 * bytes written, walking a directory tree, and the empty-directory rule.
 * @module
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { chmod, lstat, mkdir, readdir, rename, rm, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { randomId } from '../../core/crypto.js';

export interface CopiedFile {
  readonly bytes: number;
  readonly sha256: string;
}

/** A stream of a file by name, or of an open file from its start (the caller closes the handle). */
function readFrom(from: string | FileHandle) {
  return typeof from === 'string' ? createReadStream(from) : from.createReadStream({ start: 0, autoClose: false });
}

/** Copies `from` (a name, or an open file) to the new file `to` (written aside, renamed when whole), hashing what was written. */
export async function copyHashed(from: string | FileHandle, to: string, mode: number): Promise<CopiedFile> {
  const hash = createHash('sha256');
  let bytes = 0;
  const tap = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      hash.update(chunk);
      bytes += chunk.length;
      callback(null, chunk);
    },
  });
  const partial = `${to}.${randomId()}.partial`;
  try {
    await pipeline(readFrom(from), tap, createWriteStream(partial, { flags: 'wx', mode: 0o600 }));
    await chmod(partial, mode);
    await rename(partial, to);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
  return { bytes, sha256: hash.digest('hex') };
}

/** The size and SHA-256 of a file (a name, or an open file: the caller closes the handle). */
export async function hashFile(file: string | FileHandle): Promise<CopiedFile> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of readFrom(file)) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { bytes, sha256: hash.digest('hex') };
}

export interface TreeEntry {
  /** Relative to the root, `/`-separated. */
  readonly relative: string;
  readonly kind: 'directory' | 'file' | 'other';
  readonly mode: number;
}

/** Every directory and file below `root` (symbolic links and devices are `other`, never followed); none when it does not exist. */
export async function walkTree(root: string): Promise<TreeEntry[]> {
  const entries: TreeEntry[] = [];
  const visit = async (relative: string) => {
    let names: string[];
    try {
      names = (await readdir(path.join(root, relative))).sort();
    } catch (error) {
      // gone meanwhile (a directory removed while the server runs), or never there
      if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return;
      throw error;
    }
    for (const name of names) {
      const child = relative === '' ? name : `${relative}/${name}`;
      let info;
      try {
        info = await lstat(path.join(root, child));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw error;
      }
      if (info.isDirectory()) {
        entries.push({ relative: child, kind: 'directory', mode: info.mode & 0o777 });
        await visit(child);
      } else entries.push({ relative: child, kind: info.isFile() ? 'file' : 'other', mode: info.mode & 0o777 });
    }
  };
  await visit('');
  return entries;
}

/** True when `dir` does not exist or holds nothing. */
export async function isEmptyOrAbsent(dir: string): Promise<boolean> {
  try {
    return (await readdir(dir)).length === 0;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw error;
  }
}

export async function ensureDirectory(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
}
