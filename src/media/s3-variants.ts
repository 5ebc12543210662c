/**
 * Sized copies of photos stored in an S3 bucket. The bucket cannot resize,
 * and a query on its URL reaches the original, so indiestack answers
 * `{base}/indieweb/media/<name>?w=N` for these photos too: the copy is read
 * from the bucket (`indieweb/variants/<name>/<w>.<ext>`, variant-keys.ts)
 * and streamed; on its first request it is made from the original (read
 * into a spool file, so memory holds no whole original) and put beside it.
 * Concurrent first requests in one process share one making; instances
 * making it at the same time each put the same picture under the same key,
 * and S3 makes a put visible whole or not at all.
 * @module
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { makeVariant } from './photo-variants.js';
import type { S3MediaStorage } from './s3-storage.js';
import { variantKeyOf, type VariantType } from './variant-keys.js';
import type { VariantBody } from './variant-route.js';

export interface S3Variants {
  /** The copy of the photo stored under `key`, made and stored first if need be; null when the original is not in the bucket. */
  open(key: string, width: number, type: VariantType): Promise<VariantBody | null>;
  /** Copies made so far in this process (for tests and metrics). */
  readonly made: () => number;
}

type Making = { readonly kind: 'made'; readonly bytes: Buffer } | { readonly kind: 'stored' } | { readonly kind: 'no-original' };

export function createS3Variants(storage: Pick<S3MediaStorage, 'getObject' | 'hasObject' | 'putObject'>): S3Variants {
  const inFlight = new Map<string, Promise<Making>>();
  let made = 0;

  /** Makes and stores the copy unless it is in the bucket by now (another request of this process, or another instance, made it). */
  async function produce(key: string, target: string, width: number, type: VariantType): Promise<Making> {
    if (await storage.hasObject(target)) return { kind: 'stored' };
    const original = await storage.getObject(key);
    if (original === null) return { kind: 'no-original' };
    // named like the upload spools, so the start-up sweep removes one a killed process left (leftovers.ts)
    const dir = await mkdtemp(path.join(os.tmpdir(), 'indiestack-upload-'));
    try {
      const file = path.join(dir, 'original');
      await pipeline(original.body, createWriteStream(file, { flags: 'wx', mode: 0o600 }));
      const bytes = await makeVariant(file, width, type);
      await storage.putObject(target, bytes, type);
      made += 1;
      return { kind: 'made', bytes };
    } finally {
      original.body.destroy();
      await rm(dir, { recursive: true, force: true });
    }
  }

  function making(key: string, target: string, width: number, type: VariantType): Promise<Making> {
    let pending = inFlight.get(target);
    if (pending === undefined) {
      pending = produce(key, target, width, type).finally(() => inFlight.delete(target));
      inFlight.set(target, pending);
    }
    return pending;
  }

  return {
    made: () => made,
    async open(key, width, type) {
      const target = variantKeyOf(key, width, type);
      // the usual case, once made: one request
      const stored = await storage.getObject(target);
      if (stored !== null) return stored;
      const outcome = await making(key, target, width, type);
      if (outcome.kind === 'no-original') return null;
      if (outcome.kind === 'made') return { body: outcome.bytes, size: outcome.bytes.byteLength };
      return storage.getObject(target);
    },
  };
}
