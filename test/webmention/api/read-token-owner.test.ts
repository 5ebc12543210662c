/**
 * Issue 28 F18: the read token of the webmention.io-compatible API on a real
 * `indiestack serve` (SQLite and PostgreSQL): it stops working when the
 * account is disabled (`indiestack user disable`), only one plain `token=`
 * is accepted (an array spelling is a 400), and no spelling of it reaches
 * the request log.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lastLine, runCli } from '../../helpers/cli.js';
import { DIALECTS, freshLocation } from '../../helpers/databases.js';
import { killServe, startServe, type ServeProcess } from '../../helpers/serve.js';

const API = '/indieweb/webmention/api/mentions.jf2';

for (const dialect of DIALECTS) {
  describe(`the read API token on indiestack serve (${dialect})`, () => {
    let cwd: string;
    let env: Record<string, string>;
    let drop: () => Promise<void>;
    let serve: ServeProcess | undefined;
    let token: string;
    const output: string[] = [];

    beforeAll(async () => {
      cwd = mkdtempSync(path.join(os.tmpdir(), 'indiestack-read-token-'));
      const fresh = await freshLocation(dialect);
      drop = fresh.drop;
      env = { INDIEWEB_DATABASE_URL: fresh.url, INDIEWEB_SECRET: 'r'.repeat(40), INDIEWEB_LOG_LEVEL: 'info' };
      expect(
        (
          await runCli(['user', 'add', 'alice', '--me', 'https://alice.example/', '--password-stdin'], {
            cwd,
            env,
            input: 'a long password\n',
          })
        ).code,
      ).toBe(0);
      const made = await runCli(['webmention', 'token', '--user', 'alice'], { cwd, env });
      expect(made.code, made.stderr).toBe(0);
      token = lastLine(made.stdout);
      serve = await startServe(cwd, env);
      // the request log: pino writes it to standard output
      serve.child.stdout?.on('data', (chunk: Buffer) => output.push(chunk.toString('utf8')));
    }, 120_000);

    afterAll(async () => {
      await killServe(serve);
      await drop?.();
      if (cwd !== undefined) rmSync(cwd, { recursive: true, force: true });
    });

    it('token[]= and a repeated token are a 400 naming the one accepted spelling; none of them is logged', async () => {
      const base = serve!.base;
      expect((await fetch(`${base}${API}?token=${token}`)).status).toBe(200);
      for (const query of [`token[]=${token}`, `token%5B%5D=${token}`, `token[0]=${token}`, `token=${token}&token=${token}`]) {
        const answer = await fetch(`${base}${API}?${query}`);
        expect(answer.status, query).toBe(400);
        expect(await answer.json()).toEqual({
          error: 'invalid_input',
          error_description: 'token must be given once, as a plain token= parameter (not token[] or repeated)',
        });
      }
      // other spellings of the name the parser does not read are still kept out of the log
      await fetch(`${base}${API}?TOKEN=${token}&tok%65n=${token}&%20token=${token}&access_token[x]=${token}`);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const log = output.join('') + serve!.log.join('');
      expect(log).toContain('mentions.jf2');
      expect(log).not.toContain(token);
    });

    it('`indiestack user disable` ends the token: 401 on the next request, without rotating it', async () => {
      const base = serve!.base;
      expect((await fetch(`${base}${API}?token=${token}`)).status).toBe(200);
      const disabled = await runCli(['user', 'disable', 'alice'], { cwd, env });
      expect(disabled.code, disabled.stderr).toBe(0);
      const refused = await fetch(`${base}${API}?token=${token}`);
      expect(refused.status).toBe(401);
      expect(await refused.json()).toEqual({ error: 'forbidden', error_description: 'the token is not valid' });
      // the same token works again only when the operator enables the account again
      expect((await runCli(['user', 'enable', 'alice'], { cwd, env })).code).toBe(0);
      expect((await fetch(`${base}${API}?token=${token}`)).status).toBe(200);
    });
  });
}
