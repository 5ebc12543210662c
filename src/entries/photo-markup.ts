/**
 * A photo of an entry as an `<img>`: alt text always present (empty when the
 * entry gives none), and, for a photo indiestack stores, a `srcset` of its
 * sized copies (`?w=N`, see media/photo-variants.ts) so a phone downloads
 * a phone-sized copy: a photo it serves itself (same origin as the entry,
 * below `/indieweb/media/`) at its own URL, a photo in the S3 bucket
 * (below `{bucket URL}/indieweb/media/`) at `{base}/indieweb/media/<name>`,
 * since the bucket cannot take the query. `src` stays the original, the
 * value `u-photo` parses to.
 * @module
 */
import { PHOTO_WIDTHS } from '../core/photo-widths.js';
import { html, type SafeHtml } from '../web/html.js';
import { httpUrl } from './safe-url.js';

const PHOTO_NAME = /^[A-Za-z0-9_-]{16,64}\.(?:jpg|png|webp|avif|gif|heic|heif)$/;
const SERVED_PHOTO = /\/indieweb\/media\/[A-Za-z0-9_-]{16,64}\.(?:jpg|png|webp|avif|gif|heic|heif)$/;
/** The entry column is at most 42rem wide (style.ts). */
const SIZES = '(max-width: 44rem) 100vw, 42rem';

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Photos in the S3 bucket whose sized copies indiestack answers: the bucket's public URL and indiestack's base URL (both without a trailing slash). */
export interface BucketPhotos {
  readonly bucketUrl: string;
  readonly baseUrl: string;
}

/** Where `url` answers `?w=N`: itself for a photo we serve, `{base}/indieweb/media/<name>` for one in the bucket; else null. */
function sizedUrlOf(url: URL, site: URL, bucket: BucketPhotos | null): string | null {
  if (url.search !== '' || url.hash !== '') return null;
  if (bucket !== null) {
    // first: a bucket on the site's own origin (a path of it) serves its files itself, query or not
    const prefix = `${bucket.bucketUrl}/indieweb/media/`;
    if (url.href.startsWith(prefix)) {
      const name = url.href.slice(prefix.length);
      return PHOTO_NAME.test(name) ? `${bucket.baseUrl}/indieweb/media/${name}` : null;
    }
  }
  return url.origin === site.origin && SERVED_PHOTO.test(url.pathname) ? url.href : null;
}

/** The `srcset` for `source`, or null when it is not one of our stored photos. */
export function photoSrcset(source: string, siteUrl: string, bucket: BucketPhotos | null = null): string | null {
  let url: URL;
  let site: URL;
  try {
    url = new URL(source);
    site = new URL(siteUrl);
  } catch {
    return null;
  }
  const sized = sizedUrlOf(url, site, bucket);
  if (sized === null) return null;
  return PHOTO_WIDTHS.map((width) => `${sized}?w=${width} ${width}w`).join(', ');
}

/** The `<img class="u-photo">` of a photo value (`url` or `{ value, alt }`), or null without an http(s) URL. */
export function renderPhoto(value: unknown, entryUrl: string, bucket: BucketPhotos | null = null): SafeHtml | null {
  const source = httpUrl(isObject(value) ? value.value : value);
  if (source === null) return null;
  const alt = isObject(value) && typeof value.alt === 'string' ? value.alt : '';
  const srcset = photoSrcset(source, entryUrl, bucket);
  if (srcset === null) return html`<img class="u-photo" src="${source}" alt="${alt}" loading="lazy">`;
  return html`<img class="u-photo" src="${source}" srcset="${srcset}" sizes="${SIZES}" alt="${alt}" loading="lazy" decoding="async">`;
}
