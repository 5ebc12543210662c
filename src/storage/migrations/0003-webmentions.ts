// Frozen in time: never edit after release; add a new migration instead.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('indieweb_webmention')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('target', 'text', (c) => c.notNull())
    .addColumn('target_key', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('verified_at', 'text')
    .addColumn('type', 'text')
    .addColumn('author_name', 'text')
    .addColumn('author_url', 'text')
    .addColumn('author_photo', 'text')
    .addColumn('content_text', 'text')
    .addColumn('content_html', 'text')
    .addColumn('published', 'text')
    .addColumn('error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('indieweb_webmention_pair', ['source', 'target'])
    .execute();
  await db.schema.createIndex('indieweb_webmention_target').on('indieweb_webmention').columns(['target_key', 'status']).execute();
  await db.schema.createIndex('indieweb_webmention_status').on('indieweb_webmention').columns(['status', 'updated_at']).execute();

  await db.schema
    .createTable('indieweb_job')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('ref', 'text', (c) => c.notNull())
    .addColumn('run_at', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('locked_until', 'text')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('indieweb_job_kind_ref', ['kind', 'ref'])
    .execute();
  await db.schema.createIndex('indieweb_job_due').on('indieweb_job').columns(['run_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('indieweb_job').execute();
  await db.schema.dropTable('indieweb_webmention').execute();
}
