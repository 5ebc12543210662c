// Frozen in time: never edit after release; add a new migration instead.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // a redeemed code remembers the grant it started, so that a replay of the code revokes that grant (RFC 6749 4.1.2)
  await db.schema.alterTable('indieweb_auth_code').addColumn('grant_id', 'text').execute();
  // every access token belongs to a grant from now on; a token issued alone is a grant of its own
  await db
    .updateTable('indieweb_token')
    .set({ grant_id: sql`id` })
    .where('grant_id', 'is', null)
    .execute();
  await db.schema.createIndex('indieweb_refresh_token_user').on('indieweb_refresh_token').column('user_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('indieweb_refresh_token_user').execute();
  await db.schema.alterTable('indieweb_auth_code').dropColumn('grant_id').execute();
}
