/**
 * A stored mention by its public id, or the documented 404: ids are
 * 1–64 of `A-Z a-z 0-9 _ -`, anything else is not looked up at all.
 * @module
 */
import { NotFoundError } from '../core/errors.js';
import type { WebmentionRecord, WebmentionsRepository } from '../storage/repositories/webmentions.js';

export async function requireMention(webmentions: Pick<WebmentionsRepository, 'findById'>, id: string): Promise<WebmentionRecord> {
  const record = /^[A-Za-z0-9_-]{1,64}$/.test(id) ? await webmentions.findById(id) : null;
  if (record === null) throw new NotFoundError(`no webmention ${id}`);
  return record;
}
