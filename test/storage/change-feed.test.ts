/**
 * PostgreSQL's change feed (storage/change-feed.ts) against a real server:
 * it hears NOTIFY, says nothing (null) while its connection is lost or
 * silent, and comes back by itself with a stamp that was never used before.
 */
import net, { type Server, type Socket } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH_CHANGE_CHANNEL, CHANGE_FEED_APPLICATION_NAME, createChangeFeed, type ChangeFeed } from '../../src/storage/change-feed.js';
import { freshLocation } from '../helpers/databases.js';
import { freePort, listenOnLoopback } from '../helpers/net.js';
import { waitFor } from '../helpers/serve.js';

/** Polls every 5 ms until `check` holds or `ms` pass. */
async function until(check: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return check();
}

/** A TCP proxy to PostgreSQL that can go silent without closing anything (a cable pulled, a frozen NAT). */
async function startFreezableProxy(target: {
  host: string;
  port: number;
}): Promise<{ port: number; freeze(): void; thaw(): void; close(): Promise<void> }> {
  let frozen = false;
  const sockets = new Set<Socket>();
  const server: Server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => sockets.delete(socket));
    }
    client.on('data', (chunk) => frozen || upstream.write(chunk));
    upstream.on('data', (chunk) => frozen || client.write(chunk));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  const port = await freePort();
  await listenOnLoopback(server, port);
  return {
    port,
    freeze: () => (frozen = true),
    thaw: () => (frozen = false),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('the PostgreSQL change feed', () => {
  let url: string;
  let drop: () => Promise<void>;
  let admin: pg.Client;

  beforeAll(async () => {
    const fresh = await freshLocation('postgres');
    url = fresh.url;
    drop = fresh.drop;
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
  });
  afterAll(async () => {
    await admin.end();
    await drop();
  });

  const events: string[] = [];

  async function withFeed(connectionString: string, work: (feed: ChangeFeed) => Promise<void>) {
    events.length = 0;
    const feed = createChangeFeed({
      connectionString,
      connectTimeoutMs: 5_000,
      onLost: () => events.push('lost'),
      onBack: () => events.push('back'),
    });
    try {
      await work(feed);
    } finally {
      await feed.close();
    }
  }

  it('gives no stamp before it listens, then one that changes with every notification', async () => {
    await withFeed(url, async (feed) => {
      expect(feed.stamp()).toBeNull();
      expect(await feed.whenListening(10_000)).toBe(true);
      const seen = new Set<string>();
      for (let i = 0; i < 3; i++) {
        const before = feed.stamp();
        expect(before).not.toBeNull();
        seen.add(before!);
        await admin.query(`notify ${AUTH_CHANGE_CHANNEL}`);
        expect(await until(() => feed.stamp() !== before && feed.stamp() !== null, 5_000)).toBe(true);
      }
      expect(seen.has(feed.stamp()!)).toBe(false);
    });
  });

  it('a notification on another channel changes nothing', async () => {
    await withFeed(url, async (feed) => {
      await feed.whenListening(10_000);
      await admin.query(`listen other_channel`);
      const before = feed.stamp();
      await admin.query(`notify other_channel`);
      await admin.query(`notify ${AUTH_CHANGE_CHANNEL}, 'marker'`);
      // the marker arrives after the other channel's notification: once it is counted, the other one was ignored
      expect(await until(() => feed.stamp() !== before, 5_000)).toBe(true);
      const [epoch, count] = feed.stamp()!.split('.');
      expect(`${epoch}.${Number(count) - 1}`).toBe(before);
    });
  });

  it('a terminated connection: null until it listens again, then a stamp never given before', async () => {
    await withFeed(url, async (feed) => {
      await feed.whenListening(10_000);
      const before = feed.stamp();
      let sawNull = false;
      const watching = until(() => {
        if (feed.stamp() === null) sawNull = true;
        return sawNull && feed.stamp() !== null;
      }, 15_000);
      const { rowCount } = await admin.query(
        `select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1 and datname = current_database()`,
        [CHANGE_FEED_APPLICATION_NAME],
      );
      expect(rowCount).toBe(1);
      expect(await watching).toBe(true);
      expect(sawNull).toBe(true);
      expect(feed.stamp()).not.toBe(before);
      // said once each, for the log
      expect(events).toEqual(['lost', 'back']);
      // and it hears again
      const after = feed.stamp();
      await admin.query(`notify ${AUTH_CHANGE_CHANNEL}`);
      expect(await until(() => feed.stamp() !== after && feed.stamp() !== null, 5_000)).toBe(true);
    });
  });

  it('a connection gone silent stops vouching within the lease, and is replaced once it stalls', async () => {
    const target = new URL(url);
    const proxy = await startFreezableProxy({ host: target.hostname, port: Number(target.port) });
    const viaProxy = new URL(url);
    viaProxy.port = String(proxy.port);
    try {
      await withFeed(viaProxy.toString(), async (feed) => {
        await feed.whenListening(10_000);
        const before = feed.stamp();
        expect(before).not.toBeNull();
        proxy.freeze();
        const frozenAt = performance.now();
        // LEASE_MS is 0.7 s; generous for a loaded machine
        expect(await until(() => feed.stamp() === null, 5_000)).toBe(true);
        const silentFor = performance.now() - frozenAt;
        expect(silentFor).toBeLessThan(5_000);
        proxy.thaw();
        // the stalled heartbeat ends the old connection; a new one listens with a new stamp
        expect(await waitFor(async () => feed.stamp() !== null && feed.stamp() !== before, 20_000)).toBe(true);
      });
    } finally {
      await proxy.close();
    }
  });

  it('an idle feed stops beating; the next ask gets null once, and the stamp is back at once with nothing missed', async () => {
    const feed = createChangeFeed({ connectionString: url, connectTimeoutMs: 5_000, idleAfterMs: 200 });
    try {
      await feed.whenListening(10_000);
      const before = feed.stamp();
      expect(before).not.toBeNull();
      // idle: no heartbeat, so the lease runs out; a notification meanwhile must still be counted
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      await admin.query(`notify ${AUTH_CHANGE_CHANNEL}`);
      expect(feed.stamp()).toBeNull();
      expect(await until(() => feed.stamp() !== null, 5_000)).toBe(true);
      const [epochBefore, countBefore] = before!.split('.');
      const [epochAfter, countAfter] = feed.stamp()!.split('.');
      // the same connection (no new epoch), and the notification sent while idle was heard before the heartbeat
      expect(epochAfter).toBe(epochBefore);
      expect(Number(countAfter)).toBe(Number(countBefore) + 1);
    } finally {
      await feed.close();
    }
  });

  it('close() ends the connection and the stamp stays null', async () => {
    const feed = createChangeFeed({ connectionString: url, connectTimeoutMs: 5_000 });
    await feed.whenListening(10_000);
    await feed.close();
    expect(feed.stamp()).toBeNull();
    const listeners = async () =>
      (
        await admin.query<{ n: number }>(
          `select count(*)::int as n from pg_stat_activity where application_name = $1 and datname = current_database()`,
          [CHANGE_FEED_APPLICATION_NAME],
        )
      ).rows[0]!.n;
    expect(await waitFor(async () => (await listeners()) === 0, 5_000)).toBe(true);
    expect(feed.stamp()).toBeNull();
  });
});
