/**
 * The syndication contract of the command (issue 33) and exactly once across
 * a crash: `indiestack syndication add/list/remove/status` against the
 * Mastodon API double; a server killed with SIGKILL while the double holds
 * the answer to its POST /api/v1/statuses, then restarted, ends with exactly
 * one copy (the job's lease runs out, the retry carries the same
 * Idempotency-Key); a 503 with Retry-After: 1 twice, then success, is done
 * within 30 s.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/cli.js';
import { startMastodonDouble, type MastodonDouble } from '../helpers/mastodon-double.js';
import { freePort } from '../helpers/net.js';
import { killServe, startServe, waitFor, type ServeProcess } from '../helpers/serve.js';

describe('indiestack syndication (Mastodon double)', () => {
  let cwd: string;
  let env: Record<string, string>;
  let double: MastodonDouble;
  let port: number;
  let serve: ServeProcess | undefined;
  const cli = (args: string[], input?: string) => runCli(args, { cwd, env, ...(input === undefined ? {} : { input }) });
  const oneLineFailure = (result: CliResult, text: string) => {
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`indiestack: ${text}\n`);
  };

  beforeAll(async () => {
    cwd = mkdtempSync(path.join(os.tmpdir(), 'indiestack-syndication-cli-'));
    double = await startMastodonDouble({ mediaPolls: 0 });
    port = await freePort();
    env = {
      INDIEWEB_DATABASE_URL: `sqlite:${path.join(cwd, 'indiestack.sqlite')}`,
      INDIEWEB_BASE_URL: `http://127.0.0.1:${port}`,
      INDIEWEB_SECRET: 's'.repeat(40),
      INDIEWEB_MICROPUB_HANDLER: 'database',
      INDIEWEB_ALLOW_PRIVATE_NETWORKS: 'true',
      INDIEWEB_JOB_LEASE_SECONDS: '3',
    };
    expect((await cli(['user', 'add', 'alice', '--me', 'https://alice.example/', '--password-stdin'], 'alice password 1\n')).code).toBe(0);
  });
  afterAll(async () => {
    await killServe(serve);
    await double.close();
    rmSync(cwd, { recursive: true, force: true });
  });

  it('add checks the token first (wrong: exit 1, one line), prints the uid alone; list and remove', async () => {
    oneLineFailure(
      await cli(['syndication', 'add', '--user', 'alice', '--service', 'mastodon', '--url', double.origin], 'wrong-token\n'),
      `mastodon: ${new URL(double.origin).host} refused the access token (401): The access token is invalid`,
    );
    const added = await cli(
      ['syndication', 'add', '--user', 'alice', '--service', 'mastodon', '--url', double.origin],
      `${double.token}\n`,
    );
    expect(added.code).toBe(0);
    expect(added.stdout).toMatch(/^[A-Za-z0-9_-]{12}\n$/);
    expect(added.stderr).not.toContain(double.token);
    const uid = added.stdout.trim();
    const list = await cli(['syndication', 'list', '--user', 'alice']);
    expect(list).toMatchObject({ code: 0, stdout: `${uid}\tmastodon\t@alice@${new URL(double.origin).host}\n` });
    oneLineFailure(await cli(['syndication', 'list', '--user', 'nobody']), 'no user named "nobody"');
    oneLineFailure(await cli(['syndication', 'remove', '--user', 'alice', 'nope']), 'alice has no syndication target nope');
    oneLineFailure(
      await cli(['syndication', 'add', '--user', 'alice', '--service', 'myspace', '--url', double.origin], 'x\n'),
      '--service must be mastodon or bluesky, not "myspace"',
    );
    const second = (
      await cli(['syndication', 'add', '--user', 'alice', '--service', 'mastodon', '--url', double.origin], `${double.token}\n`)
    ).stdout.trim();
    expect((await cli(['syndication', 'remove', '--user', 'alice', second])).code).toBe(0);
    expect((await cli(['syndication', 'list', '--user', 'alice'])).stdout).toBe(
      `${uid}\tmastodon\t@alice@${new URL(double.origin).host}\n`,
    );
    expect(await cli(['syndication', 'status', 'https://nowhere.example/1'])).toMatchObject({ code: 0, stdout: '' });
  });

  it('SIGKILL while the copy is being made, then a restart: exactly one copy, its URL in the status', async () => {
    const uid = (await cli(['syndication', 'list', '--user', 'alice'])).stdout.split('\t')[0]!;
    const token = (
      await cli(['token', 'issue', '--user', 'alice', '--client-id', 'https://app.example/', '--scope', 'create'])
    ).stdout.trim();
    serve = await startServe(cwd, env, port);
    // the double makes the status, then holds its answer: the server is killed before it learns the id
    double.delayCreates(60_000);
    const created = await fetch(`${serve.base}/indieweb/micropub/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ h: 'entry', content: 'Crash test post', 'mp-syndicate-to': uid }).toString(),
    });
    expect(created.status).toBe(201);
    const entryUrl = created.headers.get('location')!;
    expect(await waitFor(async () => double.ownStatuses().some((s) => s.text === 'Crash test post'), 20_000)).toBe(true);
    serve.child.kill('SIGKILL');
    await killServe(serve);
    double.delayCreates(0);
    const before = await cli(['syndication', 'status', entryUrl]);
    expect(before.stdout).toMatch(new RegExp(`^${uid}\\tqueued\\t`));
    serve = await startServe(cwd, env, port);
    expect(await waitFor(async () => (await cli(['syndication', 'status', entryUrl])).stdout.includes('\tsent\t'), 30_000)).toBe(true);
    const copies = double.ownStatuses().filter((s) => s.text === 'Crash test post');
    expect(copies).toHaveLength(1);
    expect(
      double.requests.filter((r) => r.method === 'POST' && r.path === '/api/v1/statuses' && r.idempotencyKey === copies[0]!.idempotencyKey)
        .length,
    ).toBeGreaterThanOrEqual(2);
    expect((await cli(['syndication', 'status', entryUrl])).stdout).toBe(`${uid}\tsent\t${copies[0]!.url}\n`);
  }, 90_000);

  it('a 503 with Retry-After: 1 twice, then success, is done within 30 s', async () => {
    const uid = (await cli(['syndication', 'list', '--user', 'alice'])).stdout.split('\t')[0]!;
    const token = (
      await cli(['token', 'issue', '--user', 'alice', '--client-id', 'https://app.example/', '--scope', 'create'])
    ).stdout.trim();
    double.fail(
      { status: 503, headers: { 'retry-after': '1' }, path: '/api/v1/statuses' },
      { status: 503, headers: { 'retry-after': '1' }, path: '/api/v1/statuses' },
    );
    const started = Date.now();
    const created = await fetch(`${serve!.base}/indieweb/micropub/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ h: 'entry', content: 'Busy instance post', 'mp-syndicate-to': uid }).toString(),
    });
    const entryUrl = created.headers.get('location')!;
    expect(await waitFor(async () => (await cli(['syndication', 'status', entryUrl])).stdout.includes('\tsent\t'), 30_000)).toBe(true);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(double.ownStatuses().filter((s) => s.text === 'Busy instance post')).toHaveLength(1);
  }, 60_000);

  it('the doctor reports a target whose token stopped working', async () => {
    const uid = (await cli(['syndication', 'list', '--user', 'alice'])).stdout.split('\t')[0]!;
    const working = await cli(['doctor', 'alice']);
    expect(working.stdout).toContain(`PASS syndication ${uid}: @alice@${new URL(double.origin).host} (mastodon): the credentials work`);
    double.fail({ status: 401, body: { error: 'The access token was revoked' }, path: '/api/v1/accounts/verify_credentials' });
    const revoked = await cli(['doctor', 'alice']);
    expect(revoked.code).toBe(1);
    expect(revoked.stdout).toMatch(
      new RegExp(`^FAIL syndication ${uid}: .*the credentials stopped working: .*The access token was revoked; fix: `, 'm'),
    );
  }, 60_000);
});
