/**
 * fitWithin: a copy of a photo for a network's limits (issue 32 item 6), and
 * the single making of a sized copy when many ask at once.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { fitWithin } from '../../src/media/photo-fit.js';
import { createLocalVariants } from '../../src/media/photo-variants.js';
import { phonePhoto, SECRET_SERIAL } from '../helpers/photos.js';

/** A noisy 2400×1600 JPEG of several MB: what a phone takes. */
async function bigNoisyPhoto(): Promise<Buffer> {
  return sharp({
    create: { width: 2400, height: 1600, channels: 3, background: '#777', noise: { type: 'gaussian', mean: 128, sigma: 60 } },
  })
    .withExif({ IFD2: { BodySerialNumber: SECRET_SERIAL } })
    .jpeg({ quality: 95 })
    .toBuffer();
}

describe('fitWithin', () => {
  it("fits a photo of several MB within Bluesky's 1,000,000 bytes and a pixel limit, without metadata", async () => {
    const photo = await bigNoisyPhoto();
    expect(photo.byteLength).toBeGreaterThan(1_000_000);
    const fitted = await fitWithin(photo, { maxBytes: 1_000_000, maxPixels: 2_000_000 });
    expect(fitted.bytes.byteLength).toBeLessThanOrEqual(1_000_000);
    expect(fitted.mediaType).toBe('image/jpeg');
    const meta = await sharp(fitted.bytes).metadata();
    expect(meta.width! * meta.height!).toBeLessThanOrEqual(2_000_000);
    expect([meta.width, meta.height]).toEqual([fitted.width, fitted.height]);
    expect(Math.abs(meta.width! / meta.height! - 1.5)).toBeLessThan(0.01);
    expect(meta.exif).toBeUndefined();
    expect(fitted.bytes.includes(SECRET_SERIAL)).toBe(false);
  });

  it('shrinks the sides when a lower quality is not enough', async () => {
    const fitted = await fitWithin(await bigNoisyPhoto(), { maxBytes: 60_000, maxPixels: 50_000_000 });
    expect(fitted.bytes.byteLength).toBeLessThanOrEqual(60_000);
    expect(fitted.width).toBeLessThan(2400);
  });

  it('turns a sideways phone photo upright', async () => {
    const fitted = await fitWithin(await phonePhoto(), { maxBytes: 1_000_000, maxPixels: 1_000_000 });
    expect([fitted.width, fitted.height]).toEqual([400, 600]);
  });

  it('refuses what is not an image, and limits that are not positive', async () => {
    await expect(fitWithin(Buffer.from('not an image at all'), { maxBytes: 1000, maxPixels: 1000 })).rejects.toThrow(
      /could not be decoded/,
    );
    await expect(fitWithin(await phonePhoto(), { maxBytes: 0, maxPixels: 1000 })).rejects.toThrow(RangeError);
  });
});

describe('sized copies made once', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'indiestack-variants-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('eight concurrent first requests make one copy; later ones reuse the stored file', async () => {
    const original = path.join(dir, 'original.jpg');
    writeFileSync(original, await phonePhoto(1000, 800));
    const variants = createLocalVariants();
    const variantDir = path.join(dir, 'variants', 'original.jpg');
    const paths = await Promise.all(Array.from({ length: 8 }, () => variants.pathOf(original, variantDir, 640, 'image/webp')));
    expect(new Set(paths).size).toBe(1);
    expect(variants.made()).toBe(1);
    await variants.pathOf(original, variantDir, 640, 'image/webp');
    expect(variants.made()).toBe(1);
    // another instance (a fresh single-flight map) finds the stored copy too
    const other = createLocalVariants();
    await other.pathOf(original, variantDir, 640, 'image/webp');
    expect(other.made()).toBe(0);
    expect(await readdir(variantDir)).toEqual(['640.webp']);
  });
});
