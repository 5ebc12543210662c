/**
 * The read side of the webmention.io-compatible API: which mentions a query
 * may see. Only verified, approved mentions are ever answered. With a target
 * the answer is that page's public mentions; without one a read token is
 * required and opens exactly its own account's mentions (optionally one
 * domain of them).
 * @module
 */
import type { HostUser } from '../../contracts/accounts.js';
import { AuthenticationError, forClient, InvalidRequestError } from '../../core/errors.js';
import type { WebmentionRecord, WebmentionsRepository } from '../../storage/repositories/webmentions.js';
import type { ApiQuery } from './query.js';
import type { ReadTokens } from './read-tokens.js';

export type MentionsApi = ReturnType<typeof createMentionsApi>;

export function createMentionsApi(deps: {
  webmentions: WebmentionsRepository;
  readTokens: ReadTokens;
  /** The owner of a token (our accounts or the host's): a disabled one's token opens nothing. */
  findUser: (id: string) => Promise<HostUser | null> | HostUser | null;
}) {
  const { webmentions, readTokens, findUser } = deps;

  /** The active account a read token belongs to, or a 401. */
  async function ownerOf(token: string): Promise<string> {
    const ownerId = await readTokens.userOf(token);
    // security: `indiestack user disable` ends the read token too, without rotating it (issue 28 F18)
    const owner = ownerId === null ? null : await findUser(ownerId);
    if (owner === null || !owner.isActive) throw new AuthenticationError(forClient('the token is not valid'));
    return owner.id;
  }

  return {
    async mentions(query: ApiQuery): Promise<WebmentionRecord[]> {
      const common = {
        ...(query.types === undefined ? {} : { types: query.types }),
        ...(query.receivedFrom === undefined ? {} : { receivedFrom: query.receivedFrom }),
        ...(query.sinceId === undefined ? {} : { afterWmId: query.sinceId }),
        sortBy: query.sortBy,
        ascending: query.ascending,
        limit: query.perPage,
        offset: query.page * query.perPage,
      };
      if (query.targetKeys !== undefined) return webmentions.searchPublic({ ...common, targetKeys: query.targetKeys });
      if (query.token === undefined) throw new InvalidRequestError(forClient('a target or a token is required'));
      const ownerId = await ownerOf(query.token);
      return webmentions.searchPublic({ ...common, ownerId, ...(query.domain === undefined ? {} : { targetHost: query.domain }) });
    },

    async count(query: ApiQuery) {
      if (query.targetKeys === undefined) throw new InvalidRequestError(forClient('a target is required'));
      return webmentions.countPublicByType(query.targetKeys);
    },
  };
}
