/**
 * PostgreSQL's change stamp: one dedicated connection that LISTENs on
 * `indieweb_auth_change` (sent by the triggers of migration 0011 in the
 * transaction of every write that can make a validated token invalid) and
 * proves every {@link HEARTBEAT_MS} that it still hears, by notifying a
 * channel of its own and hearing that notification. The stamp changes
 * with every notification and every reconnection; it is null — nothing may
 * be served from memory — until the connection listens, while it is lost,
 * and whenever the last answered heartbeat was sent more than
 * {@link LEASE_MS} ago (a connection that went silent without an error).
 * @module
 */
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import type pg from 'pg';

export const AUTH_CHANGE_CHANNEL = 'indieweb_auth_change';

/** The listening connection's `application_name`. */
export const CHANGE_FEED_APPLICATION_NAME = 'indiestack-change-feed';

/** How often the listening connection is asked to answer. */
export const HEARTBEAT_MS = 200;

/**
 * How long a heard heartbeat vouches for the connection: a notification
 * committed before the heartbeat was sent has arrived before it (one queue,
 * delivered in commit order), so after a silent loss the stamp is null again
 * at most this long after the last heartbeat that was heard.
 */
export const LEASE_MS = 700;

/** Without a stamp asked for this long, the heartbeat pauses (and restarts on the next ask). */
const IDLE_AFTER_MS = 10_000;

/** A heartbeat unheard this long ends the connection and starts a new one. */
const STALL_MS = 3_000;

/** Waits between reconnection attempts: doubling from the first, up to the last. */
const RECONNECT_MIN_MS = 100;
const RECONNECT_MAX_MS = 2_000;

export interface ChangeFeed {
  /** The current stamp, or null while the feed cannot vouch for it. Starts the feed on first call. */
  stamp(): string | null;
  /** Resolves once the feed listens (for tests and warm-up); false when `ms` passed first. */
  whenListening(ms: number): Promise<boolean>;
  close(): Promise<void>;
}

export interface ChangeFeedOptions {
  readonly connectionString: string;
  readonly connectTimeoutMs: number;
  /** Called when a connection that listened is lost (for the log); the feed reconnects by itself. */
  readonly onLost?: (error: Error | null) => void;
  /** Called when a connection listens again after a loss. */
  readonly onBack?: () => void;
  /** Milliseconds without a stamp asked for after which the heartbeat pauses. @defaultValue 10,000 */
  readonly idleAfterMs?: number;
}

