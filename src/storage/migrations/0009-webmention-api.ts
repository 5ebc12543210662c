// Frozen in time: never edit after release; add a new migration instead.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // webmention.io-compatible read API: an integer id per mention, the RSVP value, moderation and import provenance
  await db.schema.alterTable('indieweb_webmention').addColumn('wm_id', 'integer').execute();
  // null or 'approved': public once verified; 'held': waits for the owner; 'rejected': never public
  await db.schema.alterTable('indieweb_webmention').addColumn('approval', 'text').execute();
  await db.schema.alterTable('indieweb_webmention').addColumn('rsvp', 'text').execute();
  // where an imported mention came from (e.g. "webmention.io:900"); null for mentions received here
  await db.schema.alterTable('indieweb_webmention').addColumn('origin', 'text').execute();
  // the mentions already stored get ids in the order they were received
  await sql`update indieweb_webmention set wm_id = (
    select count(*) from indieweb_webmention w2
    where w2.created_at < indieweb_webmention.created_at or (w2.created_at = indieweb_webmention.created_at and w2.id <= indieweb_webmention.id)
  )`.execute(db);
  await db.schema.createIndex('indieweb_webmention_wm_id').on('indieweb_webmention').column('wm_id').unique().execute();
  // the last id handed out: taking the next one locks this row, so concurrent inserts on PostgreSQL never collide
  await db.schema
    .createTable('indieweb_counter')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'integer', (c) => c.notNull())
    .execute();
  await sql`insert into indieweb_counter (name, value) select 'webmention', coalesce(max(wm_id), 0) from indieweb_webmention`.execute(db);

  // per account: the read token of the API (its SHA-256 only) and the webhook
  await db.schema
    .createTable('indieweb_webmention_account')
    .addColumn('user_id', 'text', (c) => c.primaryKey())
    // the token is derived from the server secret and read_key_id (so the CLI can print it again); only its SHA-256 is stored
    .addColumn('read_token_hash', 'text', (c) => c.unique())
    .addColumn('read_key_id', 'text')
    .addColumn('read_token_created_at', 'text')
    .addColumn('webhook_url', 'text')
    // not the secret: the secret is derived from the server secret and this value, so rotating it makes a new one
    .addColumn('webhook_key_id', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  // block and allow lists: by domain or by URL prefix, of one account or (user_id null) of the whole server
  await db.schema
    .createTable('indieweb_webmention_rule')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  // webhook deliveries: one row per event, delivered by a job
  await db.schema
    .createTable('indieweb_webhook_delivery')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('webmention_id', 'text')
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    // the JSON body without the secret, which is added when it is sent
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('http_status', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('indieweb_webhook_delivery_user')
    .on('indieweb_webhook_delivery')
    .columns(['user_id', 'created_at'])
    .execute();

  // webmentions sent on publish: one row per (source, target)
  await db.schema
    .createTable('indieweb_webmention_outgoing')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('target', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('endpoint', 'text')
    .addColumn('http_status', 'integer')
    .addColumn('error', 'text')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    // waiting for the deploy signal (1) or not (0)
    .addColumn('awaiting_deploy', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('indieweb_webmention_outgoing_pair', ['source', 'target'])
    .execute();
  await db.schema
    .createIndex('indieweb_webmention_outgoing_user')
    .on('indieweb_webmention_outgoing')
    .columns(['user_id', 'updated_at'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('indieweb_webmention_outgoing').execute();
  await db.schema.dropTable('indieweb_webhook_delivery').execute();
  await db.schema.dropTable('indieweb_webmention_rule').execute();
  await db.schema.dropTable('indieweb_webmention_account').execute();
  await db.schema.dropTable('indieweb_counter').execute();
  await db.schema.dropIndex('indieweb_webmention_wm_id').execute();
  for (const column of ['origin', 'rsvp', 'approval', 'wm_id'])
    await db.schema.alterTable('indieweb_webmention').dropColumn(column).execute();
}
