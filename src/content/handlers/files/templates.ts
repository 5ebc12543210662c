/**
 * Where the files handler puts a post and which URL it gets: post type
 * detection, slugs and directory names that can never leave the site
 * directory, and path/URL templates that map both ways (a URL leads back to
 * exactly one file, a file to exactly one URL).
 * @module
 */
import { createHash, randomBytes } from 'node:crypto';
import path from 'node:path';
import { postKindOf } from '../../../core/post-kind.js';
import { escapeRegExp, trimEndOf, trimStartOf } from '../../../core/text.js';
import { DEFAULT_FILES_SECTIONS, type FilesTemplates } from '../../../config/config.js';
import type { HostUser } from '../../../contracts/accounts.js';
import type { MicropubProperties } from '../../../contracts/micropub-types.js';
import { isInside } from './site-directory.js';
import { filesTemplateProblems, filesUserDirProblem, splitFilesTemplate } from '../../../config/files-template-rules.js';

/** The post types the files handler knows: the built-in list, each with its default `{section}`. */
export const FILES_POST_TYPES: readonly string[] = Object.freeze(Object.keys(DEFAULT_FILES_SECTIONS));

/** Longest slug in code points; with a `-N` suffix and `.md` a file name stays far below 255 bytes. */
export const MAX_SLUG_LENGTH = 60;
const MAX_SLUG_BYTES = 180;
const MAX_SEGMENT_LENGTH = 64;

/** Values a post's templates are filled with. */
export interface TemplateValues {
  readonly yyyy: string;
  readonly MM: string;
  readonly dd: string;
  readonly HH: string;
  readonly mm: string;
  readonly ss: string;
  readonly slug: string;
}

/** The first non-blank string among a property's values. */
export const firstString = (values: readonly unknown[] | undefined): string | undefined =>
  values?.find((value): value is string => typeof value === 'string' && value.trim() !== '');

/** The post type of an entry (the one post-type discovery of `core/post-kind.ts`). */
export const detectPostType: (type: readonly string[], properties: MicropubProperties) => string = postKindOf;

function truncate(text: string, maxCodePoints: number, maxBytes: number): string {
  let result = '';
  for (const char of text) {
    if ([...result].length >= maxCodePoints || Buffer.byteLength(result + char) > maxBytes) break;
    result += char;
  }
  return result;
}

/**
 * A slug made only of letters, marks, digits and single hyphens, lower case,
 * at most {@link MAX_SLUG_LENGTH} code points; empty when nothing is left.
 * Compatibility normalisation (NFKC) runs first, so look-alikes such as the
 * fullwidth solidus or one-dot leaders turn into the `/` and `.` they imitate
 * and are then dropped like the real ones.
 */
export function sanitizeSlug(raw: string, maxLength = MAX_SLUG_LENGTH): string {
  const words = raw
    .normalize('NFKC')
    .toLowerCase()
    .normalize('NFKC')
    .replace(/[^\p{L}\p{M}\p{N}]+/gu, '-');
  // hyphens trimmed in one pass: `/^-+|-+$/g` is quadratic on a long run of them (issue 28, class 2)
  return trimEndOf(truncate(trimEndOf(trimStartOf(words, '-'), '-'), maxLength, MAX_SLUG_BYTES), '-');
}

/** True when the slug is exactly what {@link sanitizeSlug} would produce (so it is safe as a path segment). */
export function isCanonicalSlug(slug: string): boolean {
  return slug !== '' && sanitizeSlug(slug) === slug;
}

/** A short random slug for entries with neither `mp-slug` nor `name`. */
export function randomSlug(): string {
  return [...randomBytes(8)].map((byte) => 'abcdefghijklmnopqrstuvwxyz0123456789'[byte % 36]).join('');
}

/** A directory name from an account name or id: letters, marks, digits, `.`, `_`, `-`, never starting with a dot. */
export function sanitizeSegment(raw: string): string {
  const cleaned = raw
    .normalize('NFKC')
    .toLowerCase()
    .normalize('NFKC')
    .replace(/[^\p{L}\p{M}\p{N}._-]+/gu, '-');
  return truncate(trimEndOf(trimStartOf(cleaned, '.-'), '-'), MAX_SEGMENT_LENGTH, MAX_SLUG_BYTES);
}

/** The account's name as a directory name; a hash of the id when the name leaves nothing usable. */
export function userSegment(user: HostUser): string {
  return sanitizeSegment(user.name) || `user-${createHash('sha256').update(user.id).digest('hex').slice(0, 12)}`;
}

/** The site directory of an account inside the content directory; throws when the template leaves it. */
export function userDirectory(contentDir: string, template: string, user: HostUser): string {
  if (template === '.') return contentDir;
  const id = sanitizeSegment(user.id) || createHash('sha256').update(user.id).digest('hex').slice(0, 12);
  const relative = template.replaceAll('{user}', userSegment(user)).replaceAll('{id}', id);
  const dir = path.resolve(contentDir, relative);
  if (!isInside(dir, contentDir) || dir === contentDir)
    throw new Error(`files handler: the site directory of ${user.id} would leave the content directory`);
  return dir;
}

/** Date variables from a `published` value as written (the author's local date), else from `now` in UTC. */
export function dateValues(published: string | undefined, now: Date): Omit<TemplateValues, 'slug'> {
  const match = published === undefined ? null : /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?)?/.exec(published);
  if (match !== null)
    return { yyyy: match[1]!, MM: match[2]!, dd: match[3]!, HH: match[4] ?? '00', mm: match[5] ?? '00', ss: match[6] ?? '00' };
  const iso = now.toISOString();
  return {
    yyyy: iso.slice(0, 4),
    MM: iso.slice(5, 7),
    dd: iso.slice(8, 10),
    HH: iso.slice(11, 13),
    mm: iso.slice(14, 16),
    ss: iso.slice(17, 19),
  };
}

