/**
 * Streaming multipart/form-data reading on @fastify/busboy, without
 * decorating the request (so a host's own multipart plugin never collides).
 * Files are handed over one at a time as unread streams; a client that
 * disconnects mid-file makes that stream fail.
 * @module
 */
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { Busboy } from '@fastify/busboy';
import { InvalidRequestError, PayloadTooLargeError } from '../core/errors.js';

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
  readonly fieldBytes: number;
}

class ClientGoneError extends InvalidRequestError {}

/** The parts of a multipart request body, in order. Unread file streams are drained before the next part. */
export async function* readParts(raw: IncomingMessage, limits: MultipartLimits): AsyncGenerator<Part> {
  let busboy: InstanceType<typeof Busboy>;
  try {
    busboy = new Busboy({
      headers: raw.headers as { 'content-type': string },
      limits: {
        fileSize: limits.fileBytes === null ? Infinity : limits.fileBytes + 1,
        // one over the limit, so the caller's own count reports it
        files: limits.files === null ? Infinity : limits.files + 1,
        fields: 1000,
        fieldSize: limits.fieldBytes,
        parts: 2000,
      },
    });
  } catch (error) {
    throw new InvalidRequestError('malformed multipart request', { cause: error });
  }

  const queue: (Part | Error | 'end')[] = [];
  let wake: (() => void) | null = null;
  let current: Readable | null = null;
  const push = (item: Part | Error | 'end') => {
    queue.push(item);
    wake?.();
    wake = null;
  };

  busboy.on('file', (name, stream, filename, _encoding, mimetype) => push({ type: 'file', name, filename: filename ?? '', mimetype: mimetype ?? '', stream }));
  busboy.on('field', (name, value, _nameTruncated, valueTruncated) =>
    push(valueTruncated ? new PayloadTooLargeError(`field ${name} too large`) : { type: 'field', name, value }),
  );
  busboy.on('fieldsLimit', () => push(new PayloadTooLargeError('too many fields')));
  busboy.on('partsLimit', () => push(new PayloadTooLargeError('too many parts')));
  busboy.on('error', (error: unknown) => push(new InvalidRequestError('malformed multipart body', { cause: error })));
  busboy.on('finish', () => push('end'));
  const onClose = () => {
    if (raw.complete) return;
    const gone = new ClientGoneError('client disconnected mid-upload');
    current?.destroy(gone);
    push(gone);
  };
  raw.on('close', onClose);
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
    current?.resume();
    if (!raw.complete) {
      raw.unpipe(busboy);
      raw.resume();
    }
  }
}
