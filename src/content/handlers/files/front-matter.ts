/**
 * A post as a Markdown file: Micropub properties in YAML or TOML front
 * matter, `content` as the body. The mapping round-trips exactly (what is
 * written reads back as the same properties) and uses the keys static site
 * generators expect: `name` is `title`, `published` is `date`, `category` is
 * `tags`.
 * @module
 */
import * as TOML from 'smol-toml';
import { parseDocument, stringify as stringifyYaml } from 'yaml';
import type { FilesFrontMatterFormat } from '../../../config/config.js';
import { HandlerValueError } from '../../../contracts/handler-errors.js';
import type { MicropubProperties } from '../../../contracts/micropub-types.js';
import { escapeRegExp } from '../../../core/text.js';

/** A post read from or written to a file. */
export interface PostDocument {
  /** Microformats type, e.g. `['h-entry']`. */
  readonly type: readonly string[];
  /** Post type recorded in the file (`post-type`), null when absent. */
  readonly postType: string | null;
  readonly slug: string | null;
  readonly properties: MicropubProperties;
  /** Front-matter keys that mean something to the site generator (`draft`, `layout`, `aliases`…), kept as they are. */
  readonly siteKeys: Readonly<Record<string, unknown>>;
  /** The format the file used; null for a file without front matter. */
  readonly format: FilesFrontMatterFormat | null;
}

/** Keys the handler writes itself; never read as properties. */
const MANAGED_KEYS = new Set(['title', 'date', 'tags', 'slug', 'post-type', 'h', 'content-format', 'content-text', 'mf2']);
/**
 * Keys a site generator reads with its own meaning: a property by that name is
 * kept in the `mf2` map instead, and a value found in a file is preserved on
 * update but not turned into a property.
 */
const SITE_KEYS = new Set([
  // Micropub names whose value cannot take the SSG-friendly key (`published: false` hides a Jekyll post)
  ...['content', 'name', 'published', 'category'],
  // Hugo
  ...[
    'aliases',
    'build',
    'cascade',
    'draft',
    'expirydate',
    'headless',
    'iscjklanguage',
    'keywords',
    'lastmod',
    'layout',
    'linktitle',
    'markup',
    'menus',
    'menu',
    'outputs',
    'params',
    'publishdate',
    'resources',
    'sitemap',
    'translationkey',
    'type',
    'url',
    'weight',
  ],
  // Jekyll and Eleventy
  ...[
    'categories',
    'permalink',
    'pagination',
    'eleventyexcludefromcollections',
    'eleventycomputed',
    'eleventyimport',
    'eleventynavigation',
  ],
]);
const isSiteKey = (key: string) => SITE_KEYS.has(key.toLowerCase());

/** Property names a file can hold: the microformats vocabulary plus `mp-*` commands. */
const PROPERTY_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;

export class FrontMatterError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'FrontMatterError';
  }
}

const isStringList = (values: readonly unknown[] | undefined): values is string[] =>
  values !== undefined && values.length > 0 && values.every((value) => typeof value === 'string');
/** A one-value property is written as the value itself; arrays inside values are never unwrapped. */
const scalarize = (values: readonly unknown[]): unknown => (values.length === 1 && !Array.isArray(values[0]) ? values[0] : values);
const listOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : [value]);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/** Throws {@link HandlerValueError} for what a file cannot hold: odd property names, and (TOML) null values. */
export function assertStorable(properties: MicropubProperties, format: FilesFrontMatterFormat): void {
  for (const [name, values] of Object.entries(properties)) {
    if (!PROPERTY_NAME.test(name)) throw new HandlerValueError(`property name "${name.slice(0, 40)}" cannot be stored in a file`);
    if (!Array.isArray(values)) throw new HandlerValueError(`property ${name} is not a list`);
    if (format === 'toml' && containsNull(values)) throw new HandlerValueError(`property ${name} holds null, which TOML cannot store`);
  }
}

function containsNull(value: unknown): boolean {
  if (value === null || value === undefined) return true;
  if (Array.isArray(value)) return value.some(containsNull);
  if (typeof value === 'object') return Object.values(value).some(containsNull);
  return false;
}

/** The body a `content` property becomes, with the front-matter keys describing it; null when it stays in the front matter. */
function bodyOf(content: readonly unknown[] | undefined): { body: string; keys: Record<string, string> } | null {
  if (content?.length !== 1) return null;
  const value = content[0];
  if (typeof value === 'string') return value === '' ? null : { body: value, keys: {} };
  if (!isPlainObject(value)) return null;
  const { html, value: text, ...rest } = value;
  if (typeof html !== 'string' || html === '' || Object.keys(rest).length > 0 || (text !== undefined && typeof text !== 'string'))
    return null;
  return { body: html, keys: text === undefined ? { 'content-format': 'html' } : { 'content-format': 'html', 'content-text': text } };
}

