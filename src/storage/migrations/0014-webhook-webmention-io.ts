// Frozen in time: never edit after release; add a new migration instead.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // issue 28 F17: the webhook body carries its secret only when the user marks the webhook webmention.io-compatible (1);
  // every delivery is signed the Standard Webhooks way in headers, so existing webhooks start without it (0)
  await db.schema
    .alterTable('indieweb_webmention_account')
    .addColumn('webhook_webmention_io', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('indieweb_webmention_account').dropColumn('webhook_webmention_io').execute();
}
