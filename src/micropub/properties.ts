/**
 * Property rules applied before anything reaches a handler.
 * @see SPEC.md "Supported entry properties", "POST create"
 * @module
 */
import type { MicropubProperties } from '../contracts/micropub-types.js';
import { excerpt, forClient, InvalidRequestError } from '../core/errors.js';
import { parseStrictHttpUrl } from '../core/url.js';

/** Properties whose values must be absolute http(s) URLs. */
export const URL_PROPERTIES: ReadonlySet<string> = new Set([
  'photo',
  'audio',
  'video',
  'in-reply-to',
  'like-of',
  'repost-of',
  'bookmark-of',
  'syndication',
]);

/** Clients can never set or edit these; configuration adds to them, never replaces them. */
export const SERVER_MANAGED_PROPERTIES: readonly string[] = Object.freeze(['uid', 'author']);

export function serverManagedSet(extra: readonly string[]): ReadonlySet<string> {
  return new Set([...SERVER_MANAGED_PROPERTIES, ...extra]);
}

function isHttpUrl(value: unknown): boolean {
  // an absolute http(s) URL; unlike client_id, fragments are fine in content URLs
  if (typeof value !== 'string') return false;
  const hash = value.indexOf('#');
  return parseStrictHttpUrl(hash === -1 ? value : value.slice(0, hash)) !== null;
}

/** A URL-typed value: a URL string, `{ value: URL, … }` (e.g. photo with alt), or embedded microformats whose `url`s are URLs. */
function isUrlValue(value: unknown): boolean {
  if (typeof value === 'string') return isHttpUrl(value);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const object = value as Record<string, unknown>;
  if ('value' in object) return isHttpUrl(object.value);
  const properties = object.properties;
  if (Array.isArray(object.type) && typeof properties === 'object' && properties !== null) {
    const urls = (properties as Record<string, unknown>).url;
    return Array.isArray(urls) && urls.length > 0 && urls.every(isHttpUrl);
  }
  return false;
}

/** 400 unless every value of every URL-typed property is an absolute http(s) URL. */
export function assertUrlValues(properties: MicropubProperties): void {
  for (const [name, values] of Object.entries(properties)) {
    if (URL_PROPERTIES.has(name) && !values.every(isUrlValue))
      throw new InvalidRequestError(forClient(`${name} must hold absolute http(s) URLs`));
  }
}

export function assertNotServerManaged(names: Iterable<string>, managed: ReadonlySet<string>): void {
  for (const name of names) {
    if (managed.has(name)) throw new InvalidRequestError(forClient(`${name} is managed by the server`));
  }
}

/** Path separators, control characters and leading dots removed. */
export function sanitizeSlug(slug: string): string {
  return slug.replace(/[/\\\u0000-\u001f\u007f]/g, '').replace(/^\.+/, '');
}

/** Applies the mp-slug rule in place of the submitted values; an empty result drops the property. */
export function withSanitizedSlug(properties: MicropubProperties): MicropubProperties {
  const slugs = properties['mp-slug'];
  if (slugs === undefined) return properties;
  const { 'mp-slug': _dropped, ...rest } = properties;
  const clean = slugs.map((slug) => (typeof slug === 'string' ? sanitizeSlug(slug) : '')).filter((slug) => slug !== '');
  return clean.length === 0 ? rest : { ...rest, 'mp-slug': clean };
}

/** 400 unless the value is a map of property names to arrays. */
export function assertPropertyMap(value: unknown, what: string): asserts value is MicropubProperties {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new InvalidRequestError(forClient(`${what} must be an object`));
  for (const [name, values] of Object.entries(value)) {
    if (!Array.isArray(values)) throw new InvalidRequestError(forClient(`${what}.${excerpt(name)} must be an array`));
  }
}
