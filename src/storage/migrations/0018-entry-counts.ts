// Frozen in time: never edit after release; add a new migration instead.
import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * Issue 31: per account, how many live entries it has (q=source's `paging.total`
 * was a count of the account's rows on every list: O(n), 100,000 entries made
 * it the whole cost of a page of 20) and a version that moves with every
 * change of its entries (what the database handler's q=config remembers its
 * categories by). Kept by triggers, so every writer (any instance, the CLI, a
 * restore, SQL by hand) keeps them exact, in the writer's own transaction.
 * PostgreSQL's triggers are per statement and add each account's change in
 * one upsert, in account order: a batch of inserts for several accounts
 * locks their rows in the same order on every instance.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('indieweb_entry_count')
    .addColumn('user_id', 'text', (c) => c.primaryKey())
    .addColumn('live', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('version', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    // the triggers first: creating them locks the table against writers until this migration commits, so the count
    // below sees every entry and misses none written meanwhile
    const upsert = sql.raw(`on conflict (user_id) do update set live = indieweb_entry_count.live + excluded.live,
        version = indieweb_entry_count.version + excluded.version`);
    await sql`
      create function indieweb_entry_count_insert() returns trigger language plpgsql as $$
      begin
        insert into indieweb_entry_count (user_id, live, version)
          select user_id, count(*) filter (where deleted_at is null), count(*) from added group by user_id order by user_id
        ${upsert};
        return null;
      end
      $$`.execute(db);
    await sql`
      create function indieweb_entry_count_update() returns trigger language plpgsql as $$
      begin
        insert into indieweb_entry_count (user_id, live, version)
          select user_id, sum(delta), count(*) from (
            select user_id, case when deleted_at is null then 1 else 0 end as delta from after_rows
            union all
            select user_id, case when deleted_at is null then -1 else 0 end from before_rows
          ) changes group by user_id order by user_id
        ${upsert};
        return null;
      end
      $$`.execute(db);
    await sql`
      create function indieweb_entry_count_delete() returns trigger language plpgsql as $$
      begin
        insert into indieweb_entry_count (user_id, live, version)
          select user_id, -count(*) filter (where deleted_at is null), count(*) from removed group by user_id order by user_id
        ${upsert};
        return null;
      end
      $$`.execute(db);
    await sql`
      create function indieweb_entry_count_truncate() returns trigger language plpgsql as $$
      begin
        delete from indieweb_entry_count;
        return null;
      end
      $$`.execute(db);
    await sql`create trigger indieweb_entry_count_insert after insert on indieweb_entry referencing new table as added
      for each statement execute procedure indieweb_entry_count_insert()`.execute(db);
    await sql`create trigger indieweb_entry_count_update after update on indieweb_entry referencing old table as before_rows new table as after_rows
      for each statement execute procedure indieweb_entry_count_update()`.execute(db);
    await sql`create trigger indieweb_entry_count_delete after delete on indieweb_entry referencing old table as removed
      for each statement execute procedure indieweb_entry_count_delete()`.execute(db);
    await sql`create trigger indieweb_entry_count_truncate after truncate on indieweb_entry
      for each statement execute procedure indieweb_entry_count_truncate()`.execute(db);
  } else {
    // SQLite: one writer at a time, row triggers; the migration's transaction keeps other writers out
    const add = sql.raw(`insert into indieweb_entry_count (user_id, live, version) values (new.user_id, new.deleted_at is null, 1)
        on conflict (user_id) do update set live = live + excluded.live, version = version + 1;`);
    const remove = sql.raw(`update indieweb_entry_count set live = live - (old.deleted_at is null), version = version + 1
        where user_id = old.user_id;`);
    await sql`create trigger indieweb_entry_count_insert after insert on indieweb_entry begin ${add} end`.execute(db);
    await sql`create trigger indieweb_entry_count_update after update on indieweb_entry begin ${remove} ${add} end`.execute(db);
    await sql`create trigger indieweb_entry_count_delete after delete on indieweb_entry begin ${remove} end`.execute(db);
  }
  await sql`
    insert into indieweb_entry_count (user_id, live, version)
    select user_id, sum(case when deleted_at is null then 1 else 0 end), count(*) from indieweb_entry group by user_id`.execute(db);
  // q=source's page: a user's live entries newest created first. 0015's (user, deleted_at, created, id) index served it
  // on SQLite, but PostgreSQL does not take `deleted_at is null` as a fixed value for the order: it read all of the
  // user's index entries and sorted them (150 ms at 100,000). A partial index over live entries serves both; the count
  // it was also for is the row above now.
  await db.schema
    .createIndex('indieweb_entry_user_live_created')
    .on('indieweb_entry')
    .columns(['user_id', 'created_at', 'id'])
    .where(sql.ref('deleted_at'), 'is', null)
    .execute();
  await db.schema.dropIndex('indieweb_entry_user_live').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('indieweb_entry_user_live')
    .on('indieweb_entry')
    .columns(['user_id', 'deleted_at', 'created_at', 'id'])
    .execute();
  await db.schema.dropIndex('indieweb_entry_user_live_created').execute();
  for (const event of ['insert', 'update', 'delete', 'truncate'] as const) {
    if (event === 'truncate' && !(db.getExecutor().adapter instanceof PostgresAdapter)) continue;
    await sql`drop trigger if exists ${sql.raw(`indieweb_entry_count_${event}`)}${sql.raw(
      db.getExecutor().adapter instanceof PostgresAdapter ? ' on indieweb_entry' : '',
    )}`.execute(db);
    if (db.getExecutor().adapter instanceof PostgresAdapter)
      await sql`drop function if exists ${sql.raw(`indieweb_entry_count_${event}`)}()`.execute(db);
  }
  await db.schema.dropTable('indieweb_entry_count').execute();
}
