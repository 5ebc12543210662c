/**
 * Validated tokens are remembered between requests; a change made by any
 * other process (the CLI, another instance) must be seen. On SQLite, by the
 * very next request (`PRAGMA data_version`). On PostgreSQL, once the change's
 * `NOTIFY` has arrived: within the documented bound of one second
 * (docs/deployment.md), measured in milliseconds; two instances are tested in
 * token-cache-postgres.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Base64Url } from '../../src/core/crypto.js';
import { createUsersRepository } from '../../src/storage/repositories/users.js';
import { lastLine, runCli } from '../helpers/cli.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';

/** How long a change may take to reach a PostgreSQL instance's token memory (docs/deployment.md). */
const NOTIFICATION_BOUND_MS = 1_000;

for (const dialect of DIALECTS) {
  describe(`a running server sees other processes' changes (${dialect}: ${dialect === 'sqlite' ? 'on the next request' : 'within the bound'})`, () => {
    let t: TestApp;
    let cwd: string;
    const cli = (args: string[], input?: string) =>
      runCli(args, { cwd, env: { INDIEWEB_DATABASE_URL: t.database.url }, ...(input === undefined ? {} : { input }) });
    const config = (token: string) =>
      t.app.inject({ method: 'GET', url: '/indieweb/micropub/?q=config', headers: { authorization: `Bearer ${token}` } });
    const create = (token: string) =>
      t.app.inject({
        method: 'POST',
        url: '/indieweb/micropub/',
        headers: { authorization: `Bearer ${token}` },
        payload: { type: ['h-entry'], properties: { content: ['hello'] } },
      });
    const issue = async (user = 'alice') => {
      const result = await cli(['token', 'issue', '--user', user, '--client-id', 'https://app.example/', '--scope', 'create']);
      expect(result.code).toBe(0);
      return lastLine(result.stdout);
    };
    /** Runs SQL through a connection of its own, as another instance would. */
    const otherConnection = async (text: string, values: unknown[]) => {
      if (dialect === 'sqlite') {
        const other = new SqliteDatabase(t.database.url.replace(/^sqlite:/, ''));
        try {
          other.prepare(text.replace(/\$\d/g, '?')).run(...values);
        } finally {
          other.close();
        }
        return;
      }
      const client = new pg.Client({ connectionString: t.database.url });
      await client.connect();
      try {
        await client.query(text, values);
      } finally {
        await client.end();
      }
    };

    /**
     * The token is refused: on SQLite by this very request; on PostgreSQL within
     * the bound (polled, so the time the notification takes is all it may take).
     */
    const expectRefused = async (request: () => Promise<{ statusCode: number }>) => {
      if (dialect === 'sqlite') {
        expect((await request()).statusCode).toBe(401);
        return;
      }
      const deadline = performance.now() + NOTIFICATION_BOUND_MS;
      let status = (await request()).statusCode;
      while (status !== 401 && performance.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 2));
        status = (await request()).statusCode;
      }
      expect(status).toBe(401);
    };

    beforeAll(async () => {
      t = await buildTestApp({ dialect });
      cwd = mkdtempSync(path.join(os.tmpdir(), 'indiestack-token-cache-'));
      for (const name of ['alice', 'bob']) {
        const added = await cli(['user', 'add', name, '--me', `https://${name}.example/`, '--password-stdin'], 'a long password\n');
        expect(added.code).toBe(0);
      }
    });
    afterAll(async () => {
      await t.close();
      rmSync(cwd, { recursive: true, force: true });
    });

    it('a token revoked with `indiestack token revoke` is refused on the next request', async () => {
      const token = await issue();
      expect((await config(token)).statusCode).toBe(200);
      expect((await config(token)).statusCode).toBe(200);
      const listed = await cli(['token', 'list']);
      const id = listed.stdout
        .split('\n')
        .find((line) => line.includes('https://app.example/') && !line.endsWith('revoked'))
        ?.split(/\s+/)[0];
      expect(id).toBeDefined();
      expect((await cli(['token', 'revoke', id!])).code).toBe(0);
      await expectRefused(() => config(token));
      expect((await create(token)).statusCode).toBe(401);
    });

    it('`indiestack user disable` ends every token of the account on the next request, for good: enable does not bring them back (issue 23 #10)', async () => {
      const token = await issue('bob');
      // the first use writes last_used_at; from the second on, the validation is remembered
      expect((await create(token)).statusCode).toBe(201);
      expect((await create(token)).statusCode).toBe(201);
      expect((await cli(['user', 'disable', 'bob'])).code).toBe(0);
      await expectRefused(() => config(token));
      expect((await create(token)).statusCode).toBe(401);
      expect((await cli(['user', 'enable', 'bob'])).code).toBe(0);
      expect((await config(token)).statusCode).toBe(401);
      // the enabled account works again with a new token
      expect((await config(await issue('bob'))).statusCode).toBe(200);
    });

    it('every one of many revocations through another connection is seen by the next request', async () => {
      const alice = await createUsersRepository(t.database.db).findByName('alice');
      for (let i = 0; i < 20; i++) {
        const { token } = await t.app.indieweb.tokens.issue({
          userId: alice!.id,
          clientId: 'https://app.example/',
          me: 'https://alice.example/',
          scope: 'create',
          expiresIn: null,
        });
        expect((await config(token)).statusCode).toBe(200);
        expect((await config(token)).statusCode).toBe(200);
        await otherConnection('update indieweb_token set revoked_at = $1 where token_hash = $2', [
          new Date().toISOString(),
          sha256Base64Url(token),
        ]);
        await expectRefused(() => config(token));
      }
    });

    it('a token whose expiry another connection moves into the past is refused on the next request', async () => {
      const token = await issue();
      expect((await config(token)).statusCode).toBe(200);
      expect((await config(token)).statusCode).toBe(200);
      await otherConnection('update indieweb_token set expires_at = $1 where token_hash = $2', [
        new Date(Date.now() - 60_000).toISOString(),
        sha256Base64Url(token),
      ]);
      await expectRefused(() => config(token));
    });
  });
}
