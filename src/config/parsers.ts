/**
 * The value syntaxes of the settings table: whole numbers with bounds,
 * `none`-able limits, booleans, one-of choices, lists, module specifiers,
 * directories and URLs. Each parser sees the trimmed, non-empty text of one
 * variable and says what is wrong with it without naming the variable.
 * @module
 */
import path from 'node:path';
import { parseStrictHttpUrl } from '../core/url.js';
import type { DatabaseLocation } from './config.js';
import { redactUrl } from './redact.js';
import type { Parsed, Parser } from './setting.js';
import { trimEndOf } from '../core/text.js';

export function accept<T>(value: T): Parsed<T> {
  return { ok: true, value };
}

export function reject(...problems: string[]): Parsed<never> {
  return { ok: false, problems };
}

const shownAsIs = (value: string): string => value;

/** A whole number from `min` (default 0) to `max` (default the largest safe integer). */
export function integer(range: { min?: number; max?: number } = {}): Parser<number> {
  const min = range.min ?? 0;
  const max = range.max ?? Number.MAX_SAFE_INTEGER;
  return {
    parse: (raw) =>
      /^\d+$/.test(raw) && Number(raw) >= min && Number(raw) <= max
        ? accept(Number(raw))
        : reject(`"${raw}" is not a whole number between ${min} and ${max}`),
    show: String,
  };
}

/** A whole number from `min` up, or `none` (any case) for no limit (null). */
export function limit(range: { min?: number } = {}): Parser<number | null> {
  const bounded = integer({ min: range.min ?? 0 });
  return {
    parse: (raw, context) => {
      if (raw.toLowerCase() === 'none') return accept(null);
      if (!/^\d+$/.test(raw)) return reject(`"${raw}" is not a whole number or "none"`);
      return bounded.parse(raw, context);
    },
    show: (value) => (value === null ? 'none' : String(value)),
  };
}

/** A whole number from `min` to `max`, or `none` (any case) to switch something off (null); one message for both. */
export function integerOrNone(range: { min: number; max: number }): Parser<number | null> {
  return {
    parse: (raw) => {
      if (raw.toLowerCase() === 'none') return accept(null);
      if (!/^\d+$/.test(raw) || Number(raw) < range.min || Number(raw) > range.max)
        return reject(`"${raw}" is not a whole number between ${range.min} and ${range.max} or "none"`);
      return accept(Number(raw));
    },
    show: (value) => (value === null ? 'none' : String(value)),
  };
}

/** `true`/`1`/`yes`/`on` or `false`/`0`/`no`/`off`, in any case. */
export function boolean(): Parser<boolean> {
  return {
    parse: (raw) => {
      const value = raw.toLowerCase();
      if (['true', '1', 'yes', 'on'].includes(value)) return accept(true);
      if (['false', '0', 'no', 'off'].includes(value)) return accept(false);
      return reject(`"${raw}" is not true or false`);
    },
    show: String,
  };
}

/** One of `values`; `expected` words the choice in the problem (default "one of a, b, c"). */
export function oneOf<const V extends string>(values: readonly V[], options: { ignoreCase?: boolean; expected?: string } = {}): Parser<V> {
  const expected = options.expected ?? `one of ${values.join(', ')}`;
  return {
    parse: (raw) => {
      const wanted = options.ignoreCase === true ? raw.toLowerCase() : raw;
      const found = values.find((value) => value === wanted);
      return found === undefined ? reject(`"${raw}" is not ${expected}`) : accept(found);
    },
    show: shownAsIs,
  };
}

/** The text as it is. */
export function text(): Parser<string> {
  return { parse: accept, show: shownAsIs };
}

/** Text matching `pattern`; `what` names what it should have been. */
export function matching(pattern: RegExp, what: string): Parser<string> {
  return { parse: (raw) => (pattern.test(raw) ? accept(raw) : reject(`"${raw}" is not ${what}`)), show: shownAsIs };
}

