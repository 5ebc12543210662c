import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import type { DatabaseLocation } from '../../src/config/config.js';
import { createDatabase, type DatabaseHandle, type DialectName } from '../../src/storage/connect.js';
import { migrateToLatest } from '../../src/storage/migrate.js';

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

export interface TestDatabase extends DatabaseHandle {
  readonly url: string;
  /** Closes and removes the database. */
  dispose(): Promise<void>;
}

/** A fresh, migrated database of the dialect. */
export async function openTestDatabase(dialect: DialectName): Promise<TestDatabase> {
  const fresh = await freshLocation(dialect);
  const handle = createDatabase(fresh.location);
  const { error } = await migrateToLatest(handle.db);
  if (error !== undefined) throw error;
  return {
    ...handle,
    url: fresh.url,
    async dispose() {
      await handle.close();
      await fresh.drop();
    },
  };
}
