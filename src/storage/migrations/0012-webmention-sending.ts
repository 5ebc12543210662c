// Frozen in time: never edit after release; add a new migration instead.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // sending on publish: whether the source links to the target now (1), or the mention was sent because the link went away (0),
  // so an update notifies a removed target once, not on every later update
  await db.schema
    .alterTable('indieweb_webmention_outgoing')
    .addColumn('linked', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  // the deploy signal releases one account's waiting sends
  await db.schema
    .createIndex('indieweb_webmention_outgoing_waiting')
    .on('indieweb_webmention_outgoing')
    .columns(['user_id', 'awaiting_deploy'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('indieweb_webmention_outgoing_waiting').execute();
  await db.schema.alterTable('indieweb_webmention_outgoing').dropColumn('linked').execute();
}
