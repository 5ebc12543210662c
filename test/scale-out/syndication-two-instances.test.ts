/**
 * Exactly once with two instances on one PostgreSQL (issue 33): both run the
 * job worker; entries syndicated to the Mastodon API double while it holds
 * its answers; one instance killed with SIGKILL mid-way. The other finishes
 * the jobs once their leases run out, and every entry ends with exactly one
 * copy.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { freshLocation, HAS_POSTGRES } from '../helpers/databases.js';
import { startMastodonDouble, type MastodonDouble } from '../helpers/mastodon-double.js';
import { killServe, startServe, waitFor, type ServeProcess } from '../helpers/serve.js';

describe.skipIf(!HAS_POSTGRES)('syndication with two instances on one PostgreSQL, one killed mid-way', () => {
  let database: { url: string; drop(): Promise<void> };
  let double: MastodonDouble;
  let root: string;
  let env: Record<string, string>;
  const instances: ServeProcess[] = [];
  const cli = (args: string[], input?: string) =>
    runCli(args, { cwd: root, env: { ...env, INDIEWEB_DATA_DIR: path.join(root, 'cli') }, ...(input === undefined ? {} : { input }) });

  beforeAll(async () => {
    const fresh = await freshLocation('postgres');
    database = { url: fresh.url, drop: fresh.drop };
    double = await startMastodonDouble({ mediaPolls: 0 });
    root = mkdtempSync(path.join(os.tmpdir(), 'indiestack-syndication-scale-'));
    env = {
      INDIEWEB_DATABASE_URL: database.url,
      INDIEWEB_SECRET: 'syndication-scale-out-secret-long-enough-for-indiestack',
      INDIEWEB_BASE_URL: 'https://site.example',
      INDIEWEB_MICROPUB_HANDLER: 'database',
      INDIEWEB_ALLOW_PRIVATE_NETWORKS: 'true',
      INDIEWEB_JOB_LEASE_SECONDS: '3',
    };
    expect((await cli(['migrate'])).code).toBe(0);
    expect((await cli(['user', 'add', 'alice', '--me', 'https://alice.example/', '--password-stdin'], 'alice password 1\n')).code).toBe(0);
  }, 60_000);
  afterAll(async () => {
    for (const instance of instances) await killServe(instance);
    await double.close();
    await database.drop();
    rmSync(root, { recursive: true, force: true });
  });

  it('every entry ends with exactly one copy', async () => {
    const added = await cli(
      ['syndication', 'add', '--user', 'alice', '--service', 'mastodon', '--url', double.origin],
      `${double.token}\n`,
    );
    expect(added.code, added.stderr).toBe(0);
    const uid = added.stdout.trim();
    const token = (
      await cli(['token', 'issue', '--user', 'alice', '--client-id', 'https://app.example/', '--scope', 'create'])
    ).stdout.trim();
    instances.push(
      ...(await Promise.all(
        ['a', 'b'].map((name) => startServe(root, { ...env, INDIEWEB_DATA_DIR: path.join(root, name), INDIEWEB_LOG_LEVEL: 'warn' })),
      )),
    );
    // every status is made at once and answered 1.5 s later: the jobs are in flight on both instances
    double.delayCreates(1500);
    const entries: string[] = [];
    for (let index = 0; index < 6; index += 1) {
      const response = await fetch(`${instances[index % 2]!.base}/indieweb/micropub/`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ h: 'entry', content: `Scaled post ${index}`, 'mp-syndicate-to': uid }).toString(),
      });
      expect(response.status).toBe(201);
      entries.push(response.headers.get('location')!);
    }
    expect(await waitFor(async () => double.ownStatuses().length >= 2, 20_000)).toBe(true);
    await killServe(instances[0]);
    expect(
      await waitFor(async () => {
        for (const entry of entries) if (!(await cli(['syndication', 'status', entry])).stdout.includes('\tsent\t')) return false;
        return true;
      }, 60_000),
    ).toBe(true);
    for (let index = 0; index < 6; index += 1)
      expect(
        double.ownStatuses().filter((status) => status.text === `Scaled post ${index}`),
        `post ${index}`,
      ).toHaveLength(1);
  }, 120_000);
});
