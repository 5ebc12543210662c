/**
 * The media hooks of the built-in handler: list, describe and delete the
 * files indiestack stored, owner-checked, found by URL in the media table —
 * never by deriving a storage path from a submitted URL.
 * @module
 */
import type { HostUser } from '../contracts/accounts.js';
import { HandlerValueError } from '../contracts/handler-errors.js';
import type { MicropubHandler } from '../contracts/micropub-handler.js';
import type { MediaObject, Page, PageRequest } from '../contracts/micropub-types.js';
import type { MediaStorage } from '../contracts/media-storage.js';
import { applyListParams, matchesFilter } from '../core/list-params.js';
import type { MediaHooks } from '../content/content.js';
import type { MediaRecord, MediaRepository } from '../storage/repositories/media.js';

export function toMediaObject(record: MediaRecord): MediaObject {
  return { properties: { url: [record.url], name: [record.name], 'media-type': [record.mediaType] } };
}

export function createMediaHooks(deps: { media: MediaRepository; storage: MediaStorage }): MediaHooks {
  const { media, storage } = deps;
  const own = async (url: string, user: HostUser): Promise<MediaRecord> => {
    const record = await media.findByUrl(url);
    if (record === null || record.userId !== user.id) throw new HandlerValueError('no such media');
    return record;
  };
  return {
    async listMedia(user: HostUser, page: PageRequest): Promise<Page<MediaObject>> {
      const all = (await media.listByUser(user.id)).map(toMediaObject);
      return { items: applyListParams(all, page), total: all.filter((item) => matchesFilter(item, page.filter)).length };
    },
    async getMedia(url: string, user: HostUser): Promise<MediaObject | null> {
      const record = await media.findByUrl(url);
      return record === null || record.userId !== user.id ? null : toMediaObject(record);
    },
    async deleteMedia(url: string, user: HostUser): Promise<void> {
      const record = await own(url, user);
      await storage.delete(record.storageKey);
      await media.delete(record.id);
    },
  };
}
