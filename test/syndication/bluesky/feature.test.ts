/**
 * Syndication to Bluesky end to end (issue 33), against a real PDS
 * (test/helpers/pds.ts): a target added through the syndication service and
 * the command (the app password checked first), a post created through the
 * Micropub endpoint with mp-syndicate-to, the job queue drained, and what the
 * entry, the account's repository and the status say; an update leaves the
 * copy alone (Bluesky has no edits); a delete removes it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SyndicationError } from '../../../src/syndication/client.js';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { runCli } from '../../helpers/cli.js';
import { startPds, type PdsAccount, type TestPds } from '../../helpers/pds.js';

interface ListedRecords {
  records: { uri: string; value: { text: string } }[];
}

describe('syndication to Bluesky (real PDS)', () => {
  let pds: TestPds;
  let alice: PdsAccount;
  let t: TestApp;
  let userId: string;
  let auth: Record<string, string>;
  let uid: string;
  const service = () => t.app.indieweb.syndication;
  const posts = async () =>
    (await pds.xrpc<ListedRecords>('GET', 'com.atproto.repo.listRecords', { repo: alice.did, collection: 'app.bsky.feed.post' })).records;
  const micropub = (body: Record<string, unknown>) =>
    t.app.inject({
      method: 'POST',
      url: '/indieweb/micropub/',
      headers: { ...auth, 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });
  const source = async (url: string) =>
    JSON.parse(
      (await t.app.inject({ method: 'GET', url: `/indieweb/micropub/?q=source&url=${encodeURIComponent(url)}`, headers: auth })).body,
    ) as { properties: Record<string, unknown[]> };

  beforeAll(async () => {
    pds = await startPds();
    alice = await pds.createAccount('alice');
    t = await buildTestApp({ env: { INDIEWEB_MICROPUB_HANDLER: 'database', INDIEWEB_ALLOW_PRIVATE_NETWORKS: 'true' } });
    userId = (await t.app.indieweb.users!.addUser({ name: 'alice', me: ['https://alice.example/'], password: 'alice password 1' })).id;
    const { token } = await t.app.indieweb.tokens.issue({
      userId,
      clientId: 'https://app.example/',
      me: 'https://alice.example/',
      scope: 'create update delete',
      expiresIn: 3600,
    });
    auth = { authorization: `Bearer ${token}` };
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await pds?.close();
  });

  it('adds a target only when the PDS accepts the app password; q=syndicate-to names it', async () => {
    const refused = await service()
      .addTarget({ userId, service: 'bluesky', url: pds.url, handle: alice.handle, secret: 'wrong-wrong-wrong-wrong' })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SyndicationError);
    expect(await service().listTargets(userId)).toEqual([]);
    uid = (await service().addTarget({ userId, service: 'bluesky', url: pds.url, handle: alice.handle, secret: alice.appPassword })).uid;
    const targets = await service().listTargets(userId);
    expect(targets.map((target) => [target.uid, target.service, target.name])).toEqual([[uid, 'bluesky', alice.handle]]);
    const rows = await t.database.db.selectFrom('indieweb_syndication_target').select('credentials').execute();
    expect(JSON.stringify(rows)).not.toContain(alice.appPassword);
    const listed = JSON.parse((await t.app.inject({ method: 'GET', url: '/indieweb/micropub/?q=syndicate-to', headers: auth })).body) as {
      'syndicate-to': { uid: string; service: { name: string } }[];
    };
    expect(listed['syndicate-to']).toEqual([expect.objectContaining({ uid, service: expect.objectContaining({ name: 'Bluesky' }) })]);
  });

  it('a create with mp-syndicate-to makes one post on the PDS; its bsky.app URL becomes the entry’s syndication', async () => {
    const created = await micropub({
      type: ['h-entry'],
      properties: { content: ['Hello Bluesky from my site'], 'mp-syndicate-to': [uid] },
    });
    expect(created.statusCode).toBe(201);
    const url = created.headers.location as string;
    // the post, and the new target's first backfeed poll (queued by addTarget)
    expect(await t.app.indieweb.jobs.drain()).toBe(2);
    const copies = (await posts()).filter((record) => record.value.text === 'Hello Bluesky from my site');
    expect(copies).toHaveLength(1);
    const rkey = copies[0]!.uri.split('/').pop()!;
    const copyUrl = `https://bsky.app/profile/${alice.did}/post/${rkey}`;
    expect((await source(url)).properties.syndication).toEqual([copyUrl]);
    expect((await service().status([url])).map((line) => [line.uid, line.state, line.detail])).toEqual([[uid, 'sent', copyUrl]]);
    // the job again (a crash after the copy was stored) adopts the record at its key: still one
    await t.app.indieweb.jobs.drain();
    expect((await posts()).filter((record) => record.value.text === 'Hello Bluesky from my site')).toHaveLength(1);

    // an update leaves the copy as it is (Bluesky has no edits) and is not an error
    const updated = await micropub({ action: 'update', url, replace: { content: ['Edited at home'] } });
    expect(updated.statusCode).toBeLessThan(300);
    await t.app.indieweb.jobs.drain();
    expect((await posts()).map((record) => record.value.text)).toContain('Hello Bluesky from my site');
    expect((await service().status([url]))[0]).toMatchObject({ state: 'sent', detail: copyUrl });

    // a delete removes the copy from the PDS
    const deleted = await micropub({ action: 'delete', url });
    expect(deleted.statusCode).toBeLessThan(300);
    await t.app.indieweb.jobs.drain();
    expect((await posts()).filter((record) => record.value.text === 'Hello Bluesky from my site')).toEqual([]);
  });

  it('indiestack syndication add --service bluesky checks the app password, then prints the uid alone', async () => {
    const cwd = mkdtempSync(path.join(os.tmpdir(), 'indiestack-bluesky-cli-'));
    try {
      const env = {
        INDIEWEB_DATABASE_URL: `sqlite:${path.join(cwd, 'indiestack.sqlite')}`,
        INDIEWEB_BASE_URL: 'http://127.0.0.1:9',
        INDIEWEB_SECRET: 's'.repeat(40),
        INDIEWEB_ALLOW_PRIVATE_NETWORKS: 'true',
      };
      const cli = (args: string[], input?: string) => runCli(args, { cwd, env, ...(input === undefined ? {} : { input }) });
      expect((await cli(['user', 'add', 'alice', '--me', 'https://alice.example/', '--password-stdin'], 'alice password 1\n')).code).toBe(
        0,
      );
      const add = ['syndication', 'add', '--user', 'alice', '--service', 'bluesky', '--url', pds.url, '--handle', alice.handle];
      const wrong = await cli(add, 'wrong-wrong-wrong-wrong\n');
      expect(wrong.code).toBe(1);
      expect(wrong.stdout).toBe('');
      expect(wrong.stderr.split('\n').filter(Boolean)).toHaveLength(1);
      expect(wrong.stderr).not.toContain('wrong-wrong');
      const added = await cli(add, `${alice.appPassword}\n`);
      expect(added.code).toBe(0);
      expect(added.stdout).toMatch(/^[A-Za-z0-9_-]{12}\n$/);
      expect(added.stderr).not.toContain(alice.appPassword);
      expect((await cli(['syndication', 'list', '--user', 'alice'])).stdout).toBe(`${added.stdout.trim()}\tbluesky\t${alice.handle}\n`);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  }, 60_000);
});
