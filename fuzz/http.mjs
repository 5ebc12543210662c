/**
 * A raw HTTP/1.1 client over node:net: sends exactly the bytes it is given
 * (in pieces, with pauses, then half-closing, holding or resetting the
 * socket) and reads what comes back, so it can send what ordinary clients
 * refuse to send. See docs/fuzzing.md.
 */
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

const CRLF2 = Buffer.from('\r\n\r\n');

/**
 * Parses the responses at the start of `buffer`. Returns the complete ones
 * and whether the last one is still incomplete (`partial`).
 * `headRequest` means the first response has no body.
 */
export function parseResponses(buffer, { headRequest = false, closed = false } = {}) {
  const responses = [];
  let offset = 0;
  while (offset < buffer.length) {
    const headEnd = buffer.indexOf(CRLF2, offset);
    if (headEnd < 0) return { responses, partial: true, rest: buffer.subarray(offset) };
    const lines = buffer.subarray(offset, headEnd).toString('latin1').split('\r\n');
    const match = /^HTTP\/\d\.\d (\d{3})/.exec(lines[0] ?? '');
    if (match === null) return { responses, partial: false, garbage: true, rest: buffer.subarray(offset) };
    const status = Number(match[1]);
    const headers = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      if (colon <= 0) continue;
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
    }
    let bodyStart = headEnd + 4;
    let body;
    const noBody = (headRequest && responses.length === 0) || status < 200 || status === 204 || status === 304;
    if (noBody) {
      body = Buffer.alloc(0);
    } else if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
      const chunks = [];
      let at = bodyStart;
      for (;;) {
        const lineEnd = buffer.indexOf('\r\n', at);
        if (lineEnd < 0) return { responses, partial: true, rest: buffer.subarray(offset) };
        const size = parseInt(buffer.subarray(at, lineEnd).toString('latin1'), 16);
        if (!Number.isFinite(size)) return { responses, partial: false, garbage: true, rest: buffer.subarray(offset) };
        if (size === 0) {
          const trailerEnd = buffer.indexOf('\r\n', lineEnd + 2);
          if (trailerEnd < 0) return { responses, partial: true, rest: buffer.subarray(offset) };
          at = trailerEnd + 2;
          break;
        }
        if (lineEnd + 2 + size + 2 > buffer.length) return { responses, partial: true, rest: buffer.subarray(offset) };
        chunks.push(buffer.subarray(lineEnd + 2, lineEnd + 2 + size));
        at = lineEnd + 2 + size + 2;
      }
      body = Buffer.concat(chunks);
      bodyStart = at;
      responses.push({ status, headers, body });
      offset = at;
      continue;
    } else if (headers['content-length'] !== undefined) {
      const length = Number(headers['content-length']);
      if (bodyStart + length > buffer.length) return { responses, partial: true, rest: buffer.subarray(offset) };
      body = buffer.subarray(bodyStart, bodyStart + length);
      bodyStart += length;
    } else {
      // delimited by the close
      if (!closed) return { responses, partial: true, rest: buffer.subarray(offset) };
      body = buffer.subarray(bodyStart);
      bodyStart = buffer.length;
    }
    // 1xx (100 Continue) are interim: only final answers count
    if (status >= 200) responses.push({ status, headers, body });
    offset = bodyStart;
  }
  return { responses, partial: false, rest: Buffer.alloc(0) };
}

/**
 * One exchange. `wire` is `{ chunks: Buffer[], ending, pauseMs, headRequest, complete }`:
 * ending `fin` writes everything (with `Connection: close`) and waits for the
 * answer, half-closing only when the framing is incomplete (a client that
 * stops mid-body and gives up); `keep` writes everything
 * and keeps the connection open (then, if the answer leaves it open, sends a
 * probe request on it, as a pooling client would); `reset` writes the first
 * chunks and destroys the socket mid-request.
 */
