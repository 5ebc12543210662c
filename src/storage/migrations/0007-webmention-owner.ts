// Frozen in time: never edit after release; add a new migration instead.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // the account a mention belongs to (null: nobody identifiable), decided from its target when it is received
  await db.schema.alterTable('indieweb_webmention').addColumn('owner_id', 'text').execute();
  // the target's host without "www." (null for mentions received before this migration, until the server assigns their owner)
  await db.schema.alterTable('indieweb_webmention').addColumn('target_host', 'text').execute();
  await db.schema.createIndex('indieweb_webmention_owner').on('indieweb_webmention').columns(['owner_id', 'created_at']).execute();
  await db.schema.createIndex('indieweb_webmention_pending').on('indieweb_webmention').columns(['target_host', 'status']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('indieweb_webmention_pending').execute();
  await db.schema.dropIndex('indieweb_webmention_owner').execute();
  await db.schema.alterTable('indieweb_webmention').dropColumn('target_host').execute();
  await db.schema.alterTable('indieweb_webmention').dropColumn('owner_id').execute();
}
