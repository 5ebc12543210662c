/**
 * The upload pipeline shared by the media endpoint and Micropub multipart
 * create: limits (413), sniffing and the allow-list (415), an unguessable
 * key, streaming into storage, and a record of who owns the file.
 * @see SPEC.md "Media endpoint", "Limits"
 * @module
 */
import { NO_METER, type Meter } from '../core/meter.js';
import type { HostUser } from '../contracts/accounts.js';
import type { MediaStorage } from '../contracts/media-storage.js';
import type { MediaConfig } from '../config/config.js';
import type { Clock } from '../core/clock.js';
import { randomId, randomToken } from '../core/crypto.js';
import { forClient, PayloadTooLargeError } from '../core/errors.js';
import type { MediaRecord, MediaRepository } from '../storage/repositories/media.js';
import { type CleanedPhoto, spoolAndClean } from './photo-spool.js';
import { PHOTO_TYPES } from './photo-work.js';
import { SNIFF_BYTES, sniffUpload } from './sniff.js';

/** Per-request byte and file counters, checked as the bytes stream in. */
export class UploadBudget {
  #files = 0;
  #bytes = 0;
  constructor(private readonly limits: Pick<MediaConfig, 'maxUploadBytes' | 'maxUploadCount' | 'maxUploadTotalBytes'>) {}

  /** Call once per file part, before reading it. */
  countFile(): void {
    this.#files += 1;
    if (this.limits.maxUploadCount !== null && this.#files > this.limits.maxUploadCount)
      throw new PayloadTooLargeError(forClient('too many files'));
  }

  /** Call for every chunk; `fileBytes` is the file's running size. */
  countBytes(chunk: number, fileBytes: number): void {
    this.#bytes += chunk;
    if (this.limits.maxUploadBytes !== null && fileBytes > this.limits.maxUploadBytes)
      throw new PayloadTooLargeError(forClient('file too large'));
    if (this.limits.maxUploadTotalBytes !== null && this.#bytes > this.limits.maxUploadTotalBytes)
      throw new PayloadTooLargeError(forClient('upload too large'));
  }
}

/** One file part as it arrives: its stream has not been read yet. */
export interface IncomingFile {
  readonly filename: string;
  readonly mimetype: string;
  readonly content: AsyncIterable<Uint8Array>;
}

export type UploadPipeline = ReturnType<typeof createUploadPipeline>;

export function createUploadPipeline(deps: {
  storage: MediaStorage;
  media: MediaRepository;
  limits: MediaConfig;
  clock: Clock;
  meter?: Meter;
}) {
  const { storage, media, limits, clock } = deps;
  const meter = deps.meter ?? NO_METER;

  return {
    /**
     * Sniffs, checks and stores one file for `user`, counting it against the
     * request's budget. Nothing is stored when any check fails; a stream that
     * fails mid-way (client gone, limit crossed) leaves no object behind.
     */
    async store(file: IncomingFile, user: HostUser, budget: UploadBudget): Promise<MediaRecord> {
      budget.countFile();
      const iterator = file.content[Symbol.asyncIterator]();
      const head: Uint8Array[] = [];
      let size = 0;
      let done = false;
      while (size < SNIFF_BYTES) {
        const next = await iterator.next();
        if (next.done === true) {
          done = true;
          break;
        }
        const chunk = next.value;
        size += chunk.byteLength;
        budget.countBytes(chunk.byteLength, size);
        head.push(chunk);
      }
      const sample = Buffer.concat(head);
      const sniffed = await sniffUpload(
        sample.subarray(0, SNIFF_BYTES),
        { type: file.mimetype, filename: file.filename },
        limits.allowedTypes,
      );

      async function* rest(): AsyncGenerator<Uint8Array> {
        yield sample;
        if (done) return;
        for (;;) {
          const next = await iterator.next();
          if (next.done === true) return;
          size += next.value.byteLength;
          budget.countBytes(next.value.byteLength, size);
          yield next.value;
        }
      }

      let content: AsyncIterable<Uint8Array> = rest();
      let spool: CleanedPhoto | null = null;
      if (!limits.keepMetadata && PHOTO_TYPES.has(sniffed.mediaType)) {
        // metadata is removed before storage sees a byte; see photo-spool.ts
        spool = await spoolAndClean(content, () => size);
        content = spool.content;
        size = spool.size;
      }

      const storageKey = `indieweb/media/${randomToken(24)}.${sniffed.extension}`;
      const url = await storage.save(storageKey, content, sniffed.mediaType).finally(() => spool?.dispose());
      const record: MediaRecord = {
        id: randomId(),
        userId: user.id,
        storageKey,
        url,
        name: file.filename.slice(0, 255),
        mediaType: sniffed.mediaType,
        size,
        createdAt: clock.now().toISOString(),
      };
      try {
        await media.insert(record);
      } catch (error) {
        await storage.delete(storageKey).catch(() => {});
        throw error;
      }
      meter.mediaStored(size);
      return record;
    },

    /** Removes files stored earlier in a request that then failed. */
    async discard(records: readonly MediaRecord[]): Promise<void> {
      for (const record of records) {
        await storage.delete(record.storageKey).catch(() => {});
        await media.delete(record.id).catch(() => {});
      }
    },
  };
}
