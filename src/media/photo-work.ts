/**
 * The bounds every photo operation runs within: sharp (libvips, on its own
 * threads, off the event loop) with a pixel limit against decompression
 * bombs, a frame limit for animations, and at most {@link PHOTO_JOBS} photos
 * decoded at once in this process, so memory stays bounded however many
 * requests arrive.
 * @module
 */
import { createRequire } from 'node:module';
import type { Metadata, Sharp, SharpOptions } from 'sharp';
import { forClient, PayloadTooLargeError, UnsupportedMediaTypeError } from '../core/errors.js';

/** Pixels of one decoded image (all frames of an animation together): 8192 × 8192. */
export const MAX_PHOTO_PIXELS = 8192 * 8192;
/** Frames of an animated GIF or WebP. */
export const MAX_PHOTO_FRAMES = 500;
/** Photos decoded at the same time in one process; the others wait their turn. */
export const PHOTO_JOBS = 2;

/** The image types sharp reads and indiestack writes back (strip, resize); other files are stored as sent. */
export const PHOTO_TYPES: ReadonlySet<string> = new Set([
  'image/jpeg',
  'image/png',
  'image/webp',
  'image/avif',
  'image/heic',
  'image/heif',
  'image/gif',
]);

type SharpLibrary = (typeof import('sharp'))['default'];
let library: SharpLibrary | undefined;

/**
 * sharp, loaded by the first photo rather than when the server starts: libvips
 * and its libraries are about 10 MiB of a server's memory that most servers
 * seldom need (issue 31). A synchronous require (sharp ships CommonJS), so
 * the functions below stay as they are.
 */
function sharp(): SharpLibrary {
  if (library === undefined) {
    library = createRequire(import.meta.url)('sharp') as SharpLibrary;
    // libvips' own worker threads per image; two cores are the expected machine
    library.concurrency(2);
    // no operation cache: memory stays tied to the photos being worked on
    library.cache(false);
  }
  return library;
}

let running = 0;
const waiting: (() => void)[] = [];

/** Runs `work` once fewer than {@link PHOTO_JOBS} photo jobs are running. */
export async function photoJob<T>(work: () => Promise<T>): Promise<T> {
  if (running >= PHOTO_JOBS) await new Promise<void>((resolve) => waiting.push(resolve));
  running += 1;
  try {
    return await work();
  } finally {
    running -= 1;
    waiting.shift()?.();
  }
}

/** A sharp pipeline over raw pixels (decoded before, so already within the limits above). */
export function openPixels(data: Buffer, raw: { width: number; height: number; channels: 1 | 2 | 3 | 4 }): Sharp {
  return sharp()(data, { raw });
}

/**
 * A sharp pipeline over `input` with the limits above; `animated` reads every
 * frame. Damage (a bad checksum, a cut-off end) is decoded as far as it goes
 * rather than refused: the limits bound the work either way.
 */
export function openPhoto(input: string | Buffer, options: { animated?: boolean } = {}): Sharp {
  const base: SharpOptions = { limitInputPixels: MAX_PHOTO_PIXELS, sequentialRead: true, failOn: 'none' };
  return sharp()(input, options.animated === true ? { ...base, animated: true } : base);
}

/** What sharp reads from the header (no pixel is decoded, so no limit applies yet), or null when it cannot read the file as an image at all. */
export async function readPhotoHeader(input: string | Buffer): Promise<Metadata | null> {
  try {
    return await sharp()(input, { limitInputPixels: false }).metadata();
  } catch {
    return null;
  }
}

/** Refuses an image beyond the limits before any pixel is decoded (413, with the numbers). */
export function checkPhotoBounds(meta: Metadata): void {
  const width = meta.width;
  const height = meta.pageHeight ?? meta.height;
  const frames = meta.pages ?? 1;
  if (width * height > MAX_PHOTO_PIXELS)
    throw new PayloadTooLargeError(forClient(`image too large: ${width}×${height} pixels, at most ${MAX_PHOTO_PIXELS} pixels`));
  if (frames > MAX_PHOTO_FRAMES)
    throw new PayloadTooLargeError(forClient(`image has too many frames: ${frames}, at most ${MAX_PHOTO_FRAMES}`));
  if (width * height * frames > MAX_PHOTO_PIXELS * 4) throw new PayloadTooLargeError(forClient('animation too large'));
}

/** The error a damaged image gets when it has to be decoded (415). */
export function unreadablePhoto(what: string): UnsupportedMediaTypeError {
  return new UnsupportedMediaTypeError(forClient(`the image could not be decoded, so ${what}`));
}
