import type { HostUser } from './accounts.js';
import type {
  MediaObject,
  MicropubConfig,
  MicropubEntry,
  MicropubProperties,
  NewEntry,
  Page,
  PageRequest,
  UpdateOperations,
} from './micropub-types.js';

/**
 * Where entries live. indiestack parses the request, checks the token and
 * scope, validates properties, then calls one of these. Persistence, URL
 * mapping, rendering and publishing stay with the handler.
 *
 * Every method receives the user the token belongs to and must check
 * ownership. Throw {@link HandlerValueError} for an unknown or invalid
 * target (400 `invalid_request`); anything else thrown is an internal
 * failure (500).
 * @see SPEC.md "Handler contract (content handler)"
 * @example
 * ```ts
 * export const handler: MicropubHandler = {
 *   async createEntry(entry, user) { … return { url, type: entry.type, properties: entry.properties }; },
 *   …
 * };
 * ```
 */
export interface MicropubHandler {
  /** `create_entry`: stores a new entry and returns it with its URL. */
  createEntry(entry: NewEntry, user: HostUser): Promise<MicropubEntry>;
  /** `get_entry`: the entry at `url` (exactly as submitted, maybe relative), or null when unknown. */
  getEntry(url: string, user: HostUser): Promise<MicropubEntry | null>;
  /** `update_entry`: applies the operations; the returned URL may differ (the entry moved). */
  updateEntry(url: string, operations: UpdateOperations, user: HostUser): Promise<MicropubEntry>;
  /** `delete_entry`: the entry leaves the published set but can be undeleted. */
  deleteEntry(url: string, user: HostUser): Promise<void>;
  /** `undelete_entry`: `url` must be in the deleted set. */
  undeleteEntry(url: string, user: HostUser): Promise<MicropubEntry>;
  /** `get_config`: keys `media-endpoint`, `syndicate-to`, `categories`, `channels`, `post-types`, `q`. */
  getConfig(user: HostUser): Promise<MicropubConfig>;
  /** `list_entries` (optional; without it `q=source` lists answer 501). */
  listEntries?(user: HostUser, page: PageRequest): Promise<Page<MicropubEntry>>;
  /** `list_media` (optional). */
  listMedia?(user: HostUser, page: PageRequest): Promise<Page<MediaObject>>;
  /** `get_media` (optional). */
  getMedia?(url: string, user: HostUser): Promise<MediaObject | null>;
  /** `delete_media` (optional). */
  deleteMedia?(url: string, user: HostUser): Promise<void>;
  /**
   * Hosts besides the request's (and the base URL's) where this user's entries
   * live, such as a static site's (optional, beyond SPEC.md): update, delete
   * and undelete then accept absolute URLs on them too. Without it, only the
   * request's host is accepted, as the spec says.
   */
  entryHosts?(user: HostUser): readonly string[];
}

/** Options a handler factory receives when loaded from `INDIEWEB_MICROPUB_HANDLER`. */
export interface MicropubHandlerFactoryOptions {
  /** The public base URL of indiestack, without a trailing slash. */
  readonly baseUrl: string;
  /** The data directory of the standalone server. */
  readonly dataDir: string;
}

/** A module export that builds a handler. */
export type MicropubHandlerFactory = (options: MicropubHandlerFactoryOptions) => MicropubHandler | Promise<MicropubHandler>;

export type { MicropubProperties };
