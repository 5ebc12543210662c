/**
 * A copy of a photo for a network with limits of its own (Bluesky takes at
 * most 1,000,000 bytes per image): at most `maxPixels` pixels and
 * `maxBytes` bytes, upright, without metadata, as JPEG (or PNG for an image
 * with transparency). Quality goes down first, then the sides, in proportion
 * to how far over the limit the copy still was.
 * @module
 */
import { checkPhotoBounds, openPhoto, openPixels, photoJob, readPhotoHeader, unreadablePhoto } from './photo-work.js';

export interface FitLimits {
  /** Bytes of the copy, e.g. 1_000_000 for Bluesky. */
  readonly maxBytes: number;
  /** Width × height of the copy. */
  readonly maxPixels: number;
}

export interface FittedPhoto {
  readonly bytes: Buffer;
  readonly mediaType: 'image/jpeg' | 'image/png';
  readonly width: number;
  readonly height: number;
}

const QUALITIES = [85, 70, 55] as const;
/** Rounds of shrinking after the lowest quality was still too big. */
const MAX_ROUNDS = 8;

/** The fitted copy; throws when `photo` is not a readable image or the limits cannot be met. */
export async function fitWithin(photo: Buffer, limits: FitLimits): Promise<FittedPhoto> {
  if (!(limits.maxBytes > 0) || !(limits.maxPixels >= 1)) throw new RangeError('maxBytes and maxPixels must be positive');
  const meta = await readPhotoHeader(photo);
  if (meta === null) throw unreadablePhoto('it cannot be fitted');
  checkPhotoBounds(meta);
  const png = meta.hasAlpha === true;
  return photoJob(async () => {
    // decoded once, upright and within the pixel limit; every attempt encodes from these pixels
    let decoded: { data: Buffer; info: { width: number; height: number; channels: 1 | 2 | 3 | 4 } };
    try {
      // at most the pixel limit already, so memory follows the limit, not the original
      const side = Math.max(
        1,
        Math.floor(Math.max(meta.width, meta.height) * Math.min(1, Math.sqrt(limits.maxPixels / (meta.width * meta.height)))),
      );
      const upright = openPhoto(photo).autoOrient().resize({ width: side, height: side, fit: 'inside', withoutEnlargement: true });
      const { data, info } = await (png ? upright.ensureAlpha() : upright.removeAlpha()).raw().toBuffer({ resolveWithObject: true });
      decoded = { data, info: { width: info.width, height: info.height, channels: info.channels } };
    } catch {
      throw unreadablePhoto('it cannot be fitted');
    }
    const { width, height, channels } = decoded.info;
    let scale = Math.min(1, Math.sqrt(limits.maxPixels / (width * height)));
    for (let round = 0; round < MAX_ROUNDS; round += 1) {
      const w = Math.max(1, Math.floor(width * scale));
      const h = Math.max(1, Math.floor(height * scale));
      let last = 0;
      for (const quality of png ? [0] : QUALITIES) {
        const image = openPixels(decoded.data, { width, height, channels }).resize({ width: w, height: h, fit: 'fill' });
        const bytes = await (png ? image.png({ compressionLevel: 9, palette: round > 0 }) : image.jpeg({ quality })).toBuffer();
        if (bytes.byteLength <= limits.maxBytes) return { bytes, mediaType: png ? 'image/png' : 'image/jpeg', width: w, height: h };
        last = bytes.byteLength;
      }
      // bytes follow the pixel count roughly: aim a little under the limit
      scale *= Math.min(0.9, Math.sqrt(limits.maxBytes / last) * 0.95);
    }
    throw new RangeError(`cannot fit the photo within ${limits.maxBytes} bytes`);
  });
}
