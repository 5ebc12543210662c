/**
 * A copy of a photo for a network with limits of its own (Bluesky takes at
 * most 1,000,000 bytes per image): at most `maxPixels` pixels and
 * `maxBytes` bytes, upright, without metadata, as JPEG (or PNG for an image
 * with transparency). Quality goes down first, then size, a step at a time.
 * @module
 */
import { checkPhotoBounds, openPhoto, photoJob, readPhotoHeader, unreadablePhoto } from './photo-work.js';

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

const QUALITIES = [88, 78, 68, 58] as const;
/** Each round past the lowest quality shrinks the sides by this much. */
const SHRINK = 0.8;
const MAX_ROUNDS = 12;

/** The fitted copy; throws when `photo` is not a readable image or the limits cannot be met (under a few pixels). */
export async function fitWithin(photo: Buffer, limits: FitLimits): Promise<FittedPhoto> {
  if (!(limits.maxBytes > 0) || !(limits.maxPixels >= 1)) throw new RangeError('maxBytes and maxPixels must be positive');
  const meta = await readPhotoHeader(photo);
  if (meta === null) throw unreadablePhoto('it cannot be fitted');
  checkPhotoBounds(meta);
  const upright = (meta.orientation ?? 1) >= 5;
  const width = upright ? meta.height : meta.width;
  const height = upright ? meta.width : (meta.pageHeight ?? meta.height);
  const png = meta.hasAlpha === true;
  let scale = Math.min(1, Math.sqrt(limits.maxPixels / (width * height)));
  return photoJob(async () => {
    for (let round = 0; round < MAX_ROUNDS; round += 1) {
      const w = Math.max(1, Math.floor(width * scale));
      const h = Math.max(1, Math.floor(height * scale));
      for (const quality of png ? [0] : QUALITIES) {
        const image = openPhoto(photo).autoOrient().resize({ width: w, height: h, fit: 'fill' });
        let bytes: Buffer;
        try {
          bytes = await (png ? image.png({ compressionLevel: 9, palette: round > 0 }) : image.flatten({ background: '#ffffff' }).jpeg({ quality, mozjpeg: true })).toBuffer();
        } catch {
          throw unreadablePhoto('it cannot be fitted');
        }
        if (bytes.byteLength <= limits.maxBytes) return { bytes, mediaType: png ? 'image/png' : 'image/jpeg', width: w, height: h };
      }
      scale *= SHRINK;
    }
    throw new RangeError(`cannot fit the photo within ${limits.maxBytes} bytes`);
  });
}
