/**
 * Exporting mentions as JF2, the shape `mentions.jf2` of the
 * webmention.io-compatible API answers: what an import here (or any consumer
 * of webmention.io's API) reads back.
 * @module
 */
import type { WebmentionsRepository } from '../../storage/repositories/webmentions.js';
import { toJf2, toJf2Feed } from '../api/format.js';

const PAGE = 500;

/**
 * Every verified, approved mention (of one account, or of all), oldest
 * first, as `{ type: "feed", name, children }`. Read a page at a time.
 */
export async function exportMentions(webmentions: WebmentionsRepository, ownerId: string | null): Promise<ReturnType<typeof toJf2Feed>> {
  const children: ReturnType<typeof toJf2>[] = [];
  for (let offset = 0; ; offset += PAGE) {
    const page = await webmentions.searchPublic({
      ...(ownerId === null ? {} : { ownerId }),
      sortBy: 'created',
      ascending: true,
      limit: PAGE,
      offset,
    });
    children.push(...page.map(toJf2));
    if (page.length < PAGE) break;
  }
  return { ...toJf2Feed([]), children };
}
