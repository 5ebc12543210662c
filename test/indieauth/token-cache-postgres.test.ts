/**
 * The validated-token memory on PostgreSQL, across instances: two servers
 * (A and B) on one embedded PostgreSQL database. B remembers the tokens it
 * validated; a revocation, a disabled account or a password change made
 * through A (or by another process, as the CLI is) is refused by B within
 * the documented bound (docs/deployment.md: under one second), and a lost
 * listening connection never leaves B answering from memory.
 */
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/env.js';
import { createManualClock } from '../../src/core/clock.js';
import { createServer } from '../../src/app/server.js';
import { CHANGE_FEED_APPLICATION_NAME } from '../../src/storage/change-feed.js';
import { createDatabase, type DatabaseHandle } from '../../src/storage/connect.js';
import { addUser, getAdmin, issueToken } from '../helpers/admin.js';
import { buildTestApp, TEST_SECRET, type TestApp } from '../helpers/app.js';
import { micropubWith, revokeAtEndpoint } from '../helpers/grants.js';
import { waitFor } from '../helpers/serve.js';

/** The documented bound for a change to reach every instance. */
const BOUND_MS = 1_000;

/** Milliseconds until `check` holds, polled every 2 ms; Infinity when `ms` pass first. */
async function millisecondsUntil(check: () => Promise<boolean>, ms = 10_000): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < ms) {
    if (await check()) return performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  return Infinity;
}