/** Renders a post as file text. */
export function renderPost(post: Omit<PostDocument, 'format'>, format: FilesFrontMatterFormat): string {
  const { properties } = post;
  const front: Record<string, unknown> = {};
  const mf2: Record<string, unknown> = {};
  const set = (target: Record<string, unknown>, key: string, value: unknown) =>
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });

  if (isStringList(properties.name)) front.title = scalarize(properties.name);
  if (properties.published?.length === 1 && typeof properties.published[0] === 'string') front.date = properties.published[0];
  if (post.slug !== null) front.slug = post.slug;
  if (post.postType !== null) front['post-type'] = post.postType;
  if (post.type.length !== 1 || post.type[0] !== 'h-entry') front.h = scalarize(post.type.map((type) => type.replace(/^h-/, '')));
  if (isStringList(properties.category)) front.tags = [...properties.category];

  const body = bodyOf(properties.content);
  for (const [name, values] of Object.entries(properties)) {
    if (
      (name === 'name' && front.title !== undefined) ||
      (name === 'published' && front.date !== undefined) ||
      (name === 'category' && front.tags !== undefined)
    )
      continue;
    if (name === 'content' && body !== null) continue;
    if (MANAGED_KEYS.has(name) || isSiteKey(name) || Object.hasOwn(post.siteKeys, name)) set(mf2, name, values);
    else set(front, name, scalarize(values));
  }
  for (const [key, value] of Object.entries(post.siteKeys)) if (!Object.hasOwn(front, key)) set(front, key, value);
  if (body !== null) Object.assign(front, body.keys);
  if (Object.keys(mf2).length > 0) front.mf2 = mf2;

  const tail = body === null ? '' : `\n${body.body}\n`;
  if (format === 'toml') {
    const text = TOML.stringify(front);
    return `+++\n${text}${text === '' || text.endsWith('\n') ? '' : '\n'}+++\n${tail}`;
  }
  const text = Object.keys(front).length === 0 ? '' : stringifyYaml(front, { lineWidth: 0 });
  return `---\n${text}---\n${tail}`;
}

/** Plain JSON-like data: dates become ISO strings, objects get their own (never inherited) keys. */
function toPlain(value: unknown): unknown {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? String(value) : value.toISOString();
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (Array.isArray(value)) return value.map(toPlain);
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, toPlain(inner)]));
  return value;
}

function parseFront(text: string, format: FilesFrontMatterFormat): Record<string, unknown> {
  let data: unknown;
  try {
    if (format === 'toml') {
      data = TOML.parse(text);
    } else {
      const document = parseDocument(text, { uniqueKeys: true });
      if (document.errors.length > 0) throw document.errors[0];
      data = document.toJS({ maxAliasCount: 100 });
    }
  } catch (error) {
    throw new FrontMatterError(`front matter is not valid ${format.toUpperCase()}`, { cause: error });
  }
  if (data === null || data === undefined) return {};
  if (!isPlainObject(data)) throw new FrontMatterError('front matter is not a map');
  return toPlain(data) as Record<string, unknown>;
}

const DELIMITERS: Readonly<Record<string, FilesFrontMatterFormat>> = { '---': 'yaml', '+++': 'toml' };

/** Reads file text back into a post; throws {@link FrontMatterError} when the front matter cannot be read. */
export function parsePost(raw: string): PostDocument {
  const text = raw.replace(/^\uFEFF/, '');
  const opening = /^(---|\+\+\+)[ \t]*\r?\n/.exec(text);
  let front: Record<string, unknown> = {};
  let rest = text;
  let format: FilesFrontMatterFormat | null = null;
  if (opening !== null) {
    const delimiter = opening[1]!;
    format = DELIMITERS[delimiter]!;
    const after = text.slice(opening[0].length);
    const closing = new RegExp(`(^|\\r?\\n)${escapeRegExp(delimiter)}[ \\t]*(\\r?\\n|$)`).exec(after);
    if (closing === null) throw new FrontMatterError('front matter is not closed');
    front = parseFront(after.slice(0, closing.index), format);
    rest = after.slice(closing.index + closing[0].length);
  }
  const body = rest.replace(/^\r?\n/, '').replace(/\r?\n$/, '');

  const properties: Record<string, unknown[]> = {};
  const siteKeys: Record<string, unknown> = {};
  const set = (target: Record<string, unknown>, key: string, value: unknown) =>
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  for (const [key, value] of Object.entries(front)) {
    if (key === 'title') properties.name = listOf(value);
    else if (key === 'date') properties.published = [String(value)];
    else if (key === 'tags') properties.category = listOf(value);
    else if (MANAGED_KEYS.has(key)) continue;
    else if (isSiteKey(key)) set(siteKeys, key, value);
    else set(properties, key, listOf(value));
  }
  if (isPlainObject(front.mf2)) {
    for (const [key, value] of Object.entries(front.mf2)) set(properties, key, listOf(value));
  }
  if (body !== '') {
    if (front['content-format'] === 'html')
      properties.content = [typeof front['content-text'] === 'string' ? { html: body, value: front['content-text'] } : { html: body }];
    else properties.content = [body];
  }

  const h = front.h === undefined ? ['entry'] : listOf(front.h).map(String);
  return {
    type: h.map((name) => `h-${name}`),
    postType: typeof front['post-type'] === 'string' ? front['post-type'] : null,
    slug: typeof front.slug === 'string' ? front.slug : null,
    properties,
    siteKeys,
    format,
  };
}
