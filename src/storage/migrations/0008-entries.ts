// Frozen in time: never edit after release; add a new migration instead.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // entries of the built-in `database` Micropub handler (issue 18)
  await db.schema
    .createTable('indieweb_entry')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull().unique())
    .addColumn('path', 'text', (c) => c.notNull().unique())
    // JSON text: the microformats type list and the property map
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('properties', 'text', (c) => c.notNull())
    .addColumn('post_status', 'text', (c) => c.notNull())
    .addColumn('published', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('deleted_at', 'text')
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
    // the URL's slug as `{series}-{number}`: series = month folder and wanted slug, so the next free number is one indexed max()
    .addColumn('slug_series', 'text', (c) => c.notNull())
    .addColumn('slug_number', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('indieweb_entry_slug').on('indieweb_entry').columns(['slug_series', 'slug_number']).execute();
  // Micropub's q=source list: a user's entries, newest created first
  await db.schema.createIndex('indieweb_entry_user_created').on('indieweb_entry').columns(['user_id', 'created_at', 'id']).execute();
  // the pages' feed: a user's published entries by published date
  await db.schema.createIndex('indieweb_entry_user_published').on('indieweb_entry').columns(['user_id', 'published', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('indieweb_entry').execute();
}
