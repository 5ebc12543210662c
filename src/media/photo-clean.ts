/**
 * What an uploaded photo loses before it is stored: EXIF (GPS position,
 * camera serial numbers, maker notes), XMP, IPTC and PNG text chunks; the
 * EXIF orientation is applied to the pixels. The colour profile is kept.
 * A photo without any of these is stored byte for byte; one that needs
 * them removed is re-encoded, at the first quality that comes out no bigger
 * than the upload.
 * @module
 */
import type { Metadata, Sharp } from 'sharp';
import { forClient, UnsupportedMediaTypeError } from '../core/errors.js';
import { checkPhotoBounds, openPhoto, readPhotoHeader, unreadablePhoto } from './photo-work.js';

/** Qualities tried in turn for lossy formats, until one is no bigger than the upload. */
const QUALITIES = [90, 82, 74, 66] as const;

/** True when the header shows anything that must not be published, or a rotation still to apply. */
export function carriesMetadata(meta: Metadata): boolean {
  return (
    meta.exif !== undefined ||
    meta.xmp !== undefined ||
    meta.iptc !== undefined ||
    meta.tifftagPhotoshop !== undefined ||
    (meta.comments !== undefined && meta.comments.length > 0) ||
    (meta.orientation !== undefined && meta.orientation !== 1)
  );
}

function encoder(meta: Metadata, quality: number): ((image: Sharp) => Sharp) | null {
  switch (meta.format) {
    case 'jpeg':
      return (image) => image.jpeg({ quality, mozjpeg: true });
    case 'png':
      return (image) => image.png({ compressionLevel: 9 });
    case 'webp':
      return (image) => image.webp({ quality });
    case 'gif':
      return (image) => image.gif();
    case 'heif':
      // AVIF is AV1 in a HEIF box; HEVC (phone HEIC) has no encoder in sharp's build
      return meta.compression === 'av1' ? (image) => image.avif({ quality: quality - 30 }) : null;
    default:
      return null;
  }
}

/**
 * The bytes to store for the uploaded image in the file `input` (`size`
 * bytes): null when the file itself is to be stored (nothing needs removing,
 * or sharp cannot read it as an image at all), else the stripped, upright
 * re-encoding. Refuses (413) images beyond the pixel and frame limits
 * and (415) images with metadata that cannot be decoded or re-encoded.
 */
export async function cleanPhoto(input: string | Buffer, size: number): Promise<Buffer | null> {
  const meta = await readPhotoHeader(input);
  if (meta === null) return null;
  checkPhotoBounds(meta);
  if (!carriesMetadata(meta)) return null;
  const lossy = meta.format === 'jpeg' || meta.format === 'webp' || meta.format === 'heif';
  const animated = (meta.pages ?? 1) > 1 && (meta.format === 'gif' || meta.format === 'webp');
  let smallest: Buffer | null = null;
  for (const quality of lossy ? QUALITIES : [QUALITIES[0]]) {
    const encode = encoder(meta, quality);
    if (encode === null)
      throw new UnsupportedMediaTypeError(
        forClient(`its metadata cannot be removed from ${meta.format} ${meta.compression ?? ''} images: send it as JPEG`.trim()),
      );
    let output: Buffer;
    try {
      output = await encode(openPhoto(input, { animated }).autoOrient().keepIccProfile()).toBuffer();
    } catch {
      throw unreadablePhoto('its metadata cannot be removed');
    }
    if (smallest === null || output.byteLength < smallest.byteLength) smallest = output;
    if (output.byteLength <= size) break;
  }
  return smallest!;
}
