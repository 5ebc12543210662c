/**
 * Where the sized copies of a stored photo live, on every built-in storage:
 * `indieweb/variants/<file name of the original>/<w>.<avif|webp|jpg>`, below
 * the media directory (local) or in the bucket (S3). The original
 * `indieweb/media/abc.jpg` has its copies under `indieweb/variants/abc.jpg/`.
 * No sharp here: the S3 storage uses these keys to delete copies.
 * @see docs/media.md "Photos"
 * @module
 */
import { PHOTO_WIDTHS } from '../core/photo-widths.js';

/** The formats of the copies and their file suffixes. */
export const VARIANT_FORMATS = { 'image/jpeg': 'jpg', 'image/webp': 'webp', 'image/avif': 'avif' } as const;
export type VariantType = keyof typeof VARIANT_FORMATS;

const ORIGINAL_KEY = /^indieweb\/media\/([A-Za-z0-9_-]{16,64}\.[a-z0-9]{1,8})$/;
/** Suffixes the stored photos get (sniff.ts): only these can have copies. */
const PHOTO_SUFFIXES = /\.(?:jpg|png|webp|avif|gif|heic|heif)$/;

/** `indieweb/variants/<name>`: the folder (prefix) of a stored file's copies. Throws on anything but a media key. */
export function variantPrefixOf(key: string): string {
  const match = ORIGINAL_KEY.exec(key);
  if (match === null) throw new Error(`invalid media key ${key}`);
  return `indieweb/variants/${match[1]}`;
}

/** The key of one copy: `indieweb/variants/<name>/<w>.<ext>`. */
export function variantKeyOf(key: string, width: number, type: VariantType): string {
  return `${variantPrefixOf(key)}/${width}.${VARIANT_FORMATS[type]}`;
}

/** Every key a copy of `key` may have (4 widths × 3 formats); none for a file that is not a photo (or a key that is not a media key). */
export function variantKeysOf(key: string): string[] {
  if (!PHOTO_SUFFIXES.test(key) || !ORIGINAL_KEY.test(key)) return [];
  const types = Object.keys(VARIANT_FORMATS) as VariantType[];
  return PHOTO_WIDTHS.flatMap((width) => types.map((type) => variantKeyOf(key, width, type)));
}
