/**
 * The h-card of a profile: microformats property names mapped to arrays of
 * text values; URLs and e-mail addresses inside are validated, and every
 * problem is reported at once, per property.
 * @see SPEC.md "Profile (h-card data)"
 * @module
 */
import { HCardValidationError, type HCardProblem } from '../core/errors.js';
import type { HCard } from '../storage/repositories/profiles.js';

/** Properties whose values are URLs (rendered as u-*). */
export const URL_PROPERTIES: ReadonlySet<string> = new Set(['url', 'photo', 'logo', 'uid', 'key', 'sound']);
export const EMAIL_PROPERTY = 'email';
export const MAX_PROPERTIES = 50;
export const MAX_VALUES = 20;
export const MAX_VALUE_LENGTH = 2000;

const PROPERTY_NAME = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;
// the error lives in the catalogue; named here too, where hosts and pages have always found it
export { HCardValidationError, type HCardProblem };

/** A character an e-mail address here never has (besides a second `@`). */
const NOT_IN_EMAIL = /[\s<>()[\]\\,;:"]/;

/**
 * `local@domain.tld`: one `@`, something before it, a dot inside the part after it, none of
 * {@link NOT_IN_EMAIL}. Read in one pass: the single pattern it replaces backtracked over every dot
 * of the domain (quadratic, issue 28 class 2).
 */
function isEmail(value: string): boolean {
  const at = value.indexOf('@');
  if (at <= 0 || value.includes('@', at + 1) || NOT_IN_EMAIL.test(value)) return false;
  return value.slice(at + 2, -1).includes('.');
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (
      (url.protocol === 'http:' || url.protocol === 'https:') &&
      url.hostname !== '' &&
      url.username === '' &&
      url.password === '' &&
      !/\s/.test(value)
    );
  } catch {
    return false;
  }
}

/**
 * Checks the structure and values, and returns the normalized h-card:
 * values trimmed, empty ones dropped, e-mail addresses as `mailto:` URLs.
 * Throws {@link HCardValidationError} listing every problem.
 */
export function validateHCard(input: unknown): HCard {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw new HCardValidationError([{ field: 'h_card', message: 'must be an object of property names to lists of values' }]);
  const problems: HCardProblem[] = [];
  const entries = Object.entries(input as Record<string, unknown>);
  if (entries.length > MAX_PROPERTIES) problems.push({ field: 'h_card', message: `at most ${MAX_PROPERTIES} properties` });
  const card: HCard = {};
  for (const [name, raw] of entries) {
    if (!PROPERTY_NAME.test(name)) {
      problems.push({ field: name, message: 'is not a microformats property name (lowercase letters, digits and dashes)' });
      continue;
    }
    if (!Array.isArray(raw)) {
      problems.push({ field: name, message: 'must be a list of values' });
      continue;
    }
    if (raw.length > MAX_VALUES) problems.push({ field: name, message: `at most ${MAX_VALUES} values` });
    const values: string[] = [];
    for (const value of raw) {
      if (typeof value !== 'string') {
        problems.push({ field: name, message: 'values must be text' });
        continue;
      }
      const text = value.trim();
      if (text === '') continue;
      if (text.length > MAX_VALUE_LENGTH) {
        problems.push({ field: name, message: `values must be at most ${MAX_VALUE_LENGTH} characters` });
        continue;
      }
      if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(text)) {
        problems.push({ field: name, message: 'values must not contain control characters' });
        continue;
      }
      if (URL_PROPERTIES.has(name) && !isHttpUrl(text)) {
        problems.push({ field: name, message: `"${text.slice(0, 100)}" is not an absolute http(s) URL` });
        continue;
      }
      if (name === EMAIL_PROPERTY) {
        const address = text.replace(/^mailto:/i, '');
        if (!isEmail(address)) {
          problems.push({ field: name, message: `"${text.slice(0, 100)}" is not an e-mail address` });
          continue;
        }
        values.push(`mailto:${address}`);
        continue;
      }
      values.push(text);
    }
    if (values.length > 0) card[name] = values;
  }
  if (problems.length > 0) throw new HCardValidationError(problems);
  return card;
}

/** The columns kept in sync with the h-card. */
export function derivedFields(card: HCard): { name: string | null; photoUrl: string | null; url: string | null } {
  return { name: card.name?.[0] ?? null, photoUrl: card.photo?.[0] ?? null, url: card.url?.[0] ?? null };
}
