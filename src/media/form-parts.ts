/**
 * What the two multipart forms (the media endpoint and the admin's Write
 * form) share around {@link readParts}: the limits they read a body with,
 * and how a text field joins the fields read so far.
 * @module
 */
import type { IncomingMessage } from 'node:http';
import type { RequestLimits } from '../core/request-limits.js';
import { readParts, type Part } from './multipart.js';

export interface FormLimits {
  /** Per-upload limits (`INDIEWEB_MEDIA_MAX_*`). */
  readonly limits: { readonly maxUploadBytes: number | null; readonly maxUploadCount: number | null };
  /** Bytes of all text fields together. */
  readonly fieldBytes: number;
  readonly requestLimits: Pick<RequestLimits, 'multipartFields' | 'fieldNameBytes'>;
}

/** The parts of an upload form's body, read within the configured limits. */
export function readFormParts(raw: IncomingMessage, options: FormLimits): AsyncGenerator<Part> {
  return readParts(raw, {
    fileBytes: options.limits.maxUploadBytes,
    files: options.limits.maxUploadCount,
    fieldBytes: options.fieldBytes,
    fields: options.requestLimits.multipartFields,
    nameBytes: options.requestLimits.fieldNameBytes,
  });
}

/** Adds a text field: the first value is a string, a repeated name becomes a list in order. */
export function addField(fields: Record<string, string | string[]>, name: string, value: string): void {
  const existing = fields[name];
  if (existing === undefined) fields[name] = value;
  else if (Array.isArray(existing)) existing.push(value);
  else fields[name] = [existing, value];
}
