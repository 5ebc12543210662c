/** Loopback ports for the servers tests start. */
import { createServer, type Server } from 'node:net';

/**
 * Ports below every common ephemeral range (Linux 32768–60999, macOS and Windows 49152–65535): a `listen(0)` or an
 * outgoing connection elsewhere in the run is never given one of them. A port taken from the ephemeral range and
 * handed to a child process could be given to another test's `listen(0)` in the second before the child bound it,
 * and the test then talked to someone else's server (seen once in CI: a `serve` test read another data directory).
 */
const RESERVED_FROM = 20_000;
/** Each vitest worker (VITEST_POOL_ID 1, 2, …; the main process 0) hands out ports from its own slice. */
const SLICE = 400;
const MAX_POOL = 30;
let nextInSlice = 0;

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

function ephemeralPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** A port free on 127.0.0.1 right now, from this worker's slice, which no other worker or `listen(0)` takes. */
export async function freePort(): Promise<number> {
  const pool = Number(process.env['VITEST_POOL_ID'] ?? 0);
  if (!Number.isInteger(pool) || pool < 0 || pool > MAX_POOL) return ephemeralPort();
  for (let tries = 0; tries < SLICE; tries += 1) {
    const port = RESERVED_FROM + pool * SLICE + (nextInSlice++ % SLICE);
    if (await canListen(port)) return port;
  }
  return ephemeralPort();
}

/** Listens on 127.0.0.1:`port`; rejects when the port cannot be taken. */
export function listenOnLoopback(server: Pick<Server, 'once' | 'off' | 'listen'>, port: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
}
