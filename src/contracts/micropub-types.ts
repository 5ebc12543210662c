/**
 * The shapes a Micropub content handler works with.
 * @see SPEC.md "Micropub entry", "Other shapes"
 * @module
 */

/** Property name → array of values (strings, or objects such as `{ value, alt }`, `{ html }` or embedded microformats). */
export type MicropubProperties = Record<string, unknown[]>;

/** An entry in its source representation, with its absolute URL. */
export interface MicropubEntry {
  /** Absolute URL of the entry. */
  readonly url: string;
  /** Microformats type, e.g. `['h-entry']`. */
  readonly type: readonly string[];
  readonly properties: MicropubProperties;
}

/** What a client submits to create an entry. */
export interface NewEntry {
  /** `['h-entry']` unless the client asked for another type (form `h`, JSON `type`). */
  readonly type: readonly string[];
  readonly properties: MicropubProperties;
}

/**
 * An update: `replace` overwrites, `add` appends, `delete` removes whole
 * properties (list of names) or single values (map of name to values).
 */
export interface UpdateOperations {
  readonly replace?: MicropubProperties;
  readonly add?: MicropubProperties;
  readonly delete?: readonly string[] | MicropubProperties;
}

/** A page of a list query: filter first, then offset, then limit. */
export interface PageRequest {
  /** Null means no limit. */
  readonly limit: number | null;
  readonly offset: number;
  /** Free-form, matched case-insensitively as a substring; null when not sent. */
  readonly filter: string | null;
}

export interface Page<T> {
  readonly items: readonly T[];
  /** Only when the handler knows it. */
  readonly total?: number;
}

export interface PostType {
  readonly type: string;
  readonly name: string;
  readonly properties: readonly string[];
}

export interface SyndicationTarget {
  /** Submitted back by clients in `mp-syndicate-to`. */
  readonly uid: string;
  readonly name: string;
  readonly service?: { readonly name: string; readonly url: string; readonly photo?: string };
  /** Only advertised. */
  readonly checked?: boolean;
}

/** Host-defined; clients commonly expect `uid` and `name`. */
export type Channel = Readonly<Record<string, unknown>>;

/** The `q=config` map a handler returns. `media-endpoint` is filled in by indiestack when falsy. */
export interface MicropubConfig {
  readonly 'media-endpoint'?: string;
  readonly 'syndicate-to'?: readonly SyndicationTarget[];
  readonly categories?: readonly string[];
  readonly channels?: readonly Channel[];
  readonly 'post-types'?: readonly PostType[];
  readonly q?: readonly string[];
  readonly [key: string]: unknown;
}

export interface MediaObject {
  readonly properties: {
    readonly url: readonly string[];
    readonly name: readonly string[];
    readonly 'media-type': readonly string[];
    readonly [key: string]: readonly unknown[];
  };
}
