// Frozen in time: never edit after release; add a new migration instead.
import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * PostgreSQL only: every committed write that can make a validated access
 * token invalid (its revocation, expiry or deletion; its owner disabled,
 * renamed, deleted, its password changed or sessions ended; a profile URL
 * changed) sends `NOTIFY indieweb_auth_change` in its own transaction, so
 * each instance drops the tokens it remembers (storage/change-feed.ts).
 * Touching `last_used_at` and inserting tokens notify nobody. Written as
 * triggers, so writes from any process (CLI included) are covered.
 * SQLite needs nothing: its `PRAGMA data_version` sees every commit.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`
    create function indieweb_notify_auth_change() returns trigger language plpgsql as $$
    begin
      perform pg_notify('indieweb_auth_change', '');
      return null;
    end
    $$`.execute(db);
  await sql`
    create trigger indieweb_token_auth_change
    after update of token_hash, user_id, client_id, me, scope, expires_at, revoked_at, grant_id or delete or truncate on indieweb_token
    for each statement execute procedure indieweb_notify_auth_change()`.execute(db);
  await sql`
    create trigger indieweb_user_auth_change
    after update or delete or truncate on indieweb_user
    for each statement execute procedure indieweb_notify_auth_change()`.execute(db);
  await sql`
    create trigger indieweb_user_profile_url_auth_change
    after insert or update or delete or truncate on indieweb_user_profile_url
    for each statement execute procedure indieweb_notify_auth_change()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`drop trigger indieweb_user_profile_url_auth_change on indieweb_user_profile_url`.execute(db);
  await sql`drop trigger indieweb_user_auth_change on indieweb_user`.execute(db);
  await sql`drop trigger indieweb_token_auth_change on indieweb_token`.execute(db);
  await sql`drop function indieweb_notify_auth_change()`.execute(db);
}
