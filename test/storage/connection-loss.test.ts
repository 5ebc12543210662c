/**
 * A PostgreSQL connection that its server ends (restart, failover,
 * pg_terminate_backend) must not take the process down, whether the pool
 * holds it idle or a request has it checked out, and the next query must
 * say "unavailable" (503 upstream) rather than fail in an unknown way.
 */
import pg from 'pg';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type DatabaseHandle } from '../../src/storage/connect.js';
import { isDatabaseUnavailable } from '../../src/core/database-faults.js';
import { freshLocation } from '../helpers/databases.js';

describe('PostgreSQL connection ended by the server', () => {
  let fresh: Awaited<ReturnType<typeof freshLocation>>;
  let database: DatabaseHandle;
  let admin: pg.Client;

  beforeAll(async () => {
    fresh = await freshLocation('postgres');
    database = createDatabase(fresh.location);
    admin = new pg.Client({ connectionString: fresh.url });
    await admin.connect();
  });

  afterAll(async () => {
    await admin.end();
    await database.close();
    await fresh.drop();
  });

  const terminate = (pid: number) => admin.query('select pg_terminate_backend($1)', [pid]);

  it('while checked out: no uncaught error, the next query on it is unavailable, and the pool recovers', async () => {
    const failure = await database.db
      .connection()
      .execute(async (connection) => {
        const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(connection);
        await terminate(rows[0]!.pid);
        // the server's FATAL message arrives while no query is running on this client
        await new Promise((resolve) => setTimeout(resolve, 300));
        await sql`select 1`.execute(connection);
        return null;
      })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect(isDatabaseUnavailable(failure)).toBe(true);
    await expect(database.ping()).resolves.toBeUndefined();
  });

  it('while idle in the pool: no uncaught error, and the next query gets a working connection', async () => {
    const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(database.db);
    await terminate(rows[0]!.pid);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await expect(database.ping()).resolves.toBeUndefined();
  });

  it('errors that did not come from the database are never called unavailable, whatever their code', () => {
    expect(isDatabaseUnavailable(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9000'), { code: 'ECONNREFUSED' }))).toBe(false);
    expect(isDatabaseUnavailable(Object.assign(new Error('SQLITE_BUSY: database is locked'), { code: 'SQLITE_BUSY' }))).toBe(false);
  });
});
