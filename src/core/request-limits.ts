/**
 * Request body shape limits and their defaults, applied by the web kit's body
 * parsers, multipart reading (media) and Micropub request parsing; the
 * settings `INDIEWEB_MAX_*` override them.
 * @module
 */

/** Shape limits applied to request bodies before any route sees them (4xx when crossed). */
export interface RequestLimits {
  /** Deepest nesting of arrays/objects in a JSON body. */
  readonly jsonDepth: number;
  /** Keys in one JSON object (Micropub properties), and properties of a form/multipart Micropub create. */
  readonly properties: number;
  /** Items in one JSON array (values of one property). */
  readonly valuesPerProperty: number;
  /** Parameters in a form-encoded body. */
  readonly formFields: number;
  /** Text fields in a multipart body (all of them together hold at most maxBodyBytes). */
  readonly multipartFields: number;
  /** Bytes of one form/multipart field name or JSON object key. */
  readonly fieldNameBytes: number;
}

/** Shape limits of request bodies (see {@link RequestLimits}). */
export const DEFAULT_REQUEST_LIMITS: RequestLimits = Object.freeze({
  jsonDepth: 32,
  properties: 200,
  valuesPerProperty: 1000,
  formFields: 1000,
  multipartFields: 100,
  fieldNameBytes: 256,
});