const VARIABLE_PATTERNS: Readonly<Record<string, string>> = {
  yyyy: '(\\d{4})',
  MM: '(\\d{2})',
  dd: '(\\d{2})',
  HH: '(\\d{2})',
  mm: '(\\d{2})',
  ss: '(\\d{2})',
  slug: '([^/]+)',
};

interface CompiledTemplate {
  readonly pattern: RegExp;
  readonly names: readonly string[];
  fill(values: TemplateValues, encode: (slug: string) => string): string;
}

/** `{section}` and `{type}` are fixed per post type; the rest become capture groups. */
function compile(template: string, fixed: Readonly<Record<string, string>>, lenientTrailingSlash: boolean): CompiledTemplate {
  const parts = splitFilesTemplate(template);
  if (parts === null) throw new Error(`files handler: template "${template}" has unpaired braces`);
  const pieces: (string | { readonly name: string })[] = [];
  const pushText = (text: string) => {
    const last = pieces.at(-1);
    if (typeof last === 'string') pieces[pieces.length - 1] = last + text;
    else pieces.push(text);
  };
  parts.literals.forEach((literal, index) => {
    pushText(literal);
    const name = parts.variables[index];
    if (name === undefined) return;
    const value = fixed[name];
    if (value !== undefined) pushText(value);
    else pieces.push({ name });
  });
  const names = pieces.flatMap((piece) => (typeof piece === 'string' ? [] : [piece.name]));
  let source = pieces
    .map((piece) => (typeof piece === 'string' ? escapeRegExp(piece) : (VARIABLE_PATTERNS[piece.name] ?? '([^/]+)')))
    .join('');
  if (lenientTrailingSlash && source.endsWith('/')) source = `${source.slice(0, -1)}/?`;
  return {
    pattern: new RegExp(`^${source}$`, 'u'),
    names,
    fill(values, encode) {
      return pieces
        .map((piece) =>
          typeof piece === 'string' ? piece : piece.name === 'slug' ? encode(values.slug) : values[piece.name as keyof TemplateValues],
        )
        .join('');
    },
  };
}

function extract(compiled: CompiledTemplate, text: string, decode: (slug: string) => string | null): TemplateValues | null {
  const match = compiled.pattern.exec(text);
  if (match === null) return null;
  const found: Record<string, string> = {};
  for (const [index, name] of compiled.names.entries()) {
    let value: string | null = match[index + 1] ?? '';
    if (name === 'slug') value = decode(value);
    if (value === null) return null;
    // a variable used twice must hold the same value both times
    if (found[name] !== undefined && found[name] !== value) return null;
    found[name] = value;
  }
  if (found.slug === undefined || !isCanonicalSlug(found.slug)) return null;
  return {
    yyyy: found.yyyy ?? '0000',
    MM: found.MM ?? '00',
    dd: found.dd ?? '00',
    HH: found.HH ?? '00',
    mm: found.mm ?? '00',
    ss: found.ss ?? '00',
    slug: found.slug,
  };
}

/** One post type's templates, compiled. */
export interface PostTypeLayout {
  readonly type: string;
  /** The directory (relative to the site directory, `/`-separated) every file of this type lies under. */
  readonly root: string;
  /** The file, relative to the site directory with `/` separators. */
  filePath(values: TemplateValues): string;
  /** The public URL on `site` (no trailing slash). */
  url(site: string, values: TemplateValues): string;
  /** Values from a `/`-separated relative file path, or null when it is not this type's file. */
  matchPath(relative: string): TemplateValues | null;
  /** Values from the part of a URL path after the site's path, or null. */
  matchUrl(rest: string): TemplateValues | null;
}

/** Compiles every post type's templates; throws when one is unusable (configuration is checked the same way at start). */
export function createLayouts(
  defaults: FilesTemplates,
  overrides: Readonly<Record<string, FilesTemplates>> = {},
): ReadonlyMap<string, PostTypeLayout> {
  const layouts = new Map<string, PostTypeLayout>();
  for (const type of FILES_POST_TYPES) {
    const templates = Object.hasOwn(overrides, type) ? overrides[type]! : defaults;
    const problems = filesTemplateProblems(templates);
    if (problems.length > 0) throw new Error(`files handler: ${type}: ${problems.join('; ')}`);
    const fixed = { section: DEFAULT_FILES_SECTIONS[type] ?? type, type };
    const filePattern = compile(templates.path, fixed, false);
    const urlPattern = compile(templates.url.slice('{site}'.length), fixed, true);
    const literalPrefix =
      filePattern.fill({ yyyy: '{', MM: '{', dd: '{', HH: '{', mm: '{', ss: '{', slug: '{' }, (slug) => slug).split('{')[0] ?? '';
    const root = literalPrefix.includes('/') ? literalPrefix.slice(0, literalPrefix.lastIndexOf('/')) : '';
    layouts.set(type, {
      type,
      root,
      filePath: (values) => filePattern.fill(values, (slug) => slug),
      url: (site, values) => `${site}${urlPattern.fill(values, encodeURIComponent)}`,
      matchPath: (relative) => extract(filePattern, relative, (slug) => slug),
      matchUrl: (rest) =>
        extract(urlPattern, rest, (slug) => {
          try {
            return decodeURIComponent(slug);
          } catch {
            return null;
          }
        }),
    });
  }
  return layouts;
}

/** Throws when the user directory template is unusable. */
export function assertUserDirTemplate(template: string): void {
  const problem = filesUserDirProblem(template);
  if (problem !== null) throw new Error(`files handler: user directory "${template}" ${problem}`);
}
