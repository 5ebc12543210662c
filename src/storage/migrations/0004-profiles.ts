// Frozen in time: never edit after release; add a new migration instead.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('indieweb_profile')
    .addColumn('user_id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text')
    .addColumn('photo_url', 'text')
    .addColumn('url', 'text')
    .addColumn('h_card', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('indieweb_profile').execute();
}
