import type { Kysely } from 'kysely';
import type { Database, ProfileUrlRow, UserRow } from '../schema.js';

export interface UserRecord {
  readonly id: string;
  readonly name: string;
  readonly me: readonly string[];
  readonly isActive: boolean;
  readonly sessionEpoch: number;
  /** Password sign-in is refused: only the account's passkeys sign in. */
  readonly passwordless: boolean;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export interface NewUser {
  readonly id: string;
  readonly name: string;
  readonly passwordHash: string;
  readonly profileUrls: readonly { readonly url: string; readonly key: string }[];
  readonly now: string;
}

export type UsersRepository = ReturnType<typeof createUsersRepository>;

function toUser(row: UserRow, urls: readonly ProfileUrlRow[]): UserRecord {
  return {
    id: row.id,
    name: row.name,
    me: urls
      .filter((url) => url.user_id === row.id)
      .sort((a, b) => a.position - b.position)
      .map((url) => url.url),
    isActive: Number(row.active) === 1,
    sessionEpoch: Number(row.session_epoch),
    passwordless: Number(row.passwordless) === 1,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function createUsersRepository(db: Kysely<Database>) {
  async function withUrls(rows: readonly UserRow[]): Promise<UserRecord[]> {
    if (rows.length === 0) return [];
    const urls = await db
      .selectFrom('indieweb_user_profile_url')
      .selectAll()
      .where(
        'user_id',
        'in',
        rows.map((row) => row.id),
      )
      .execute();
    return rows.map((row) => toUser(row, urls));
  }

  async function one(row: UserRow | undefined): Promise<UserRecord | null> {
    if (row === undefined) return null;
    return (await withUrls([row]))[0] ?? null;
  }

  return {
    /** Inserts the user and its profile URLs in one transaction; a taken name or URL throws a unique violation. */
    async insert(user: NewUser): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await trx
          .insertInto('indieweb_user')
          .values({
            id: user.id,
            name: user.name,
            password_hash: user.passwordHash,
            active: 1,
            session_epoch: 0,
            created_at: user.now,
            updated_at: user.now,
          })
          .execute();
        await trx
          .insertInto('indieweb_user_profile_url')
          .values(user.profileUrls.map((url, position) => ({ url_key: url.key, user_id: user.id, url: url.url, position })))
          .execute();
      });
    },

    /** One query (the account and its profile URLs joined): this runs on every bearer request. */
    async findById(id: string): Promise<UserRecord | null> {
      const rows = await db
        .selectFrom('indieweb_user')
        .leftJoin('indieweb_user_profile_url', 'indieweb_user_profile_url.user_id', 'indieweb_user.id')
        .selectAll('indieweb_user')
        .select(['indieweb_user_profile_url.url_key', 'indieweb_user_profile_url.url', 'indieweb_user_profile_url.position'])
        .where('indieweb_user.id', '=', id)
        .execute();
      const first = rows[0];
      if (first === undefined) return null;
      const urls = rows
        .filter((row) => row.url !== null)
        .map((row) => ({ url_key: row.url_key!, user_id: first.id, url: row.url!, position: Number(row.position) }));
      return toUser(first, urls);
    },

    async findByName(name: string): Promise<UserRecord | null> {
      return one(await db.selectFrom('indieweb_user').selectAll().where('name', '=', name).executeTakeFirst());
    },

    async findCredentials(name: string): Promise<{ user: UserRecord; passwordHash: string } | null> {
      const row = await db.selectFrom('indieweb_user').selectAll().where('name', '=', name).executeTakeFirst();
      const user = await one(row);
      return row === undefined || user === null ? null : { user, passwordHash: row.password_hash };
    },

    /** The owner of a profile URL, by its comparison key. */
    async findByProfileUrlKey(key: string): Promise<UserRecord | null> {
      const row = await db
        .selectFrom('indieweb_user')
        .innerJoin('indieweb_user_profile_url', 'indieweb_user_profile_url.user_id', 'indieweb_user.id')
        .selectAll('indieweb_user')
        .where('indieweb_user_profile_url.url_key', '=', key)
        .executeTakeFirst();
      return one(row);
    },

    async findTakenProfileUrlKeys(keys: readonly string[]): Promise<string[]> {
      if (keys.length === 0) return [];
      const rows = await db
        .selectFrom('indieweb_user_profile_url')
        .select('url_key')
        .where('url_key', 'in', [...keys])
        .execute();
      return rows.map((row) => row.url_key);
    },

    /** Every profile URL of every account (for "is this page ours?"). */
    async listProfileUrls(): Promise<string[]> {
      return (await db.selectFrom('indieweb_user_profile_url').select('url').execute()).map((row) => row.url);
    },

    async list(): Promise<UserRecord[]> {
      return withUrls(await db.selectFrom('indieweb_user').selectAll().orderBy('name').execute());
    },

    async setActive(id: string, active: boolean, now: string): Promise<boolean> {
      const result = await db
        .updateTable('indieweb_user')
        // disabling also ends every session, so enabling again does not revive an old cookie
        .set((eb) => (active ? { active: 1, updated_at: now } : { active: 0, session_epoch: eb('session_epoch', '+', 1), updated_at: now }))
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    /** Sets a new password hash and ends every existing session of the user. */
    async setPasswordHash(id: string, passwordHash: string, now: string): Promise<boolean> {
      const result = await db
        .updateTable('indieweb_user')
        .set((eb) => ({ password_hash: passwordHash, session_epoch: eb('session_epoch', '+', 1), updated_at: now }))
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    /** Turns passkey-only sign-in on or off. */
    async setPasswordless(id: string, passwordless: boolean, now: string): Promise<boolean> {
      const result = await db
        .updateTable('indieweb_user')
        .set({ passwordless: passwordless ? 1 : 0, updated_at: now })
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    /** Ends every existing session of the user. */
    async bumpSessionEpoch(id: string, now: string): Promise<boolean> {
      const result = await db
        .updateTable('indieweb_user')
        .set((eb) => ({ session_epoch: eb('session_epoch', '+', 1), updated_at: now }))
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
  };
}
