/**
 * The files a user owns: listing them and deleting one (the admin Media page).
 * @module
 */
import type { HostUser } from '../contracts/accounts.js';
import type { MediaRecord, MediaRepository } from '../storage/repositories/media.js';
import type { UploadPipeline } from './upload.js';

export type MediaLibrary = ReturnType<typeof createMediaLibrary>;

export function createMediaLibrary(deps: {
  repository: MediaRepository;
  pipeline: Pick<UploadPipeline, 'discard'>;
  /** The URL that answers `?w=N` for a photo (photo-variants.ts), or null when indiestack makes no copies of the file. */
  sizedUrlOf?: (file: MediaRecord) => string | null;
}) {
  const { repository, pipeline } = deps;
  return {
    /** Where the file's sized copies are answered (`{url}?w=N`), or null without copies. */
    sizedUrlOf: deps.sizedUrlOf ?? ((): string | null => null),

    /** The user's uploads, newest first. */
    listOwned: (user: HostUser): Promise<MediaRecord[]> => repository.listByUser(user.id),

    /** Deletes the file and its record when the user owns it; another user's id deletes nothing. Returns whether it did. */
    async deleteOwned(user: HostUser, id: string): Promise<boolean> {
      const file = await repository.findOwned(user.id, id);
      if (file === null) return false;
      await pipeline.discard([file]);
      return true;
    },
  };
}
