/**
 * The `srcset` of a stored photo's sized copies (`?w=N`, photo-variants.ts),
 * for pages that show it. The copies are answered at the URL
 * `MediaLibrary.sizedUrlOf` tells: the photo's own URL with the local
 * storage, `{base}/indieweb/media/<name>` with S3 (whose bucket cannot take
 * the query); a storage of the host's has none.
 * @module
 */
import { PHOTO_WIDTHS } from '../core/photo-widths.js';

export { PHOTO_WIDTHS };

/** `sizedUrl?w=320 320w, …` up to `maxWidth`, or null without a URL that answers `?w=N`. */
export function photoSrcset(sizedUrl: string | null, maxWidth = 2048): string | null {
  if (sizedUrl === null || sizedUrl.includes('?')) return null;
  return PHOTO_WIDTHS.filter((width) => width <= maxWidth)
    .map((width) => `${sizedUrl}?w=${width} ${width}w`)
    .join(', ');
}
