// Frozen in time: never edit after release; add a new migration instead.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // tokens issued together with a refresh token share a grant; a replayed refresh token revokes the grant
  await db.schema.alterTable('indieweb_token').addColumn('grant_id', 'text').execute();
  await db.schema.createIndex('indieweb_token_grant').on('indieweb_token').column('grant_id').execute();
  await db.schema
    .createTable('indieweb_refresh_token')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('grant_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('me', 'text', (c) => c.notNull())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema.createIndex('indieweb_refresh_token_grant').on('indieweb_refresh_token').column('grant_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('indieweb_refresh_token').execute();
  await db.schema.alterTable('indieweb_token').dropColumn('grant_id').execute();
}
