/**
 * A misbehaving peer on loopback, for fault tests: one port whose behaviour
 * can be switched while a test runs. It refuses connections (nothing
 * listens), accepts them and never answers, answers with a body dripped one
 * byte a second forever, passes requests on to a real server but swallows
 * its answers, or forwards both ways like a plain TCP proxy.
 * @module
 */
import { listenOnLoopback } from './net.js';
import net, { type AddressInfo, type Socket } from 'node:net';

export type FaultMode =
  /** Nothing listens on the port: connections are refused. */
  | 'refuse'
  /** Connections are accepted and what is sent is read, but nothing is ever answered. */
  | 'silent'
  /** Each request gets a 200 HTML head, then a body of one byte a second that never ends. */
  | 'drip'
  /** Requests reach the real server; its answers never come back. */
  | 'swallow'
  /** A plain TCP proxy to the real server. */
  | 'forward';

export interface FaultyPeer {
  /** `http://127.0.0.1:<port>`; the port stays the same across modes. */
  readonly origin: string;
  readonly port: number;
  readonly mode: FaultMode;
  /** Switches behaviour; connections opened under the previous mode are cut. */
  setMode(mode: FaultMode): Promise<void>;
  /** Connections accepted so far. */
  readonly accepted: number;
  /** Client connections open right now. */
  readonly open: number;
  close(): Promise<void>;
}

const DRIP_HEAD = 'HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nTransfer-Encoding: chunked\r\n\r\n';

/** Starts a peer in `mode`; `forwardTo` is the real server's port, needed by `swallow` and `forward`. */
export async function startFaultyPeer(mode: FaultMode, options: { forwardTo?: number } = {}): Promise<FaultyPeer> {
  let current = mode;
  let accepted = 0;
  const sockets = new Set<Socket>();
  const clients = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();

  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  };

  const forward = (client: Socket, answers: boolean) => {
    if (options.forwardTo === undefined) throw new Error(`mode ${current} needs forwardTo`);
    const upstream = net.connect(options.forwardTo, '127.0.0.1');
    track(upstream);
    client.pipe(upstream);
    if (answers) upstream.pipe(client);
    else upstream.resume();
    const cut = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', cut);
    upstream.on('close', cut);
  };

  const drip = (client: Socket) => {
    let head = '';
    const onData = (chunk: Buffer) => {
      head += chunk.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      client.off('data', onData);
      client.resume();
      client.write(DRIP_HEAD);
      const timer = setInterval(() => client.write('1\r\nx\r\n'), 1000);
      timers.add(timer);
      client.on('close', () => {
        clearInterval(timer);
        timers.delete(timer);
      });
    };
    client.on('data', onData);
  };

  const server = net.createServer((client) => {
    accepted += 1;
    track(client);
    clients.add(client);
    client.on('close', () => clients.delete(client));
    if (current === 'silent') client.resume();
    else if (current === 'drip') drip(client);
    else forward(client, current === 'forward');
  });

  const listen = (port: number) => listenOnLoopback(server, port);
  const cutAll = () => {
    for (const socket of sockets) socket.destroy();
    for (const timer of timers) clearInterval(timer);
    timers.clear();
  };
  const stopListening = () =>
    new Promise<void>((resolve) => {
      if (!server.listening) return resolve();
      server.close(() => resolve());
      cutAll();
    });

  await listen(0);
  const port = (server.address() as AddressInfo).port;
  if (mode === 'refuse') await stopListening();

  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    get mode() {
      return current;
    },
    get accepted() {
      return accepted;
    },
    get open() {
      return clients.size;
    },
    async setMode(next) {
      cutAll();
      current = next;
      if (next === 'refuse') await stopListening();
      else if (!server.listening) await listen(port);
    },
    close: stopListening,
  };
}
