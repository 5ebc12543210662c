/**
 * An uploaded photo is written to a spool file in the temp directory while it
 * arrives (memory stays at one chunk), cleaned from there (photo-clean.ts),
 * and only then streamed into storage: what storage receives never carries
 * the metadata, not even for a moment. The spool directory is named like the
 * multipart spools, so the start-up sweep (leftovers.ts) removes one a killed
 * process left.
 * @module
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { cleanPhoto } from './photo-clean.js';
import { photoJob } from './photo-work.js';

export interface CleanedPhoto {
  /** What to store: the upload itself when nothing needed removing, else the cleaned copy. */
  readonly content: AsyncIterable<Uint8Array>;
  readonly size: number;
  /** Removes the spool; call once the content has been stored (or failed to be). */
  dispose(): Promise<void>;
}

/** Spools `content` (whose size the caller counts as it streams), cleans it, and tells what to store. */
export async function spoolAndClean(content: AsyncIterable<Uint8Array>, counted: () => number): Promise<CleanedPhoto> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'indiestack-upload-'));
  const dispose = () => rm(dir, { recursive: true, force: true });
  try {
    const file = path.join(dir, 'photo');
    await pipeline(Readable.from(content), createWriteStream(file, { flags: 'wx', mode: 0o600 }));
    const size = counted();
    const cleaned = await photoJob(() => cleanPhoto(file, size));
    if (cleaned === null) return { content: createReadStream(file), size, dispose };
    return {
      content: (async function* () {
        yield cleaned;
      })(),
      size: cleaned.byteLength,
      dispose,
    };
  } catch (error) {
    await dispose();
    throw error;
  }
}
