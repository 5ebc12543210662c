/**
 * Sized copies of a stored photo: `?w=N` on its URL, N in
 * {@link VARIANT_WIDTHS}, in the format the request's `Accept` prefers among
 * AVIF, WebP and JPEG. Each copy is made once and kept beside the original
 * (`indieweb/variants/<name>/<w>.<ext>`, variant-keys.ts: below the media
 * directory here, in the bucket with S3 (s3-variants.ts); removed with the
 * original); concurrent first requests in one process share one making, and
 * the copy is written to a temporary name and renamed, so two processes
 * making it at once both leave one whole file.
 * @module
 */
import { mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import accepts from 'accepts';
import type { IncomingMessage } from 'node:http';
import { randomId } from '../core/crypto.js';
import { forClient, InvalidRequestError } from '../core/errors.js';
import { PHOTO_WIDTHS } from './photo-srcset.js';
import { checkPhotoBounds, openPhoto, PHOTO_TYPES, photoJob, readPhotoHeader, unreadablePhoto } from './photo-work.js';
import { VARIANT_FORMATS as FORMATS, type VariantType } from './variant-keys.js';

export type { VariantType };
export const VARIANT_WIDTHS: readonly number[] = PHOTO_WIDTHS;

/** The width `?w=` asks for, or null without one; any other value is a 400 naming the allowed ones. */
export function parseVariantWidth(value: unknown): number | null {
  if (value === undefined) return null;
  const width = typeof value === 'string' && /^[1-9][0-9]{0,4}$/.test(value) ? Number(value) : Number.NaN;
  if (!VARIANT_WIDTHS.includes(width)) throw new InvalidRequestError(forClient(`w must be one of ${VARIANT_WIDTHS.join(', ')}`));
  return width;
}

/** AVIF, WebP or JPEG, whichever the request's `Accept` prefers; JPEG when it names none of them (or only wildcards). */
export function variantType(request: IncomingMessage): VariantType {
  if (request.headers.accept === undefined || request.headers.accept === '') return 'image/jpeg';
  const chosen = accepts(request).type(['image/jpeg', 'image/webp', 'image/avif']);
  return typeof chosen === 'string' && chosen in FORMATS ? (chosen as VariantType) : 'image/jpeg';
}

/** Whether a stored file of this type has sizes. */
export function hasVariants(mediaType: string): boolean {
  return PHOTO_TYPES.has(mediaType);
}

/** The resized copy of `input`: at most `width` wide (never wider than the original), upright, without metadata, sRGB. */
export async function makeVariant(input: string | Buffer, width: number, type: VariantType): Promise<Buffer> {
  const meta = await readPhotoHeader(input);
  if (meta === null) throw unreadablePhoto('it has no sizes');
  checkPhotoBounds(meta);
  return photoJob(async () => {
    const image = openPhoto(input).autoOrient().resize({ width, withoutEnlargement: true });
    const encoded =
      type === 'image/avif'
        ? image.avif({ quality: 50, effort: 2 })
        : type === 'image/webp'
          ? image.webp({ quality: 80 })
          : image.jpeg({ quality: 82, mozjpeg: true });
    try {
      return await encoded.toBuffer();
    } catch {
      throw unreadablePhoto('it has no sizes');
    }
  });
}

export interface LocalVariants {
  /** The file of the variant, made first if need be. */
  pathOf(originalPath: string, variantDir: string, width: number, type: VariantType): Promise<string>;
  /** Variants made so far in this process (for tests and metrics). */
  readonly made: () => number;
}

export function createLocalVariants(): LocalVariants {
  const inFlight = new Map<string, Promise<string>>();
  let made = 0;
  async function produce(originalPath: string, target: string, width: number, type: VariantType): Promise<string> {
    if ((await stat(target).catch(() => null)) !== null) return target;
    const output = await makeVariant(originalPath, width, type);
    await mkdir(path.dirname(target), { recursive: true });
    const partial = `${target}.${randomId()}.partial`;
    try {
      await writeFile(partial, output, { flag: 'wx', mode: 0o644 });
      await rename(partial, target);
    } catch (error) {
      await rm(partial, { force: true });
      throw error;
    }
    made += 1;
    return target;
  }
  return {
    made: () => made,
    pathOf(originalPath, variantDir, width, type) {
      const target = path.join(variantDir, `${width}.${FORMATS[type]}`);
      let pending = inFlight.get(target);
      if (pending === undefined) {
        pending = produce(originalPath, target, width, type).finally(() => inFlight.delete(target));
        inFlight.set(target, pending);
      }
      return pending;
    },
  };
}
