/**
 * What one row of the settings table declares, and the typed helper that
 * checks a row against {@link Config}: the parser and the default of a row
 * must produce exactly the type found at the row's key.
 * @module
 */
import type { Config, ConfigOverrides } from './config.js';

/** Every dotted path into {@link Config}: `port`, `server.headersTimeout`, `media.storage.bucket`. */
export type ConfigKey = KeyPaths<Config>;

type KeyPaths<T> = T extends readonly unknown[]
  ? never
  : T extends object
    ? { [K in keyof T & string]: K | `${K}.${KeyPaths<T[K]>}` }[keyof T & string]
    : never;

/** The type {@link Config} holds at a dotted path (unions, such as the storage kinds, are looked into). */
export type ValueAt<P extends string, T = Config> = T extends unknown
  ? P extends `${infer Head}.${infer Rest}`
    ? Head extends keyof T
      ? ValueAt<Rest, T[Head]>
      : never
    : P extends keyof T
      ? T[P]
      : never
  : never;

/** The type a value must have to go at every one of the keys `P` (their intersection). */
export type ValueFor<P extends ConfigKey> = (P extends unknown ? (value: ValueAt<P>) => void : never) extends (value: infer V) => void
  ? V
  : never;

/** A parsed value, or what is wrong with the text (each problem is later prefixed with the variable's name). */
export type Parsed<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly problems: readonly string[] };

/** Turns the text of one variable (trimmed, never empty) into a value. */
export interface Parser<T> {
  parse(raw: string, context: { readonly cwd: string }): Parsed<T>;
  /** The default as the README shows it; without it a row must give `shownDefault`. */
  show?(value: T): string;
}

/** What a derived default or a `when` condition can see: the working directory and the value of any other row. */
export interface Resolved {
  readonly cwd: string;
  get<P extends ConfigKey>(key: P): ValueAt<P>;
}

/** One environment variable, declared once. */
export interface SettingSpec<P extends ConfigKey> {
  readonly name: `INDIEWEB_${string}`;
  /** Where the value goes in {@link Config}; one variable may fill several keys of one type. */
  readonly key: P | readonly P[];
  readonly parser: Parser<ValueFor<P>>;
  /**
   * The value when the variable is unset. An invalid value is reported and the default stands in
   * for it, so the checks after the table see a sane value. A function when it derives from other
   * rows. Without one, an unset variable leaves its key unset for loadConfig to settle (the S3 key pair).
   */
  readonly default?: ValueFor<P> | ((resolved: Resolved) => ValueFor<P>);
  /** The default as the README shows it, when the parser cannot show it (derived, or null with a meaning). */
  readonly shownDefault?: string;
  /** The README's "Meaning" column. */
  readonly description: string;
  /** The field of {@link ConfigOverrides} that wins over the variable (CLI flags, plugin options). */
  readonly override?: keyof ConfigOverrides;
  /** Read only when this holds; otherwise the variable is ignored and its keys stay unset. */
  readonly when?: (resolved: Resolved) => boolean;
}

/** A row with its types checked and erased, as the reader, the README table and the unknown-name check use it. */
export interface Setting {
  readonly name: string;
  readonly keys: readonly string[];
  readonly parser: Parser<unknown>;
  /** The default (undefined: the key stays unset). */
  readonly fallback: (resolved: Resolved) => unknown;
  readonly shownDefault: string;
  readonly description: string;
  readonly override: keyof ConfigOverrides | undefined;
  readonly when: ((resolved: Resolved) => boolean) | undefined;
}

/** Checks a row's parser and default against the type at its key, then erases the types. */
export function defineSetting<const P extends ConfigKey>(spec: SettingSpec<P>): Setting {
  const parser = spec.parser as Parser<unknown>;
  const fixed = spec.default;
  const fallback = typeof fixed === 'function' ? (fixed as (resolved: Resolved) => unknown) : () => fixed;
  let shownDefault = spec.shownDefault;
  if (shownDefault === undefined && fixed !== undefined && typeof fixed !== 'function' && parser.show !== undefined)
    shownDefault = parser.show(fixed);
  if (shownDefault === undefined) throw new TypeError(`${spec.name}: the table cannot show this default; give shownDefault`);
  return Object.freeze({
    name: spec.name,
    keys: Object.freeze(typeof spec.key === 'string' ? [spec.key] : [...(spec.key as readonly string[])]),
    parser,
    fallback,
    shownDefault,
    description: spec.description,
    override: spec.override,
    when: spec.when,
  });
}
