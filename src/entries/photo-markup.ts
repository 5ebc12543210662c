/**
 * A photo of an entry as an `<img>`: alt text always present (empty when the
 * entry gives none), and, for a photo indiestack stores and serves itself
 * (same origin as the entry, below `/indieweb/media/`), a `srcset` of its
 * sized copies (`?w=N`, see media/photo-variants.ts) so a phone downloads
 * a phone-sized copy. `src` stays the original, the value `u-photo` parses to.
 * @module
 */
import { PHOTO_WIDTHS } from '../core/photo-widths.js';
import { html, type SafeHtml } from '../web/html.js';
import { httpUrl } from './safe-url.js';

const SERVED_PHOTO = /\/indieweb\/media\/[A-Za-z0-9_-]{16,64}\.(?:jpg|png|webp|avif|gif|heic)$/;
/** The entry column is at most 42rem wide (style.ts). */
const SIZES = '(max-width: 44rem) 100vw, 42rem';

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The `srcset` for `source`, or null when it is not one of our served photos. */
export function photoSrcset(source: string, siteUrl: string): string | null {
  let url: URL;
  let site: URL;
  try {
    url = new URL(source);
    site = new URL(siteUrl);
  } catch {
    return null;
  }
  if (url.origin !== site.origin || url.search !== '' || url.hash !== '' || !SERVED_PHOTO.test(url.pathname)) return null;
  return PHOTO_WIDTHS.map((width) => `${url.href}?w=${width} ${width}w`).join(', ');
}

/** The `<img class="u-photo">` of a photo value (`url` or `{ value, alt }`), or null without an http(s) URL. */
export function renderPhoto(value: unknown, entryUrl: string): SafeHtml | null {
  const source = httpUrl(isObject(value) ? value.value : value);
  if (source === null) return null;
  const alt = isObject(value) && typeof value.alt === 'string' ? value.alt : '';
  const srcset = photoSrcset(source, entryUrl);
  if (srcset === null) return html`<img class="u-photo" src="${source}" alt="${alt}" loading="lazy">`;
  return html`<img class="u-photo" src="${source}" srcset="${srcset}" sizes="${SIZES}" alt="${alt}" loading="lazy" decoding="async">`;
}
