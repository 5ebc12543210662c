/**
 * Issue 18: with INDIEWEB_MICROPUB_HANDLER=database, entries survive a
 * restart of a real `indiestack serve` (killed, not stopped cleanly), on
 * SQLite and PostgreSQL.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lastLine, runCli } from '../helpers/cli.js';
import { DIALECTS, freshLocation } from '../helpers/databases.js';
import { killServe, startServe, type ServeProcess } from '../helpers/serve.js';

for (const dialect of DIALECTS) {
  describe(`database handler across a restart of indiestack serve (${dialect})`, () => {
    let cwd: string;
    let env: Record<string, string>;
    let drop: () => Promise<void>;
    let serve: ServeProcess | undefined;
    let token: string;

    beforeAll(async () => {
      cwd = mkdtempSync(path.join(os.tmpdir(), 'indiestack-db-handler-'));
      const fresh = await freshLocation(dialect);
      drop = fresh.drop;
      env = { INDIEWEB_DATABASE_URL: fresh.url, INDIEWEB_SECRET: 'x'.repeat(40), INDIEWEB_MICROPUB_HANDLER: 'database' };
      const added = await runCli(['user', 'add', 'alice', '--me', 'https://alice.example/', '--password-stdin'], {
        cwd,
        env,
        input: 'a long password\n',
      });
      expect(added.code).toBe(0);
      const issued = await runCli(
        ['token', 'issue', '--user', 'alice', '--client-id', 'https://app.example/', '--scope', 'create update delete'],
        { cwd, env },
      );
      expect(issued.code).toBe(0);
      token = lastLine(issued.stdout);
    }, 120_000);

    afterAll(async () => {
      await killServe(serve);
      await drop();
      rmSync(cwd, { recursive: true, force: true });
    });

    it('an entry created before a kill is found by q=source after the next start', async () => {
      serve = await startServe(cwd, env);
      const base = serve.base;
      const auth = { authorization: `Bearer ${token}` };
      const created = await fetch(`${base}/indieweb/micropub/`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({
          type: ['h-entry'],
          properties: { name: ['Still here'], content: ['written before the kill'], 'post-status': ['draft'] },
        }),
      });
      expect(created.status).toBe(201);
      const url = created.headers.get('location')!;
      const month = new Date().toISOString().slice(0, 7).replace('-', '/');
      expect(url).toBe(`${base}/alice/${month}/still-here/`);
      const deleted = await fetch(`${base}/indieweb/micropub/`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ h: 'entry', content: 'deleted before the kill' }).toString(),
      });
      const gone = deleted.headers.get('location')!;
      expect(
        (
          await fetch(`${base}/indieweb/micropub/`, {
            method: 'POST',
            headers: { ...auth, 'content-type': 'application/json' },
            body: JSON.stringify({ action: 'delete', url: gone }),
          })
        ).status,
      ).toBe(204);

      await killServe(serve);
      // the same address, so the same base URL (entry URLs are absolute under it)
      serve = await startServe(cwd, env, serve.port);
      const source = await fetch(`${serve.base}/indieweb/micropub/?${new URLSearchParams({ q: 'source', url })}`, { headers: auth });
      expect(source.status).toBe(200);
      expect(await source.json()).toEqual({
        type: ['h-entry'],
        properties: { name: ['Still here'], content: ['written before the kill'], 'post-status': ['draft'] },
      });
      // a client may send the path alone
      const relative = await fetch(`${serve.base}/indieweb/micropub/?${new URLSearchParams({ q: 'source', url: new URL(url).pathname })}`, {
        headers: auth,
      });
      expect(relative.status).toBe(200);
      const list = await fetch(`${serve.base}/indieweb/micropub/?q=source`, { headers: auth });
      const body = (await list.json()) as { items: { properties: { url: string[] } }[]; paging: { total: number } };
      expect(body.paging.total).toBe(1);
      expect(body.items.map((item) => item.properties.url[0])).toEqual([url]);
    }, 120_000);
  });
}