describe('remembered tokens on PostgreSQL, two instances', () => {
  let a: TestApp;
  let bDatabase: DatabaseHandle;
  let b: { app: FastifyInstance };
  let admin: pg.Client;
  const measured: Record<string, number> = {};

  beforeAll(async () => {
    a = await buildTestApp({ dialect: 'postgres' });
    bDatabase = createDatabase({ kind: 'postgres', url: a.database.url });
    const config = loadConfig({
      env: { INDIEWEB_BASE_URL: 'http://indiestack.test', INDIEWEB_SECRET: TEST_SECRET, INDIEWEB_DATABASE_URL: a.database.url },
    });
    b = await createServer({ config, database: bDatabase, clock: createManualClock(new Date()), logger: false, worker: false });
    await b.app.ready();
    admin = new pg.Client({ connectionString: a.database.url });
    await admin.connect();
    // both instances listen before anything is measured
    expect(await waitFor(async () => a.database.changeStamp() !== null && bDatabase.changeStamp() !== null, 15_000)).toBe(true);
  });
  afterAll(async () => {
    process.stderr.write(`token cache on PostgreSQL, instance B saw the change after: ${JSON.stringify(measured)} (ms)\n`);
    await admin?.end();
    await b?.app.close();
    await bDatabase?.close();
    await a?.close();
  });

  const onB = (token: string) => micropubWith({ app: b.app } as TestApp, token);

  /** B answers the token from memory from now on (asked twice: the second answer is remembered). */
  async function rememberedOnB(token: string) {
    expect((await onB(token)).statusCode).toBe(200);
    expect((await onB(token)).statusCode).toBe(200);
  }

  /** A write no trigger announces, as a database without migration 0011 would make. */
  async function unannounced(statement: string, values: unknown[]) {
    await admin.query('begin');
    await admin.query('set local session_replication_role = replica');
    await admin.query(statement, values);
    await admin.query('commit');
  }

  it('B answers a token it validated from memory: a write nobody announces is not seen', async () => {
    const { user } = await addUser(a, 'remembered');
    const { token, id } = await issueToken(a, user);
    await rememberedOnB(token);
    await unannounced('update indieweb_token set revoked_at = $1 where id = $2', [new Date().toISOString(), id]);
    // what the notification is for: without it, B would go on accepting a revoked token
    expect((await onB(token)).statusCode).toBe(200);
    await admin.query('update indieweb_token set scope = scope where id = $1', [id]);
    expect(await millisecondsUntil(async () => (await onB(token)).statusCode === 401)).toBeLessThan(BOUND_MS);
  });

  it("an instance's own revocation is refused by it on the very next request, before any notification", async () => {
    const { user } = await addUser(a, 'own-write');
    const { token } = await issueToken(a, user);
    const onA = () => micropubWith(a, token);
    expect((await onA()).statusCode).toBe(200);
    expect((await onA()).statusCode).toBe(200);
    await rememberedOnB(token);
    // no notification at all: only A's count of its own writes can make it look again
    await admin.query('alter table indieweb_token disable trigger indieweb_token_auth_change');
    try {
      expect((await revokeAtEndpoint(a, token)).statusCode).toBe(200);
      expect((await onA()).statusCode).toBe(401);
      // B heard nothing, which is what proves the notification was off
      expect((await onB(token)).statusCode).toBe(200);
    } finally {
      await admin.query('alter table indieweb_token enable trigger indieweb_token_auth_change');
    }
  });

  it('a token revoked at A is refused by B within the bound', async () => {
    const { user } = await addUser(a, 'revoker');
    const { token } = await issueToken(a, user);
    await rememberedOnB(token);
    expect((await revokeAtEndpoint(a, token)).statusCode).toBe(200);
    measured.revocation = await millisecondsUntil(async () => (await onB(token)).statusCode === 401);
    expect(measured.revocation).toBeLessThan(BOUND_MS);
  });

  it('an account disabled by another process (as `indiestack user disable` is) is refused by B within the bound', async () => {
    const { user } = await addUser(a, 'disabled');
    const { token } = await issueToken(a, user);
    await rememberedOnB(token);
    // only the account flag: the token itself stays unrevoked, so B must see the owner change
    await admin.query('update indieweb_user set active = 0 where id = $1', [user.id]);
    measured.disable = await millisecondsUntil(async () => (await onB(token)).statusCode === 401);
    expect(measured.disable).toBeLessThan(BOUND_MS);
  });

  it('an account disabled through A: its tokens and its session are refused by B', async () => {
    const { user, jar } = await addUser(a, 'disabled2');
    const { token } = await issueToken(a, user);
    await rememberedOnB(token);
    expect((await getAdmin({ app: b.app } as TestApp, jar, '/profile/')).statusCode).toBe(200);
    await a.app.indieweb.users!.setActive('disabled2', false);
    measured.disableThroughA = await millisecondsUntil(async () => (await onB(token)).statusCode === 401);
    expect(measured.disableThroughA).toBeLessThan(BOUND_MS);
    const page = await getAdmin({ app: b.app } as TestApp, jar, '/profile/');
    expect(page.statusCode).toBe(303);
    expect(page.headers.location).toMatch(/\/indieweb\/login\//);
  });

  it('a password changed at A ends the session on B at once; the tokens stay (SPEC: a password change ends sessions)', async () => {
    const { user, jar } = await addUser(a, 'changer');
    const { token } = await issueToken(a, user);
    await rememberedOnB(token);
    const bApp = { app: b.app } as TestApp;
    expect((await getAdmin(bApp, jar, '/account/')).statusCode).toBe(200);
    await a.app.indieweb.users!.setPassword('changer', 'a new password 2');
    const page = await getAdmin(bApp, jar, '/account/');
    expect(page.statusCode).toBe(303);
    expect(page.headers.location).toMatch(/\/indieweb\/login\//);
    expect((await onB(token)).statusCode).toBe(200);
  });

  it('a dropped listening connection: B stops answering from memory, listens again and remembers again', async () => {
    const { user } = await addUser(a, 'dropped');
    const { token, id } = await issueToken(a, user);
    await rememberedOnB(token);
    // a revocation B cannot hear of: only the lost connection can make it look again
    await unannounced('update indieweb_token set revoked_at = $1 where id = $2', [new Date().toISOString(), id]);
    expect((await onB(token)).statusCode).toBe(200);
    const { rowCount } = await admin.query(
      `select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1 and datname = current_database()`,
      [CHANGE_FEED_APPLICATION_NAME],
    );
    expect(rowCount).toBe(2);
    measured.droppedConnection = await millisecondsUntil(async () => (await onB(token)).statusCode === 401);
    expect(measured.droppedConnection).toBeLessThan(BOUND_MS);
    // listening again, B remembers again (and hears again)
    expect(await waitFor(async () => bDatabase.changeStamp() !== null, 15_000)).toBe(true);
    const second = await issueToken(a, user);
    await rememberedOnB(second.token);
    await unannounced('update indieweb_token set revoked_at = $1 where id = $2', [new Date().toISOString(), second.id]);
    expect((await onB(second.token)).statusCode).toBe(200);
    expect((await revokeAtEndpoint(a, second.token)).statusCode).toBe(200);
    expect(await millisecondsUntil(async () => (await onB(second.token)).statusCode === 401)).toBeLessThan(BOUND_MS);
  });
});
