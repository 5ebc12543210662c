/**
 * Where uploaded files go. Built-ins: a local directory (default) and an
 * S3-compatible bucket; a host may pass its own.
 * @module
 */

export interface MediaStorage {
  /**
   * Writes `content` under `key` (always `indieweb/media/<random>.<ext>`,
   * chosen by indiestack, never derived from client input) and returns the
   * absolute public URL of the stored file. When `content` fails mid-way or
   * the write fails, it rejects and leaves no partial object behind.
   */
  save(key: string, content: AsyncIterable<Uint8Array>, mediaType: string): Promise<string>;
  /** Removes the object; removing a missing one is not an error. */
  delete(key: string): Promise<void>;
}
