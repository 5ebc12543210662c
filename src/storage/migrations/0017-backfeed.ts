// Frozen in time: never edit after release; add a new migration instead.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // issue 34 (backfeed): per syndication target, where its last poll stopped (Mastodon's since_id, Bluesky's seen-at),
  // when it ran and what it found (or why it failed)
  await db.schema
    .createTable('indieweb_syndication_poll')
    .addColumn('target_id', 'text', (c) => c.primaryKey())
    .addColumn('cursor', 'text')
    .addColumn('polled_at', 'text')
    .addColumn('found', 'text')
    .addColumn('error', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // one response on a copy brought home as a received webmention: what to ask the silo to see whether it is still there
  await db.schema
    .createTable('indieweb_backfeed')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('target_id', 'text', (c) => c.notNull())
    .addColumn('webmention_id', 'text', (c) => c.notNull())
    // reply, like, repost, quote
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('copy_id', 'text', (c) => c.notNull())
    // the reply's id on the silo, or the account that liked or reposted
    .addColumn('silo_id', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('checked_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('indieweb_backfeed_source', ['target_id', 'source'])
    .execute();
  await db.schema.createIndex('indieweb_backfeed_check').on('indieweb_backfeed').columns(['target_id', 'checked_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('indieweb_backfeed').execute();
  await db.schema.dropTable('indieweb_syndication_poll').execute();
}
