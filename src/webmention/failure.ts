/**
 * Why a mention failed: the reason stored with it when verification (or a
 * retry, or giving up) failed. Shown to the site's owner and on the public
 * status page, so a sender can fix their page.
 * @module
 */
import type { WebmentionRecord } from '../storage/repositories/webmentions.js';

/** The stored reason of a failed mention; null for any other status (a verified or spam mention's old reason is history). */
export function failureReason(record: Pick<WebmentionRecord, 'status' | 'error'>): string | null {
  return record.status === 'failed' ? record.error : null;
}
