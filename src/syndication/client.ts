/**
 * What the syndication feature (POSSE, issue 33) asks of one service's
 * client — Mastodon in `mastodon/`, Bluesky in `bluesky/` — so the jobs,
 * the CLI, the admin and Micropub's `q=syndicate-to` never know which
 * service they talk to. A client is made for one target (an account on one
 * service, with its decrypted credentials) and speaks that service's API
 * only: queueing, retries, storing the copy's URL and the entry's
 * `syndication` property are the feature's.
 * @module
 */

/** A photo of the entry, as the client may upload it (sized under the service's limits with the media feature's fitWithin). */
export interface SyndicationPhoto {
  /** The photo's public URL on our site (what the entry's `photo` says). */
  readonly url: string;
  /** Alt text; empty when the post gives none. */
  readonly alt: string;
  /** The stored bytes and their media type; null when the photo is not ours or cannot be read (the post goes without it). */
  read(): Promise<{ readonly bytes: Buffer; readonly type: string } | null>;
}

/** What goes out for one entry, already reduced to what a silo can show. */
export interface SyndicationPost {
  /** The entry's permalink on our site. */
  readonly url: string;
  /** Post kind (core/post-kind.ts): note, article, photo, reply, like, repost, … */
  readonly kind: string;
  /** An article's name; null for notes. */
  readonly name: string | null;
  /** The content as plain text (HTML reduced), never cut: the client fits it to its service's limit. */
  readonly text: string;
  /** The entry's categories, without `#`. */
  readonly categories: readonly string[];
  readonly photos: readonly SyndicationPhoto[];
  /** The silo post this one replies to, likes or reposts (the entry's `in-reply-to`, `like-of`, `repost-of`), if any. */
  readonly inReplyTo: string | null;
  readonly likeOf: string | null;
  readonly repostOf: string | null;
}

/** The copy on the silo: its id there (a Mastodon status id, a Bluesky at:// URI) and its public URL. */
export interface SyndicatedCopy {
  readonly id: string;
  readonly url: string;
}

/**
 * A failure the job can act on. `transient`: try again later (network errors, 5xx, 429), after
 * `retryAfterMs` when the service said when (`Retry-After`, `X-RateLimit-Reset`, `ratelimit-reset`);
 * otherwise the job fails for good with `message` as the reason people see (no secrets in it).
 */
export class SyndicationError extends Error {
  override readonly name = 'SyndicationError';
  readonly transient: boolean;
  readonly retryAfterMs: number | null;
  constructor(message: string, options: { transient: boolean; retryAfterMs?: number | null; cause?: unknown }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.transient = options.transient;
    this.retryAfterMs = options.retryAfterMs ?? null;
  }
}

/** One target's client. Every method throws {@link SyndicationError} on failure. */
export interface SyndicationClient {
  /** Checks the credentials; the account's display name (e.g. `@alice@mastodon.example`, `alice.bsky.social`). */
  verify(): Promise<{ readonly name: string }>;
  /**
   * Makes the copy of `post`, exactly once per `key` (derived from entry and target, stable across retries):
   * Mastodon sends it as `Idempotency-Key`; Bluesky derives the record key from it and adopts a record
   * already at that key. `onCreated` is called as soon as the service names the copy, before anything else
   * (the job stores it at once, so a crash after it never makes a second copy).
   */
  publish(post: SyndicationPost, key: string, onCreated?: (copy: SyndicatedCopy) => Promise<void>): Promise<SyndicatedCopy>;
  /** Brings the copy in line with an updated entry where the service can (Mastodon edits; Bluesky has no edits: a no-op). */
  update(post: SyndicationPost, copy: SyndicatedCopy): Promise<void>;
  /** Deletes the copy; a copy already gone counts as deleted. */
  remove(copy: SyndicatedCopy): Promise<void>;
  /** Whether `url` is a post on this target's service (replies, likes and reposts go natively there). */
  isOnService(url: string): boolean;
  /** Responses on the copies (backfeed); absent for a client that cannot poll. */
  readonly backfeed?: BackfeedClient;
}

/** Kinds of responses on a copy that come home (backfeed, issue 34). */
export type ResponseKind = 'reply' | 'like' | 'repost' | 'quote';

/** One response on one of the copies, as the silo's API reported it. */
export interface SiloResponse {
  readonly kind: ResponseKind;
  /** The copy it responds to: its id on the silo (a Mastodon status id, a Bluesky at:// URI). */
  readonly copyId: string;
  /**
   * For a reply, the root of its thread when that is not `copyId`: a reply further down the thread of a copy
   * counts as a response to it (Bluesky notifies the root's author of those).
   */
  readonly rootId?: string | null;
  /** The reply's or quote's own id there; for a like or repost, the account's id (a DID on Bluesky). */
  readonly siloId: string;
  /** The reply's or quote's public URL; null for a like or repost (the feature names them with a fragment). */
  readonly url: string | null;
  readonly author: { readonly id: string; readonly name: string | null; readonly url: string | null; readonly photo: string | null };
  readonly contentHtml: string | null;
  readonly contentText: string | null;
  /** When it was made on the silo (ISO). */
  readonly published: string | null;
}

/**
 * Polling one target for responses on its copies (backfeed). Throws {@link SyndicationError}; a 429 is transient
 * with `retryAfterMs`.
 */
export interface BackfeedClient {
  /**
   * The responses reported since `cursor` (Mastodon: notifications after `since_id`; Bluesky: newer than the last
   * seen `indexedAt`), oldest first, bounded per call, without the account's own; and the cursor to keep.
   */
  responses(cursor: string | null): Promise<{ readonly responses: readonly SiloResponse[]; readonly cursor: string | null }>;
  /** The accounts that like (or repost) the copy now; null when the copy itself is gone. */
  responders(copyId: string, kind: 'like' | 'repost'): Promise<ReadonlySet<string> | null>;
  /** Whether a reply or quote (by its id there) still exists. */
  responseExists(siloId: string): Promise<boolean>;
}
