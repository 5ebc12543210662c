/**
 * Importing mentions received elsewhere (a webmention.io export) into the
 * store, as they were there: verified and public, with the date they were
 * received and their old id kept as provenance (`origin`), never fetched
 * again. All or nothing: one transaction; importing the same file twice adds
 * nothing (a source/target pair already stored is left as it is).
 * @module
 */
import { randomId } from '../../core/crypto.js';
import type { Clock } from '../../core/clock.js';
import type { WebmentionTransactor } from '../../storage/stores.js';
import { canonicalUrl } from '../canonical-url.js';
import { capMention } from '../cap-mention.js';
import { bareHost } from '../host.js';
import type { ExportedMention } from './read-export.js';

export interface ImportCounts {
  /** Stored now. */
  readonly imported: number;
  /** The pair was stored already (an earlier import, or received here). */
  readonly alreadyHere: number;
  /** Marked private in the export: indiestack has no private mentions. */
  readonly skippedPrivate: number;
  /** Not verified by the service the export came from. */
  readonly skippedUnverified: number;
}

export async function importMentions(deps: {
  transact: WebmentionTransactor;
  clock: Clock;
  /** Whose a mention is: a fixed account (`--user`), else decided from the target as for received mentions. */
  ownerOf: (target: string) => Promise<string | null>;
  mentions: readonly ExportedMention[];
  /** Names the service in `origin`: `webmention.io` gives `webmention.io:900`. */
  originName: string;
}): Promise<ImportCounts> {
  const kept = deps.mentions.filter((mention) => mention.verified && !mention.private);
  // owners are decided before the transaction: deciding may ask the content handler, which must not wait on our lock
  const owners = new Map<string, string | null>();
  for (const mention of kept) if (!owners.has(mention.target)) owners.set(mention.target, await deps.ownerOf(mention.target));
  const now = deps.clock.now().toISOString();
  const imported = await deps.transact(async ({ webmentions }) => {
    let count = 0;
    for (const mention of kept) {
      // the one door: every stored field capped (cap-mention.ts)
      const stored = await webmentions.insertImported(
        capMention({
          id: randomId(18),
          source: mention.source,
          target: mention.target,
          targetKey: canonicalUrl(mention.target) ?? mention.target,
          targetHost: bareHost(new URL(mention.target).hostname),
          ownerId: owners.get(mention.target) ?? null,
          type: mention.type,
          rsvp: mention.rsvp,
          author: mention.author,
          contentText: mention.contentText,
          contentHtml: mention.contentHtml,
          published: mention.published,
          receivedAt: mention.receivedAt,
          origin: mention.originalId === null ? deps.originName : `${deps.originName}:${mention.originalId}`,
          now,
        }),
      );
      if (stored) count += 1;
    }
    return count;
  });
  return {
    imported,
    alreadyHere: kept.length - imported,
    skippedPrivate: deps.mentions.filter((mention) => mention.private && mention.verified).length,
    skippedUnverified: deps.mentions.filter((mention) => !mention.verified).length,
  };
}
