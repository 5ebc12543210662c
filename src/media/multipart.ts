/**
 * Streaming multipart/form-data reading on @fastify/busboy, without
 * decorating the request (so a host's own multipart plugin never collides).
 * Files are handed over one at a time as unread streams; a client that
 * disconnects mid-file, or a body that ends inside a part, makes that stream
 * fail (never an unhandled 'error': every emitter gets a listener at once).
 * Text fields have a count, a total byte budget and a name length limit.
 * @module
 */
import type { IncomingMessage } from 'node:http';
import { PassThrough, type Readable } from 'node:stream';
import { Busboy } from '@fastify/busboy';
import { ClientGoneError, forClient, InvalidRequestError, PayloadTooLargeError } from '../core/errors.js';

export interface FieldPart {
  readonly type: 'field';
  readonly name: string;
  readonly value: string;
}

export interface FilePart {
  readonly type: 'file';
  readonly name: string;
  readonly filename: string;
  readonly mimetype: string;
  readonly stream: Readable;
}

export type Part = FieldPart | FilePart;

export interface MultipartLimits {
  /** Bytes per file; the stream is cut one byte past it so the caller sees the excess. */
  readonly fileBytes: number | null;
  readonly files: number | null;
  /** Bytes of all text fields together (names and values). */
  readonly fieldBytes: number;
  /** Number of text fields. */
  readonly fields: number;
  /** Bytes of one part name. */
  readonly nameBytes: number;
}

/**
 * The stream handed to the reader: busboy's file stream piped through a
 * PassThrough. busboy emits 'error' on its stream without destroying it (a
 * part that ends early), which crashes the process when nobody listens yet
 * and reaches a reader as a bare Error; here it always has a listener, and
 * the reader sees a 400 `InvalidRequestError` whenever it reads.
 */
function guarded(source: Readable): Readable {
  const stream = new PassThrough();
  // a destroyed stream keeps its error for a later reader; this listener only keeps an unread one from crashing the process
  stream.on('error', () => {});
  source.on('error', (error: Error) => {
    if (!stream.destroyed)
      stream.destroy(
        error instanceof InvalidRequestError ? error : new InvalidRequestError(forClient('malformed multipart body'), { cause: error }),
      );
  });
  source.pipe(stream);
  return stream;
}

/**
 * How much of one part busboy may hold before it waits for a read. busboy
 * skips a part that is not `form-data` (no Content-Disposition, say) by
 * resuming it on the next tick; when the data that arrived with the part's
 * head filled the default 16 KiB before that, the parser waited for a read
 * that the ended part never makes, and the request was never answered (fuzz
 * finding 13). One socket read brings at most 64 KiB, and a paused request
 * holds at most its own 16 KiB plus one read, so a part never fills this
 * before the skip takes effect; for parts that are read it only bounds
 * buffering per upload, as the default did.
 */
const PART_HIGH_WATER_MARK = 256 * 1024;

/** The parts of a multipart request body, in order. Unread file streams are drained before the next part. */
export async function* readParts(raw: IncomingMessage, limits: MultipartLimits): AsyncGenerator<Part> {
  let busboy: InstanceType<typeof Busboy>;
  try {
    busboy = new Busboy({
      headers: raw.headers as { 'content-type': string },
      fileHwm: PART_HIGH_WATER_MARK,
      limits: {
        fileSize: limits.fileBytes === null ? Infinity : limits.fileBytes + 1,
        // one over the limit, so the caller's own count reports it
        files: limits.files === null ? Infinity : limits.files + 1,
        fields: limits.fields,
        // one field may use the whole budget; the total is counted below
        fieldSize: limits.fieldBytes + 1,
        parts: limits.fields + (limits.files === null ? 1000 : limits.files + 1) + 1,
      },
    });
  } catch (error) {
    throw new InvalidRequestError(forClient('malformed multipart request'), { cause: error });
  }

  const queue: (Part | Error | 'end')[] = [];
  let wake: (() => void) | null = null;
  let current: Readable | null = null;
  let fieldBytes = 0;
  let failed = false;
  const push = (item: Part | Error | 'end') => {
    if (failed) return;
    if (item instanceof Error) failed = true;
    queue.push(item);
    wake?.();
    wake = null;
  };

  busboy.on(
    'file',
    (name: string | undefined, source: Readable, filename: string | undefined, _encoding: string, mimetype: string | undefined) => {
      const stream = guarded(source);
      if (typeof name !== 'string' || name === '') {
        stream.resume();
        push(new InvalidRequestError(forClient('a part without a name')));
        return;
      }
      if (Buffer.byteLength(name) > limits.nameBytes) {
        stream.resume();
        push(new InvalidRequestError(forClient('part name too long')));
        return;
      }
      push({ type: 'file', name, filename: filename ?? '', mimetype: mimetype ?? '', stream });
    },
  );
  busboy.on('field', (name: string | undefined, value: string, _nameTruncated: boolean, valueTruncated: boolean) => {
    if (typeof name !== 'string' || name === '') return push(new InvalidRequestError(forClient('a part without a name')));
    if (Buffer.byteLength(name) > limits.nameBytes) return push(new InvalidRequestError(forClient('field name too long')));
    fieldBytes += Buffer.byteLength(name) + Buffer.byteLength(value);
    if (valueTruncated || fieldBytes > limits.fieldBytes) return push(new PayloadTooLargeError(forClient('text fields too large')));
    push({ type: 'field', name, value });
  });
  busboy.on('fieldsLimit', () => push(new PayloadTooLargeError(forClient('too many fields'))));
  busboy.on('partsLimit', () => push(new PayloadTooLargeError(forClient('too many parts'))));
  busboy.on('error', (error: unknown) => push(new InvalidRequestError(forClient('malformed multipart body'), { cause: error })));
  busboy.on('finish', () => push('end'));
  const onClose = () => {
    if (raw.complete) return;
    const gone = new ClientGoneError('client disconnected mid-upload');
    current?.destroy(gone);
    push(gone);
  };
  const onError = (error: Error) => {
    current?.destroy(error);
    push(new ClientGoneError('request stream failed', { cause: error }));
  };
  raw.on('close', onClose);
  raw.on('error', onError);
  raw.pipe(busboy);

  try {
    for (;;) {
      while (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      const item = queue.shift()!;
      if (item === 'end') return;
      if (item instanceof Error) throw item;
      if (item.type === 'file') current = item.stream;
      yield item;
      if (item.type === 'file') {
        // whatever the caller did not read is discarded so busboy can go on
        item.stream.resume();
        current = null;
      }
    }
  } finally {
    raw.off('close', onClose);
    // errors after this point have nobody to tell, but must not crash the process
    raw.off('error', onError);
    raw.on('error', () => {});
    // the rest of the body is not read: the answer closes the connection instead (see closeUnreadBody)
    raw.unpipe(busboy);
    for (const item of queue) if (typeof item === 'object' && !(item instanceof Error) && item.type === 'file') item.stream.destroy();
    current?.destroy();
  }
}
