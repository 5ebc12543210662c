// Frozen in time: never edit after release; add a new migration instead.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // an account may refuse password sign-in and accept only its passkeys
  await db.schema
    .alterTable('indieweb_user')
    .addColumn('passwordless', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable('indieweb_passkey')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull())
    // the credential id as the authenticator gives it, base64url: how a sign-in names its passkey
    .addColumn('credential_id', 'text', (c) => c.notNull().unique())
    // COSE public key, base64url: public, not a secret
    .addColumn('public_key', 'text', (c) => c.notNull())
    // a signature counter is an unsigned 32-bit number: more than PostgreSQL's integer holds
    .addColumn('counter', 'bigint', (c) => c.notNull())
    .addColumn('transports', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('device_type', 'text', (c) => c.notNull())
    .addColumn('backed_up', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text')
    .execute();
  await db.schema.createIndex('indieweb_passkey_user').on('indieweb_passkey').column('user_id').execute();
  // one row per ceremony in progress, keyed by a random id: any instance can finish what another began, once
  await db.schema
    .createTable('indieweb_webauthn_challenge')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('challenge', 'text', (c) => c.notNull())
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('indieweb_webauthn_challenge_expiry').on('indieweb_webauthn_challenge').column('expires_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('indieweb_webauthn_challenge').execute();
  await db.schema.dropTable('indieweb_passkey').execute();
  await db.schema.alterTable('indieweb_user').dropColumn('passwordless').execute();
}
