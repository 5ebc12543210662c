import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { inject } from 'vitest';
import type { DatabaseLocation } from '../../src/config/config.js';
import { createDatabase, type DatabaseHandle, type DialectName } from '../../src/storage/connect.js';
import type { Migrator } from 'kysely/migration';
import { MIGRATION_LOCK_TABLE, MIGRATION_TABLE, migrateToLatest, schemaMigrator } from '../../src/storage/migrate.js';

/**
 * Every dialect each repository test runs on: a SQLite file and a real
 * PostgreSQL; `INDIESTACK_TEST_DIALECTS=sqlite` (the quick tier) narrows it.
 */
export const DIALECTS: readonly DialectName[] = readDialects(process.env.INDIESTACK_TEST_DIALECTS);

/** Whether this run has a PostgreSQL (tests written for PostgreSQL alone skip without it). */
export const HAS_POSTGRES = DIALECTS.includes('postgres');

function readDialects(value: string | undefined): DialectName[] {
  if (value === undefined || value === '') return ['sqlite', 'postgres'];
  const names = value.split(',').map((name) => name.trim());
  for (const name of names)
    if (name !== 'sqlite' && name !== 'postgres') throw new Error(`INDIESTACK_TEST_DIALECTS: '${name}' is neither sqlite nor postgres`);
  return names as DialectName[];
}

let counter = 0;

