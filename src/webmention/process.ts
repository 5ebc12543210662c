/**
 * Verifying one webmention: fetch the source, check the link, parse, and
 * move the record along the status table.
 * @see SPEC.md "Webmention status" state table
 * @module
 */
import type { Clock } from '../core/clock.js';
import { excerpt } from '../core/errors.js';
import { OutboundError, type Outbound } from '../outbound/fetch.js';
import type { WebmentionRecord, WebmentionsRepository } from '../storage/repositories/webmentions.js';
import { ParseFailure } from '../html/pool.js';
import type { SourceReading } from './parse.js';

/** The module whose `readSource` the parse pool runs. */
const PARSE_MODULE = new URL('./parse.js', import.meta.url);

/** The stored reason for a source page that could not be read: a bound it broke, the budget, or nothing more. */
function sourceUnreadable(error: unknown): string {
  if (error instanceof ParseFailure && error.kind === 'refused' && error.causeName === 'SourceTooComplexError') return error.message;
  if (error instanceof ParseFailure && error.kind === 'over-budget') return 'source page took too long to read';
  if (error instanceof ParseFailure && error.kind === 'crashed') return 'source page needs too much memory to read';
  return 'source page could not be parsed';
}
import { capMention } from './cap-mention.js';

/** Worth another try later: the source could not be reached, timed out or failed on its side. */
export class TransientProcessingError extends Error {
  override readonly name = 'TransientProcessingError';
}

/** A failed outcome's `reason` is written for whoever sent the mention: its status view shows it. */
export type ProcessOutcome = { readonly status: 'verified' } | { readonly status: 'failed'; readonly reason: string };

function isHtml(contentType: string | undefined): boolean {
  if (contentType === undefined) return true;
  return /^(text\/html|application\/xhtml\+xml)\b/i.test(contentType.trim());
}

export function createWebmentionProcessor(deps: { webmentions: WebmentionsRepository; outbound: Outbound; clock: Clock }) {
  const { webmentions, outbound, clock } = deps;
  const now = () => clock.now().toISOString();

  async function fail(record: WebmentionRecord, reason: string): Promise<ProcessOutcome> {
    await webmentions.markStatus(record.id, 'failed', reason, now());
    return { status: 'failed', reason };
  }

  return {
    /** Processes once. Throws {@link TransientProcessingError} when it should be retried. */
    async process(record: WebmentionRecord): Promise<ProcessOutcome> {
      let response;
      try {
        response = await outbound.fetch(record.source);
      } catch (error) {
        if (error instanceof OutboundError && error.transient) throw new TransientProcessingError(error.message, { cause: error });
        return fail(record, error instanceof OutboundError ? error.message : 'source cannot be fetched');
      }
      if (response.status === 410) return fail(record, 'source is gone (410)');
      if (response.status >= 500 || response.status === 429 || response.status === 408)
        throw new TransientProcessingError(`source answered ${response.status}`);
      if (response.status < 200 || response.status >= 300) return fail(record, `source answered ${response.status}`);
      const contentType = Array.isArray(response.headers['content-type'])
        ? response.headers['content-type'][0]
        : response.headers['content-type'];
      if (!isHtml(contentType))
        return fail(record, contentType === undefined ? 'source is not HTML' : `source is ${excerpt(contentType, 60)}`);

      // parsed in the parse pool, off the event loop, within its time and memory budget (issue 28 class 1)
      let reading: SourceReading;
      try {
        reading = await outbound.read<SourceReading>(PARSE_MODULE, 'readSource', [
          response.body.toString('utf8'),
          response.url,
          record.target,
        ]);
      } catch (error) {
        // the pool is full: try again later, like a source that is down
        if (error instanceof ParseFailure && error.kind === 'busy') throw new TransientProcessingError(error.message, { cause: error });
        // a page the parsers cannot read within bounds fails this mention; it is never retried
        return fail(record, sourceUnreadable(error));
      }
      if (!reading.linksToTarget) return fail(record, 'source does not link to the target');
      // the one door: every stored field capped (cap-mention.ts)
      await webmentions.markVerified(record.id, capMention(reading.mention), now());
      return { status: 'verified' };
    },
  };
}

export type WebmentionProcessor = ReturnType<typeof createWebmentionProcessor>;
