/**
 * The default storage: files in a local directory, served by indiestack
 * itself. A file is written to a temporary name and renamed into place only
 * when complete, so a failed or aborted upload leaves nothing behind.
 * @module
 */
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { MediaStorage } from '../contracts/media-storage.js';
import { randomId } from '../core/crypto.js';
import { variantPrefixOf } from './variant-keys.js';

export const MEDIA_KEY_PATTERN = /^indieweb\/media\/[A-Za-z0-9_-]{16,64}\.[a-z0-9]{1,8}$/;

export interface LocalStorageOptions {
  /** Directory the keys are stored below. */
  readonly dir: string;
  /** Public base URL; a key `indieweb/media/x.png` is served at `{baseUrl}/indieweb/media/x.png`. */
  readonly baseUrl: string;
}

/** The local-directory storage, with the file path of a key for serving. */
export interface LocalMediaStorage extends MediaStorage {
  readonly kind: 'local';
  readonly dir: string;
  pathOf(key: string): string;
  /** The directory of a key's sized copies (variant-keys.ts); removed with the key. */
  variantDirOf(key: string): string;
}

export function createLocalStorage(options: LocalStorageOptions): LocalMediaStorage {
  const root = path.resolve(options.dir);
  const pathOf = (key: string): string => {
    // keys are ours, never client input; refuse anything else all the same
    if (!MEDIA_KEY_PATTERN.test(key)) throw new Error(`invalid media key ${key}`);
    return path.join(root, ...key.split('/'));
  };
  const variantDirOf = (key: string): string => path.join(root, ...variantPrefixOf(key).split('/'));
  return {
    kind: 'local',
    dir: root,
    pathOf,
    variantDirOf,
    async save(key, content) {
      const target = pathOf(key);
      await mkdir(path.dirname(target), { recursive: true });
      const partial = `${target}.${randomId()}.partial`;
      const out = createWriteStream(partial, { flags: 'wx', mode: 0o644 });
      const closed = new Promise<void>((resolve) => out.once('close', () => resolve()));
      try {
        await pipeline(Readable.from(content), out);
        await rename(partial, target);
      } catch (error) {
        // closed as well as removed: a full disk gets its space back before the next upload is answered
        out.destroy();
        await closed;
        await rm(partial, { force: true });
        throw error;
      }
      return `${options.baseUrl}/${key}`;
    },
    async delete(key) {
      await rm(pathOf(key), { force: true });
      await rm(variantDirOf(key), { recursive: true, force: true });
    },
  };
}