/** A fresh, empty database location of the dialect (a new SQLite file, or a new PostgreSQL database). */
export async function freshLocation(dialect: DialectName): Promise<{ location: DatabaseLocation; url: string; drop(): Promise<void> }> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'indiestack-sqlite-'));
    const filename = path.join(dir, 'test.sqlite');
    return {
      location: { kind: 'sqlite', filename },
      url: `sqlite:${filename}`,
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const admin = inject('postgresAdminUrl');
  if (admin === undefined)
    throw new Error('this test needs PostgreSQL, which this tier does not start (npm run test:quick is SQLite only)');
  const name = `t_${process.pid}_${Date.now()}_${counter++}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  await client.query(`create database ${name}`);
  await client.end();
  const url = admin.replace(/\/postgres$/, `/${name}`);
  return {
    location: { kind: 'postgres', url },
    url,
    drop: async () => {
      const c = new pg.Client({ connectionString: admin });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

/**
 * A new, empty database of the dialect and the migrator over it, for a test
 * that steps through schema versions (`migrator.migrateTo(…)`); closed and
 * removed after `use`, whatever it did.
 */
export async function withUnmigratedDatabase<T>(
  dialect: DialectName,
  use: (database: { handle: DatabaseHandle; migrator: Migrator; fresh: { url: string } }) => Promise<T>,
): Promise<T> {
  const fresh = await freshLocation(dialect);
  const handle = createDatabase(fresh.location);
  try {
    return await use({ handle, migrator: schemaMigrator(handle.db), fresh });
  } finally {
    await handle.close();
    await fresh.drop();
  }
}

export interface TestDatabase extends DatabaseHandle {
  readonly url: string;
  /** Closes and removes the database. */
  dispose(): Promise<void>;
}

/** A fresh, migrated database of the dialect. */
export async function openTestDatabase(dialect: DialectName): Promise<TestDatabase> {
  const reused = dialect === 'postgres' ? spare.pop() : undefined;
  const fresh = reused ?? (await freshLocation(dialect));
  // a database already migrated: one given back (PostgreSQL) or a copy of the worker's first (SQLite)
  let migrated = reused !== undefined;
  if (fresh.location.kind === 'sqlite' && sqliteTemplate !== null) {
    copyFileSync(sqliteTemplate, fresh.location.filename);
    migrated = true;
  }
  const handle = createDatabase(fresh.location);
  if (!migrated) {
    const { error } = await migrateToLatest(handle.db);
    if (error !== undefined) throw error;
    if (dialect === 'postgres') pristine ??= await withClient(fresh.url, describePristine);
    else sqliteTemplate ??= await keptAsTemplate(handle);
  }
  return {
    ...handle,
    url: fresh.url,
    async dispose() {
      await handle.close();
      if (dialect === 'postgres' && (await withClient(fresh.url, resetForReuse).catch(() => false))) spare.push(fresh);
      else await fresh.drop();
    },
  };
}

/**
 * A copy of this worker's first migrated SQLite database: the next ones are
 * copies of it (a file copy instead of twenty migrations, ~15 ms of CPU each).
 */
let sqliteTemplate: string | null = null;

async function keptAsTemplate(handle: DatabaseHandle): Promise<string> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'indiestack-sqlite-template-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const filename = path.join(dir, 'migrated.sqlite');
  await sql`vacuum into ${sql.lit(filename)}`.execute(handle.db);
  return filename;
}

/**
 * PostgreSQL databases of this worker given back and reset, for the next
 * {@link openTestDatabase}. Creating a database (a copy of template1) and
 * dropping it cost ~0.3 s of PostgreSQL's CPU each, far more than resetting
 * one (a few ms): a file's databases are reused by the next files of the
 * same worker.
 */
const spare: Awaited<ReturnType<typeof freshLocation>>[] = [];

/**
 * A just-migrated database, taken from this worker's first one right after its migrations: its shape, its
 * tables and sequences, and the rows the migrations put in them (e.g. the webmention counter of migration 0009).
 */
let pristine: { shape: string; tables: string[]; sequences: string[]; seeds: { table: string; rows: string }[] } | null = null;

async function withClient<T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end().catch(() => {});
  }
}

async function describePristine(client: pg.Client): Promise<NonNullable<typeof pristine>> {
  const shape = String((await client.query(SHAPE)).rows[0].shape);
  const listed = await client.query<{ name: string }>(
    `select quote_ident(tablename) as name from pg_tables where schemaname = 'public' and tablename not in ($1, $2) order by 1`,
    [MIGRATION_TABLE, MIGRATION_LOCK_TABLE],
  );
  const tables = listed.rows.map((row) => row.name);
  const sequences = await client.query<{ name: string }>(
    `select quote_ident(sequencename) as name from pg_sequences where schemaname = 'public' order by 1`,
  );
  const seeds: { table: string; rows: string }[] = [];
  for (const table of tables) {
    const { rows } = await client.query<{ rows: unknown }>(`select json_agg(t)::text as rows from ${table} as t`);
    if (rows[0]?.rows != null) seeds.push({ table, rows: String(rows[0].rows) });
  }
  return { shape, tables, sequences: sequences.rows.map((row) => row.name), seeds };
}

/**
 * Resets a PostgreSQL test database to {@link pristine} for reuse, when that
 * is safe: nobody else is connected to it, and its schema, owners and grants
 * are still exactly what the migrations made (a test that migrated down or
 * added an index or a grant leaves it to be dropped). Empties every table but
 * the migrations' own, puts the migrations' rows back and restarts the
 * sequences. Whether it was reset.
 */
async function resetForReuse(client: pg.Client): Promise<boolean> {
  if (pristine === null) return false;
  await client.query(`set lock_timeout = '1s'`);
  const others = await client.query(
    `select count(*)::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`,
  );
  if (others.rows[0].n !== 0) return false;
  if (String((await client.query(SHAPE)).rows[0].shape) !== pristine.shape) return false;
  // the same shape, so the same tables and sequences as the pristine one. Rows deleted, not truncated (a truncate
  // makes new files for every table and index: 0.15 s of PostgreSQL's CPU against 1.5 ms), without triggers or
  // foreign-key checks (session_replication_role): every table is emptied
  await client.query('begin');
  try {
    await client.query('set local session_replication_role = replica');
    for (const table of pristine.tables) await client.query(`delete from ${table}`);
    for (const { table, rows } of pristine.seeds)
      await client.query(`insert into ${table} select * from json_populate_recordset(null::${table}, $1::json)`, [rows]);
    for (const sequence of pristine.sequences) await client.query(`alter sequence ${sequence} restart`);
    await client.query('commit');
  } catch (error) {
    await client.query('rollback');
    throw error;
  }
  return true;
}

/** The public schema's tables, columns, indexes, triggers, functions, owners and grants, and the migrations applied. */
const SHAPE = `
  select md5(string_agg(item, E'\n' order by item)) as shape from (
    select 'relation ' || c.relname || ' ' || c.relkind::text || ' ' || c.relowner::regrole::text || ' ' || coalesce(c.relacl::text, '') as item
      from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'public'
    union all
    select 'column ' || c.relname || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod) || ' ' || a.attnotnull::text
      from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'public' and a.attnum > 0 and not a.attisdropped
    union all
    select 'index ' || indexdef from pg_indexes where schemaname = 'public'
    union all
    select 'trigger ' || pg_get_triggerdef(t.oid) from pg_trigger t join pg_class c on c.oid = t.tgrelid
      join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'public' and not t.tgisinternal
    union all
    select 'function ' || p.oid::regprocedure || ' ' || md5(p.prosrc) from pg_proc p join pg_namespace n on n.oid = p.pronamespace
      where n.nspname = 'public'
    union all
    select 'constraint ' || conname || ' ' || pg_get_constraintdef(oid) from pg_constraint where connamespace = 'public'::regnamespace
    union all
    select 'migration ' || name from ${MIGRATION_TABLE}
  ) as items`;
