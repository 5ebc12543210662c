// Frozen in time: never edit after release; add a new migration instead.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // issue 33: an account on a silo (Mastodon, Bluesky) that a user's entries are syndicated to; the credentials
  // (access token, app password) are sealed with a key derived from the server secret (core/sealing.ts)
  await db.schema
    .createTable('indieweb_syndication_target')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('service', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    // the Mastodon instance or the Bluesky PDS, as an origin
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('handle', 'text')
    .addColumn('credentials', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('indieweb_syndication_target_user')
    .on('indieweb_syndication_target')
    .columns(['user_id', 'created_at'])
    .execute();
  // one entry's copy on one target: what the job must do next (publish, update, remove), how it went, the copy
  await db.schema
    .createTable('indieweb_syndication')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('entry_url', 'text', (c) => c.notNull())
    .addColumn('target_id', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('copy_id', 'text')
    .addColumn('copy_url', 'text')
    .addColumn('error', 'text')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('indieweb_syndication_pair', ['entry_url', 'target_id'])
    .execute();
  await db.schema.createIndex('indieweb_syndication_user').on('indieweb_syndication').columns(['user_id', 'updated_at']).execute();
  await db.schema.createIndex('indieweb_syndication_target_rows').on('indieweb_syndication').columns(['target_id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('indieweb_syndication').execute();
  await db.schema.dropTable('indieweb_syndication_target').execute();
}