export function createChangeFeed(options: ChangeFeedOptions): ChangeFeed {
  const { Client } = createRequire(import.meta.url)('pg') as typeof pg;
  const idleAfterMs = options.idleAfterMs ?? IDLE_AFTER_MS;
  let started = false;
  let closed = false;
  let client: pg.Client | null = null;
  let listening = false;
  /** Bumped on every (re)connection: what was remembered before may have missed notifications. */
  let epoch = 0;
  let notifications = 0;
  /** When the last answered heartbeat was sent (performance.now()). */
  let vouchedAt = -Infinity;
  let heartbeat: NodeJS.Timeout | null = null;
  let reconnect: NodeJS.Timeout | null = null;
  let backoff = RECONNECT_MIN_MS;
  const waiters = new Set<(listening: boolean) => void>();

  /** Whether a connection was lost since the feed last listened (so coming back is worth a word). */
  let lost = false;

  /** When the stamp was last asked for; the heartbeat pauses after `idleAfterMs` without. */
  let askedAt = performance.now();
  /** The listening connection's own channel (for a heartbeat sent on demand). */
  let ownChannel: string | null = null;

  /** The heartbeat out (one at a time: a slow answer is waited for, the stall timer ends a dead connection). */
  let beating: { readonly from: pg.Client; readonly payload: string; readonly sentAt: number; readonly stall: NodeJS.Timeout } | null =
    null;
  let beats = 0;

  function lose(from: pg.Client, error: Error | null) {
    if (client !== from) return;
    const wasListening = listening;
    client = null;
    ownChannel = null;
    listening = false;
    vouchedAt = -Infinity;
    if (heartbeat !== null) clearInterval(heartbeat);
    heartbeat = null;
    if (beating !== null) clearTimeout(beating.stall);
    beating = null;
    from.removeAllListeners('notification');
    from.end().catch(() => {});
    if (closed) return;
    if (wasListening) {
      lost = true;
      options.onLost?.(error);
    }
    reconnect = setTimeout(() => {
      reconnect = null;
      connect();
    }, backoff);
    reconnect.unref();
    backoff = Math.min(backoff * 2, RECONNECT_MAX_MS);
  }

  /**
   * Sends a notification to this connection's own channel: its arrival proves
   * that every notification committed before it was sent has arrived too
   * (one queue, in commit order) — also through a pooler that would lose them.
   */
  function beat(from: pg.Client, channel: string) {
    if (beating !== null && beating.from === from) return;
    const payload = String(++beats);
    const stall = setTimeout(() => lose(from, new Error(`no heartbeat heard within ${STALL_MS} ms`)), STALL_MS);
    stall.unref();
    beating = { from, payload, sentAt: performance.now(), stall };
    from
      .query('select pg_notify($1, $2)', [channel, payload])
      .catch((error: unknown) => lose(from, error instanceof Error ? error : new Error(String(error))));
  }

  function heard(from: pg.Client, payload: string | undefined) {
    if (beating === null || beating.from !== from || beating.payload !== payload || client !== from) return;
    clearTimeout(beating.stall);
    vouchedAt = Math.max(vouchedAt, beating.sentAt);
    beating = null;
    if (!listening) {
      listening = true;
      backoff = RECONNECT_MIN_MS;
      if (lost) {
        lost = false;
        options.onBack?.();
      }
      for (const wake of waiters) wake(true);
      waiters.clear();
    }
  }

  function connect() {
    if (closed) return;
    const next = new Client({
      connectionString: options.connectionString,
      connectionTimeoutMillis: options.connectTimeoutMs,
      keepAlive: true,
      // how operators (and tests) find it in pg_stat_activity
      application_name: CHANGE_FEED_APPLICATION_NAME,
    });
    client = next;
    const own = `indieweb_feed_${randomBytes(8).toString('hex')}`;
    // every failure of this connection ends in lose(): an error, the server closing it, a stalled heartbeat
    next.on('error', (error) => lose(next, error));
    next.on('end', () => lose(next, null));
    next.on('notification', (message) => {
      if (message.channel === AUTH_CHANGE_CHANNEL) notifications++;
      else if (message.channel === own) heard(next, message.payload);
    });
    next
      .connect()
      .then(() => next.query(`listen ${AUTH_CHANGE_CHANNEL}; listen ${own}`))
      .then(
        () => {
          if (client !== next) return;
          // a new connection may have missed notifications: nothing remembered before it counts
          epoch++;
          ownChannel = own;
          // an idle instance stops beating (each heartbeat is a small transaction); asking for the stamp starts it again
          heartbeat = setInterval(() => {
            if (performance.now() - askedAt < idleAfterMs) beat(next, own);
          }, HEARTBEAT_MS);
          heartbeat.unref();
          beat(next, own);
        },
        (error: unknown) => lose(next, error instanceof Error ? error : new Error(String(error))),
      );
  }

  function start() {
    if (started || closed) return;
    started = true;
    connect();
  }

  return {
    stamp() {
      start();
      const now = performance.now();
      askedAt = now;
      if (!listening) return null;
      if (now - vouchedAt > LEASE_MS) {
        // after an idle spell: beat now, so the stamp is back as soon as the heartbeat is heard
        if (client !== null && ownChannel !== null) beat(client, ownChannel);
        return null;
      }
      return `${epoch}.${notifications}`;
    },
    whenListening(ms) {
      start();
      if (listening) return Promise.resolve(true);
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          waiters.delete(wake);
          resolve(false);
        }, ms);
        const wake = (now: boolean) => {
          clearTimeout(timer);
          resolve(now);
        };
        waiters.add(wake);
      });
    },
    async close() {
      closed = true;
      if (reconnect !== null) clearTimeout(reconnect);
      if (heartbeat !== null) clearInterval(heartbeat);
      if (beating !== null) clearTimeout(beating.stall);
      beating = null;
      listening = false;
      const last = client;
      client = null;
      for (const wake of waiters) wake(false);
      waiters.clear();
      if (last !== null) await last.end().catch(() => {});
    },
  };
}