/** A secret of at least `minLength` characters; the problem never repeats the value. */
export function secret(minLength: number): Parser<string> {
  return { parse: (raw) => (raw.length >= minLength ? accept(raw) : reject(`must be at least ${minLength} characters`)) };
}

/**
 * Items separated by commas and/or whitespace, lowercased when asked; `check` returns what is
 * wrong with one item, and every wrong item is reported.
 */
export function list(options: { lowercase?: boolean; check?: (item: string) => string | null } = {}): Parser<string[]> {
  return {
    parse: (raw) => {
      const items = splitList(raw).map((item) => (options.lowercase === true ? item.toLowerCase() : item));
      const problems = items.flatMap((item) => options.check?.(item) ?? []);
      return problems.length > 0 ? reject(...problems) : accept(items);
    },
    show: (items) => (items.length === 0 ? '(none)' : items.join(', ')),
  };
}

export function splitList(raw: string): string[] {
  return raw.split(/[\s,]+/).filter((item) => item !== '');
}

/** `none` (any case) for null, anything else for `parser`. */
export function noneOr<T>(parser: Parser<T>): Parser<T | null> {
  return { parse: (raw, context) => (raw.toLowerCase() === 'none' ? accept(null) : parser.parse(raw, context)) };
}

/** A `module#export` specifier (default export without `#`), loaded later by load-callable.ts. */
export function moduleSpecifier(): Parser<string> {
  return {
    parse: (raw) => {
      const [specifier, exportName, extra] = raw.split('#');
      if (specifier === undefined || specifier === '' || extra !== undefined || exportName === '')
        return reject(`"${raw}" is not a module specifier with an optional #export`);
      return accept(raw);
    },
  };
}

/** A directory, resolved against the working directory. */
export function directory(): Parser<string> {
  return { parse: (raw, { cwd }) => accept(path.resolve(cwd, raw)) };
}

/** An absolute http(s) URL without query, fragment or userinfo, kept as origin and path without trailing slashes. */
export function baseUrl(): Parser<string> {
  return {
    parse: (raw) => {
      const url = parseStrictHttpUrl(raw);
      if (url === null || url.search !== '') return reject(`"${raw}" is not an absolute http(s) URL without query, fragment or userinfo`);
      return accept(`${url.origin}${trimEndOf(url.pathname, '/')}`);
    },
  };
}

/** An http(s) URL, kept as written without trailing slashes. */
export function httpUrl(): Parser<string> {
  return { parse: (raw) => (parseStrictHttpUrl(raw) === null ? reject(`"${raw}" is not an http(s) URL`) : accept(trimEndOf(raw, '/'))) };
}

/** `postgres://…`, or SQLite as `sqlite:PATH`, `file:PATH`, a plain path or `:memory:`; problems show the URL without its password. */
export function databaseUrl(): Parser<DatabaseLocation> {
  return {
    parse: (raw, { cwd }) => {
      if (/^postgres(ql)?:\/\//i.test(raw)) {
        try {
          const url = new URL(raw);
          if (url.hostname === '' && !url.searchParams.has('host')) throw new Error('no host');
        } catch {
          return reject(`"${redactUrl(raw)}" is not a valid postgres:// URL`);
        }
        return accept({ kind: 'postgres', url: raw });
      }
      if (raw === ':memory:') return accept({ kind: 'sqlite', filename: ':memory:' });
      const match = /^(?:sqlite|file):(?:\/\/)?(.+)$/i.exec(raw);
      if (match !== null)
        return accept({ kind: 'sqlite', filename: match[1] === ':memory:' ? ':memory:' : path.resolve(cwd, match[1] ?? '') });
      if (/^[a-z][a-z0-9+.-]*:\/\//i.test(raw))
        return reject(`"${redactUrl(raw)}" uses an unsupported scheme (use postgres:// or sqlite:)`);
      return accept({ kind: 'sqlite', filename: path.resolve(cwd, raw) });
    },
  };
}
