import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';

export type HCard = Record<string, string[]>;

export interface ProfileRecord {
  readonly userId: string;
  readonly name: string | null;
  readonly photoUrl: string | null;
  readonly url: string | null;
  readonly hCard: HCard;
  readonly updatedAt: string;
}

export type ProfilesRepository = ReturnType<typeof createProfilesRepository>;

export function createProfilesRepository(db: Kysely<Database>) {
  return {
    async find(userId: string): Promise<ProfileRecord | null> {
      const row = await db.selectFrom('indieweb_profile').selectAll().where('user_id', '=', userId).executeTakeFirst();
      if (row === undefined) return null;
      return {
        userId: row.user_id,
        name: row.name,
        photoUrl: row.photo_url,
        url: row.url,
        hCard: JSON.parse(row.h_card) as HCard,
        updatedAt: row.updated_at,
      };
    },

    /** Writes the whole profile; name, photo_url and url always come from the same h-card. */
    async put(profile: ProfileRecord): Promise<void> {
      const values = {
        name: profile.name,
        photo_url: profile.photoUrl,
        url: profile.url,
        h_card: JSON.stringify(profile.hCard),
        updated_at: profile.updatedAt,
      };
      await db
        .insertInto('indieweb_profile')
        .values({ user_id: profile.userId, ...values })
        .onConflict((oc) => oc.column('user_id').doUpdateSet(values))
        .execute();
    },
  };
}
