/**
 * Reading a client's own description, the same way from its JSON metadata
 * document (client-info.ts) and its h-app (client-page.ts, in the parse pool).
 * @module
 */
import { resolveHttpUrl } from '../core/url.js';

/** A property value or JSON member as text (a string, or an mf2 `{value}`); null otherwise. */
export function text(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null && typeof (value as { value?: unknown }).value === 'string')
    return (value as { value: string }).value;
  return null;
}

/** The value as an absolute http(s) URL resolved against `base`; null otherwise. */
export function absolute(value: unknown, base: string): string | null {
  const raw = text(value);
  return raw === null ? null : resolveHttpUrl(raw, base);
}
