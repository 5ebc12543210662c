// Frozen in time: never edit after release; add a new migration instead.
import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * Issue 31: an author's home page counted every listed entry of theirs on each
 * view (O(n): 13 page views a second at 100,000 entries on SQLite). Migration
 * 0018's row per account gets a `listed` count beside `live`, kept by the same
 * triggers in the writer's own transaction. Listed is the rule of
 * core/visibility.ts (LISTED) as it stood at this release: live, published and
 * public. The trigger bodies are made by one function, with and without the
 * listed count, so `down` puts back exactly what 0018 made.
 */
/** The listed rule over a row (`new.`, `old.`, a table's name) or, without one, over the columns of a statement's rows. */
const listedIn = (row?: string) => {
  const at = row === undefined ? '' : `${row}.`;
  return `(${at}deleted_at is null and ${at}post_status = 'published' and ${at}visibility = 'public')`;
};

async function postgresFunctions(db: Kysely<any>, withListed: boolean): Promise<void> {
  const listed = (expression: string) => (withListed ? `, ${expression}` : '');
  const upsert = `on conflict (user_id) do update set live = indieweb_entry_count.live + excluded.live${listed(
    'listed = indieweb_entry_count.listed + excluded.listed',
  )}, version = indieweb_entry_count.version + excluded.version`;
  /** A statement trigger's function: `rows` gives each changed account's (user_id, live, [listed,] version) changes. */
  const countFunction = (event: string, rows: string) =>
    sql
      .raw(
        `create or replace function indieweb_entry_count_${event}() returns trigger language plpgsql as $$
      begin
        insert into indieweb_entry_count (user_id, live${listed('listed')}, version)
          ${rows}
        ${upsert};
        return null;
      end
      $$`,
      )
      .execute(db);
  await countFunction(
    'insert',
    `select user_id, count(*) filter (where deleted_at is null)${listed(`count(*) filter (where ${listedIn()})`)}, count(*)
          from added group by user_id order by user_id`,
  );
  await countFunction(
    'update',
    `select user_id, sum(delta)${listed('sum(listed_delta)')}, count(*) from (
            select user_id, case when deleted_at is null then 1 else 0 end as delta${listed(
              `case when ${listedIn()} then 1 else 0 end as listed_delta`,
            )} from after_rows
            union all
            select user_id, case when deleted_at is null then -1 else 0 end${listed(`case when ${listedIn()} then -1 else 0 end`)} from before_rows
          ) changes group by user_id order by user_id`,
  );
  await countFunction(
    'delete',
    `select user_id, -count(*) filter (where deleted_at is null)${listed(`-count(*) filter (where ${listedIn()})`)}, count(*)
          from removed group by user_id order by user_id`,
  );
}

async function sqliteTriggers(db: Kysely<any>, withListed: boolean): Promise<void> {
  const listed = (expression: string) => (withListed ? `, ${expression}` : '');
  const add = `insert into indieweb_entry_count (user_id, live${listed('listed')}, version)
      values (new.user_id, new.deleted_at is null${listed(listedIn('new'))}, 1)
      on conflict (user_id) do update set live = live + excluded.live${listed('listed = listed + excluded.listed')}, version = version + 1;`;
  const remove = `update indieweb_entry_count set live = live - (old.deleted_at is null)${listed(
    `listed = listed - ${listedIn('old')}`,
  )}, version = version + 1 where user_id = old.user_id;`;
  for (const event of ['insert', 'update', 'delete']) await sql.raw(`drop trigger if exists indieweb_entry_count_${event}`).execute(db);
  await sql.raw(`create trigger indieweb_entry_count_insert after insert on indieweb_entry begin ${add} end`).execute(db);
  await sql.raw(`create trigger indieweb_entry_count_update after update on indieweb_entry begin ${remove} ${add} end`).execute(db);
  await sql.raw(`create trigger indieweb_entry_count_delete after delete on indieweb_entry begin ${remove} end`).execute(db);
}

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  // no writer between the new triggers and the count below (the migration's transaction holds the lock to its end)
  if (postgres) await sql`lock table indieweb_entry in share row exclusive mode`.execute(db);
  await db.schema
    .alterTable('indieweb_entry_count')
    .addColumn('listed', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  if (postgres) await postgresFunctions(db, true);
  else await sqliteTriggers(db, true);
  await sql
    .raw(
      `update indieweb_entry_count set listed = (select count(*) from indieweb_entry
        where indieweb_entry.user_id = indieweb_entry_count.user_id and ${listedIn('indieweb_entry')})`,
    )
    .execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) await postgresFunctions(db, false);
  else await sqliteTriggers(db, false);
  await db.schema.alterTable('indieweb_entry_count').dropColumn('listed').execute();
}