export function exchange(port, wire, { deadlineMs = 10_000, probe = true } = {}) {
  return new Promise((resolve) => {
    const started = performance.now();
    const received = [];
    let lastWrite = started;
    let firstResponseAt = null;
    let closed = false;
    let error = null;
    let settled = false;
    let timer = null;
    let probing = false;
    let probeBytes = [];
    const socket = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    socket.setNoDelay(true);

    const finish = (extra = {}) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      const data = Buffer.concat(received);
      const parsed = parseResponses(data, { headRequest: wire.headRequest, closed: true });
      resolve({
        data,
        responses: parsed.responses,
        closed,
        error,
        timedOut: false,
        latencyMs: (firstResponseAt ?? performance.now()) - lastWrite,
        totalMs: performance.now() - started,
        probe: probing ? { data: Buffer.concat(probeBytes), closed, error } : null,
        ...extra,
      });
    };
    const arm = (ms) => {
      clearTimeout(timer);
      timer = setTimeout(() => finish({ timedOut: true }), ms);
    };

    socket.on('data', (chunk) => {
      if (probing) {
        probeBytes.push(chunk);
        const parsed = parseResponses(Buffer.concat(probeBytes), {});
        if (parsed.responses.length > 0) finish();
        return;
      }
      received.push(chunk);
      const data = Buffer.concat(received);
      const parsed = parseResponses(data, { headRequest: wire.headRequest });
      if (parsed.responses.length === 0 || parsed.partial) return;
      firstResponseAt ??= performance.now();
      // answered: give the server a moment to close (or to answer bytes it read as a next request), then stop
      if (wire.ending !== 'keep') return arm(200);
      const first = parsed.responses[0];
      const closes = /close/i.test(first.headers.connection ?? '');
      // the probe only makes sense after a request whose end the server knows (else it would be read as body)
      if (!probe || wire.probe === false || closes || parsed.garbage) return finish();
      // a keep-alive client reuses the connection: the next request must get an answer (or a close announced before)
      probing = true;
      firstResponseAt = performance.now();
      arm(3_000);
      socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n', () => {});
    });
    socket.on('error', (err) => {
      error = err.code ?? err.message;
    });
    socket.on('close', () => {
      closed = true;
      finish();
    });
    socket.on('end', () => {
      // the server half-closed: it will send nothing more
      closed = true;
      finish();
    });

    socket.once('connect', async () => {
      const chunks = wire.chunks;
      const upTo = wire.ending === 'reset' ? Math.max(1, Math.ceil(chunks.length / 2)) : chunks.length;
      for (let i = 0; i < upTo && !settled; i++) {
        if (socket.destroyed) break;
        socket.write(chunks[i]);
        if (wire.pauseMs > 0 && i < upTo - 1) await sleep(wire.pauseMs);
      }
      lastWrite = performance.now();
      if (settled || socket.destroyed) return;
      if (wire.ending === 'reset') {
        socket.resetAndDestroy?.() ?? socket.destroy();
        closed = true;
        return finish({ reset: true });
      }
      // a client that gives up half-closes; a complete request waits for its answer (Node drops answers to half-closed requests)
      if (wire.ending === 'fin' && wire.complete === false) socket.end();
      arm(deadlineMs);
    });
    socket.once('data', () => {
      firstResponseAt ??= performance.now();
    });
  });
}

/** GET /healthz on its own connection: `{ status, ms }` or `{ status: null, error }`. */
export async function health(port, deadlineMs = 5_000) {
  const result = await exchange(
    port,
    { chunks: [Buffer.from('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n')], ending: 'fin', pauseMs: 0 },
    { deadlineMs },
  );
  const first = result.responses[0];
  return { status: first?.status ?? null, ms: result.totalMs, error: result.error, timedOut: result.timedOut };
}

/** A plain request for setup: returns the first response. */
export async function request(port, { method = 'GET', path, headers = {}, body = '' }) {
  const payload = Buffer.isBuffer(body) ? body : Buffer.from(body);
  const head = [`${method} ${path} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close', `Content-Length: ${payload.length}`];
  for (const [name, value] of Object.entries(headers)) head.push(`${name}: ${value}`);
  const result = await exchange(port, {
    chunks: [Buffer.concat([Buffer.from(head.join('\r\n') + '\r\n\r\n', 'latin1'), payload])],
    ending: 'fin',
    pauseMs: 0,
    headRequest: method === 'HEAD',
  });
  const first = result.responses[0];
  if (first === undefined) throw new Error(`${method} ${path}: no answer (${result.error ?? 'closed'})`);
  return first;
}
