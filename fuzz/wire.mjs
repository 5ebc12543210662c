/**
 * Putting a request on the wire: body encodings (form, JSON, multipart),
 * framing (right, wrong and broken Content-Length / chunked encoding), byte
 * mutations, and the split into writes.
 */

/** Text as bytes: mostly UTF-8, sometimes latin1 (so invalid UTF-8 reaches the server). */
export function bytesOf(text, latin1 = false) {
  return Buffer.from(text, latin1 ? 'latin1' : 'utf8');
}

/** Percent-encodes like a form, or leaves some characters raw. */
export function encodeComponent(text, raw) {
  if (!raw) return encodeURIComponent(text.replace(/[\ud800-\udfff]/g, '\ufffd'));
  return text.replace(/[&=#\s%]/g, (c) => encodeURIComponent(c));
}

export function formText(fields, raw = false) {
  return fields.map(([name, value]) => `${encodeComponent(name, raw)}=${encodeComponent(value, raw)}`).join('&');
}

/** JSON text of a value; `{ __raw }` objects are inserted verbatim; own `__proto__` keys are kept. */
export function jsonText(value) {
  if (value !== null && typeof value === 'object' && Object.hasOwn(value, '__raw')) return value.__raw;
  if (Array.isArray(value)) return `[${value.map(jsonText).join(',')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.keys(value)
      .map((key) => `${JSON.stringify(key)}:${jsonText(value[key])}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

export function multipartBody(parts, boundary, { lineEnd = '\r\n', close = true, preamble = '', epilogue = '' } = {}) {
  const out = [Buffer.from(preamble)];
  for (const part of parts) {
    const head = [`--${boundary}`];
    if (part.rawHeaders !== undefined) head.push(...part.rawHeaders);
    else {
      const filename = part.filename === undefined ? '' : `; filename="${part.filename}"`;
      head.push(`Content-Disposition: form-data; name="${part.name}"${filename}`);
      if (part.type !== undefined) head.push(`Content-Type: ${part.type}`);
    }
    out.push(
      Buffer.from(head.join(lineEnd) + lineEnd + lineEnd, part.latin1 ? 'latin1' : 'utf8'),
      Buffer.isBuffer(part.data) ? part.data : Buffer.from(part.data),
      Buffer.from(lineEnd),
    );
  }
  if (close) out.push(Buffer.from(`--${boundary}--${lineEnd}${epilogue}`));
  return Buffer.concat(out);
}

/** Byte-level mutations at fractional positions, so a case mutates the same way whatever the lengths. */
export function mutateBytes(buffer, ops) {
  let out = buffer;
  for (const op of ops) {
    const at = Math.min(out.length, Math.floor(op.at * (out.length + 1)));
    const insert = Buffer.from(op.bytes ?? []);
    switch (op.kind) {
      case 'flip':
        if (at < out.length) {
          out = Buffer.from(out);
          out[at] ^= op.mask;
        }
        break;
      case 'insert':
        out = Buffer.concat([out.subarray(0, at), insert, out.subarray(at)]);
        break;
      case 'delete':
        out = Buffer.concat([out.subarray(0, at), out.subarray(Math.min(out.length, at + op.length))]);
        break;
      case 'duplicate':
        out = Buffer.concat([
          out.subarray(0, at + op.length),
          out.subarray(at, Math.min(out.length, at + op.length)),
          out.subarray(at + op.length),
        ]);
        break;
    }
  }
  return out;
}

/**
 * Frames a body. Returns `{ headers, body, complete }`; `complete` is false
 * when the framing promises more than is sent (the server must time out or
 * see the end of the connection).
 */
export function frame(body, framing, choose) {
  switch (framing) {
    case 'length':
      return { headers: [`Content-Length: ${body.length}`], body, complete: true };
    case 'none':
      return { headers: [], body, complete: true };
    case 'length-short':
      return { headers: [`Content-Length: ${Math.floor(body.length * choose.float())}`], body, complete: true };
    case 'length-long':
      return { headers: [`Content-Length: ${body.length + choose.int(1, 100_000)}`], body, complete: false };
    case 'truncate': {
      const cut = body.subarray(0, Math.floor(body.length * choose.float()));
      return { headers: [`Content-Length: ${cut.length}`], body: cut, complete: true };
    }
    case 'length-odd':
      return {
        headers: [
          choose.pick([
            `Content-Length: ${body.length}`,
            `Content-Length: ${body.length}, ${body.length}`,
            `Content-Length: ${body.length}, ${body.length + 1}`,
            `Content-Length: -1`,
            `Content-Length: +${body.length}`,
            `Content-Length: 0x10`,
            `Content-Length: 99999999999999999999`,
            `Content-Length: ${body.length}\r\nContent-Length: ${body.length + 5}`,
            `Content-Length:${body.length}`,
            `Content-Length : ${body.length}`,
            `Content-Length: 1e3`,
          ]),
        ],
        body,
        complete: true,
      };
    case 'chunked':
    case 'chunked-bad': {
      const pieces = [];
      let at = 0;
      while (at < body.length) {
        const size = Math.min(body.length - at, choose.int(1, Math.max(1, Math.ceil(body.length / 3))));
        pieces.push(
          Buffer.from(`${size.toString(16)}${choose.chance(0.05) ? ';ext=1' : ''}\r\n`),
          body.subarray(at, at + size),
          Buffer.from('\r\n'),
        );
        at += size;
      }
      pieces.push(Buffer.from('0\r\n\r\n'));
      let framed = Buffer.concat(pieces);
      const te = choose.chance(0.9)
        ? 'Transfer-Encoding: chunked'
        : choose.pick([
            'Transfer-Encoding: Chunked',
            'Transfer-Encoding: gzip, chunked',
            'Transfer-Encoding: chunked, identity',
            'Transfer-Encoding:  chunked ',
            'Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked',
          ]);
      let complete = true;
      if (framing === 'chunked-bad') {
        const breakage = choose.pick([
          'size-garbage',
          'size-huge',
          'size-negative',
          'no-crlf',
          'no-last-chunk',
          'short-chunk',
          'both',
          'trailer-garbage',
        ]);
        switch (breakage) {
          case 'size-garbage':
            framed = Buffer.concat([Buffer.from('zz\r\n'), framed]);
            break;
          case 'size-huge':
            framed = Buffer.concat([Buffer.from('ffffffffffffffffff\r\n'), framed]);
            break;
          case 'size-negative':
            framed = Buffer.concat([Buffer.from('-5\r\nabc\r\n'), framed]);
            break;
          case 'no-crlf':
            // a parse error, or (for an empty body) a last chunk that never ends
            framed = Buffer.from(framed.toString('latin1').replace('\r\n', ''), 'latin1');
            complete = false;
            break;
          case 'no-last-chunk':
            framed = framed.subarray(0, framed.length - 5);
            complete = false;
            break;
          case 'short-chunk':
            // a 256-byte chunk that gets a few bytes: the server must wait for the rest
            framed = Buffer.concat([Buffer.from('100\r\nabc\r\n'), framed]);
            complete = false;
            break;
          case 'both':
            return { headers: [te, `Content-Length: ${body.length}`], body: framed, complete: true };
          case 'trailer-garbage':
            framed = Buffer.concat([
              framed.subarray(0, framed.length - 2),
              Buffer.from('X-Trailer: \u0000\r\nbad trailer\r\n\r\n', 'latin1'),
            ]);
            break;
        }
      }
      return { headers: [te], body: framed, complete };
    }
    default:
      throw new Error(`unknown framing ${framing}`);
  }
}

/** Splits the request into writes: one, a few, or a drip of small ones. */
export function splitWrites(bytes, mode, choose) {
  if (mode === 'one' || bytes.length < 2) return [bytes];
  const count = mode === 'drip' ? Math.min(40, bytes.length) : choose.int(2, 4);
  const cuts = new Set();
  while (cuts.size < count - 1) cuts.add(choose.int(1, bytes.length - 1));
  const sorted = [...cuts].sort((a, b) => a - b);
  const chunks = [];
  let from = 0;
  for (const cut of [...sorted, bytes.length]) {
    chunks.push(bytes.subarray(from, cut));
    from = cut;
  }
  return chunks;
}
