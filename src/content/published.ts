/**
 * What the Micropub endpoint tells the rest of the server after a create or
 * an action succeeded (the webmention feature sends on publish from it). The
 * listener runs before the answer goes out, so what it queues is durable;
 * its failure is logged and never changes the answer.
 * @module
 */
import type { HostUser } from '../contracts/accounts.js';
import type { MicropubEntry } from '../contracts/micropub-types.js';

export interface EntryPublished {
  readonly action: 'create' | 'update' | 'delete' | 'undelete';
  readonly user: HostUser;
  /** The entry after the operation, as the handler returned it; null after a delete. */
  readonly entry: MicropubEntry | null;
  /** Absolute spellings of the URL the action named (read against the request's origin and the base URL); empty for a create. */
  readonly urls: readonly string[];
  /** A create's `mp-syndicate-to` (the uids of the syndication targets chosen), as the request sent it. */
  readonly syndicateTo?: readonly string[];
}

export type PublishListener = (event: EntryPublished) => Promise<void>;
