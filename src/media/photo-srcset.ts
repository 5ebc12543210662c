/**
 * The `srcset` of a stored photo's sized copies (`?w=N`, photo-variants.ts),
 * for pages that show it; only photos indiestack serves itself (the local
 * storage, below `{base}/indieweb/media/`) have copies.
 * @module
 */
import { PHOTO_WIDTHS } from '../core/photo-widths.js';
import { PHOTO_TYPES } from './photo-work.js';

export { PHOTO_WIDTHS };

/** `url?w=320 320w, …` up to `maxWidth`, or null when `url` is not a photo served by us at `baseUrl`. */
export function photoSrcset(url: string, mediaType: string, baseUrl: string, maxWidth = 2048): string | null {
  if (!PHOTO_TYPES.has(mediaType) || !url.startsWith(`${baseUrl}/indieweb/media/`) || url.includes('?')) return null;
  return PHOTO_WIDTHS.filter((width) => width <= maxWidth)
    .map((width) => `${url}?w=${width} ${width}w`)
    .join(', ');
}
