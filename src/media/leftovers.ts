/**
 * What an upload leaves behind when its process is killed mid-write (no
 * error handler runs then): `*.partial` files beside the stored media and
 * `indiestack-upload-*` spool directories in the temp directory. They are
 * removed at start once older than any upload could still be running, so
 * another instance's upload in progress is never touched.
 * @module
 */
import { readdir, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** Leftovers younger than this may belong to an upload still running (in this or another instance). */
export const LEFTOVER_AGE_MS = 60 * 60 * 1000;

export interface SweepResult {
  readonly partialFiles: number;
  readonly spoolDirs: number;
}

async function isOld(file: string, before: number): Promise<boolean> {
  try {
    return (await stat(file)).mtimeMs < before;
  } catch {
    return false;
  }
}

/** Removes leftovers older than `olderThanMs` under `mediaDir` (local storage) and in `tmpDir`. */
export async function sweepUploadLeftovers(options: {
  mediaDir: string | null;
  tmpDir?: string;
  now: Date;
  olderThanMs?: number;
}): Promise<SweepResult> {
  const before = options.now.getTime() - (options.olderThanMs ?? LEFTOVER_AGE_MS);
  let partialFiles = 0;
  let spoolDirs = 0;
  if (options.mediaDir !== null) {
    const dir = path.join(options.mediaDir, 'indieweb', 'media');
    const names = await readdir(dir).catch(() => [] as string[]);
    for (const name of names) {
      const file = path.join(dir, name);
      if (name.endsWith('.partial') && (await isOld(file, before))) {
        await rm(file, { force: true });
        partialFiles += 1;
      }
    }
  }
  const tmp = options.tmpDir ?? os.tmpdir();
  for (const name of await readdir(tmp).catch(() => [] as string[])) {
    const dir = path.join(tmp, name);
    if (name.startsWith('indiestack-upload-') && (await isOld(dir, before))) {
      await rm(dir, { recursive: true, force: true });
      spoolDirs += 1;
    }
  }
  return { partialFiles, spoolDirs };
}
