import type { Kysely } from 'kysely';
import type { Database, MediaRow } from '../schema.js';

/** A file indiestack stored, and who owns it. */
export interface MediaRecord {
  readonly id: string;
  readonly userId: string;
  readonly storageKey: string;
  readonly url: string;
  /** The file name the client sent (for display only). */
  readonly name: string;
  readonly mediaType: string;
  readonly size: number;
  readonly createdAt: string;
}

export type MediaRepository = ReturnType<typeof createMediaRepository>;

function toMedia(row: MediaRow): MediaRecord {
  return {
    id: row.id,
    userId: row.user_id,
    storageKey: row.storage_key,
    url: row.url,
    name: row.name,
    mediaType: row.media_type,
    size: Number(row.size),
    createdAt: row.created_at,
  };
}

export function createMediaRepository(db: Kysely<Database>) {
  return {
    async insert(media: MediaRecord): Promise<void> {
      await db
        .insertInto('indieweb_media')
        .values({
          id: media.id,
          user_id: media.userId,
          storage_key: media.storageKey,
          url: media.url,
          name: media.name,
          media_type: media.mediaType,
          size: media.size,
          created_at: media.createdAt,
        })
        .execute();
    },

    async findByUrl(url: string): Promise<MediaRecord | null> {
      const row = await db.selectFrom('indieweb_media').selectAll().where('url', '=', url).executeTakeFirst();
      return row === undefined ? null : toMedia(row);
    },

    async findByKey(storageKey: string): Promise<MediaRecord | null> {
      const row = await db.selectFrom('indieweb_media').selectAll().where('storage_key', '=', storageKey).executeTakeFirst();
      return row === undefined ? null : toMedia(row);
    },

    /** Newest first. */
    async listByUser(userId: string): Promise<MediaRecord[]> {
      const rows = await db
        .selectFrom('indieweb_media')
        .selectAll()
        .where('user_id', '=', userId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .execute();
      return rows.map(toMedia);
    },

    /** The file of that id if `userId` owns it; another user's file is null, like an unknown id. */
    async findOwned(userId: string, id: string): Promise<MediaRecord | null> {
      const row = await db.selectFrom('indieweb_media').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
      return row === undefined ? null : toMedia(row);
    },

    async delete(id: string): Promise<boolean> {
      const result = await db.deleteFrom('indieweb_media').where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}
