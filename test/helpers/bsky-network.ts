/**
 * A whole Bluesky network on loopback for the backfeed tests (issue 34):
 * `@atproto/dev-env`'s TestNetwork — a PLC directory, a PDS, the AppView
 * (`@atproto/bsky`, which indexes the PDS's firehose and answers
 * `app.bsky.notification.listNotifications`, `getLikes`, `getPosts`, …, the
 * PDS proxying those to it) and Ozone — on the repository's embedded
 * PostgreSQL and Debian's `redis-server` (which `.ci/run` installs when
 * absent). About 8 s to start. Offline: handles resolve through the PDS.
 * @module
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import net from 'node:net';
import { freePort } from './net.js';
import { startPostgres, type RunningPostgres } from './postgres.js';

/** Debian's redis-server on PATH (installed by .ci/run): the AppView tests are skipped, loudly, without it. */
export const HAS_REDIS = (process.env.PATH ?? '')
  .split(path.delimiter)
  .some((dir) => dir !== '' && existsSync(path.join(dir, 'redis-server')));

type DevEnv = typeof import('@atproto/dev-env');
export type TestNetwork = Awaited<ReturnType<DevEnv['TestNetwork']['create']>>;
export type SeedClient = ReturnType<TestNetwork['getSeedClient']>;

/** A post as the seed client takes it (its `raw` strong ref). */
export interface PostRef {
  readonly raw: { readonly uri: string; readonly cid: string };
  readonly uriStr: string;
  readonly cidStr: string;
}

export const postRef = (uri: string, cid: string): PostRef => ({ raw: { uri, cid }, uriStr: uri, cidStr: cid });

export interface BskyNetwork {
  readonly network: TestNetwork;
  readonly seed: SeedClient;
  /** The PDS (which proxies app.bsky.* to the AppView). */
  readonly pdsUrl: string;
  /** Makes an account `NAME.test` with a display name; its DID and an app password for it. */
  account(name: string, displayName: string): Promise<{ did: string; handle: string; appPassword: string }>;
  /**
   * Waits until the AppView has indexed everything the PDS has written and, given an account and record URIs,
   * until the account's notifications list them all (a notification may show up a moment after processAll).
   */
  settle(did?: string, uris?: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

async function waitForPort(port: number, child: ChildProcess): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.end();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('redis-server did not start');
}

export async function startBskyNetwork(): Promise<BskyNetwork> {
  let postgres: RunningPostgres | null = null;
  let redis: ChildProcess | null = null;
  const previousRedis = process.env.REDIS_HOST;
  try {
    postgres = await startPostgres();
    const redisPort = await freePort();
    redis = spawn('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    const spawned = redis;
    await new Promise<void>((resolve, reject) => {
      spawned.once('spawn', () => resolve());
      spawned.once('error', (error) =>
        reject(new Error(`redis-server cannot be started (apt-get install redis-server): ${error.message}`)),
      );
    });
    await waitForPort(redisPort, spawned);
    // TestNetwork reads the Redis address from the environment only
    process.env.REDIS_HOST = `127.0.0.1:${redisPort}`;
    const { TestNetwork } = await import('@atproto/dev-env');
    const network = await TestNetwork.create({ dbPostgresUrl: postgres.adminUrl, dbPostgresSchema: 'indiestack' });
    const seed = network.getSeedClient();
    const pg = postgres;
    return {
      network,
      seed,
      pdsUrl: network.pds.url,
      async account(name, displayName) {
        const handle = `${name}.test`;
        const { did } = await seed.createAccount(name, { handle, email: `${name}@example.com`, password: `${name}-password` });
        await seed.createProfile(did, displayName, '');
        const { data } = await seed.agent.com.atproto.server.createAppPassword(
          { name: 'indiestack' },
          { encoding: 'application/json', headers: seed.getHeaders(did) },
        );
        return { did, handle, appPassword: data.password };
      },
      async settle(did, uris = []) {
        await network.processAll();
        if (did === undefined || uris.length === 0) return;
        let listed = new Set<string>();
        for (let attempt = 0; attempt < 40; attempt += 1) {
          const { data } = await seed.agent.app.bsky.notification.listNotifications({ limit: 100 }, { headers: seed.getHeaders(did) });
          listed = new Set(data.notifications.map((notification) => notification.uri));
          if (uris.every((uri) => listed.has(uri))) return;
          await new Promise((resolve) => setTimeout(resolve, 200));
          await network.processAll();
        }
        const missing = uris.filter((uri) => !listed.has(uri));
        throw new Error(`the AppView did not notify ${did} of ${missing.join(', ')} within 8 s`);
      },
      async close() {
        await network.close();
        spawned.kill();
        await pg.dispose();
        if (previousRedis === undefined) delete process.env.REDIS_HOST;
        else process.env.REDIS_HOST = previousRedis;
      },
    };
  } catch (error) {
    redis?.kill();
    await postgres?.dispose();
    throw error;
  }
}
