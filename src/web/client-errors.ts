/**
 * Our answer to a request Node's HTTP parser refuses (broken framing, a head
 * over the size limit, a client too slow to send its request): a short plain
 * text answer with `Connection: close`, then a bounded lingering close — what
 * the client still sends is read and dropped for a moment before the socket
 * is destroyed, so a keep-alive client reads the answer instead of a reset.
 * @see docs/reliability.md "Broken requests"
 * @module
 */
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';

/** How long a refused connection is read and drained before it is destroyed. */
export const LINGER_MS = 2_000;

function statusFor(code: string | undefined): number {
  if (code === 'HPE_HEADER_OVERFLOW') return 431;
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return 408;
  return 400;
}

/**
 * Each answer's reason phrase and body. The phrases are written here rather
 * than read from `node:http`'s `STATUS_CODES`: importing `node:http` as an ES
 * module reads all its exports, among them the lazy `WebSocket`, which loads
 * Node's bundled undici (~13 MiB in every process; see docs/performance.md).
 */
const ANSWERS: Readonly<Record<number, { readonly phrase: string; readonly body: string }>> = {
  400: { phrase: 'Bad Request', body: 'bad request: the request could not be parsed' },
  408: { phrase: 'Request Timeout', body: 'request timeout: the request was not received in time' },
  431: { phrase: 'Request Header Fields Too Large', body: 'request header fields too large' },
};

export function clientErrorHandler(error: Error & { code?: string }, socket: Duplex): void {
  socket.on('error', () => {});
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  // an answer is already on its way (the broken part came after the head): end after it, without a second one
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (inFlight?.headersSent === true) {
    socket.end();
    socket.resume();
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
    return;
  }
  const status = statusFor(error.code);
  const answer = ANSWERS[status]!;
  const body = `${answer.body}\n`;
  socket.end(
    `HTTP/1.1 ${status} ${answer.phrase}\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nCache-Control: no-store\r\n\r\n${body}`,
  );
  // lingering close: keep reading (and dropping) so the client sees the answer, then let go
  socket.resume();
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}

/** Set on a scope whose answers already get the hook below (and so on every scope inside it). */
const CLOSES_UNREAD_BODIES = 'indiestackClosesUnreadBodies';

/**
 * In `app`'s scope, an answer sent before the request body was read to its
 * end (an early 401/413, a 404 with a body) says `Connection: close`: Node
 * then ends the connection, the rest of the body is never read or parsed as
 * a next request, and a keep-alive client knows not to reuse the socket.
 */
export function closeUnreadBodies(app: FastifyInstance): void {
  // hooks reach every scope registered below: the standalone server's root hook already covers the plugin's scope
  if (app.hasDecorator(CLOSES_UNREAD_BODIES)) return;
  app.decorate(CLOSES_UNREAD_BODIES, true);
  app.addHook('onSend', async (request, reply, payload) => {
    if (!request.raw.complete) reply.header('connection', 'close');
    return payload;
  });
}
