/**
 * The answer to `GET {media URL}?w=N`, on either built-in storage: the sized
 * copy in the negotiated format, `Vary: Accept`, an ETag (and `304` for a
 * matching `If-None-Match`, answered before the copy is read or made), a
 * year's cache lifetime and the same can-never-run-as-a-page headers as the
 * original.
 * @module
 */
import type { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { forClient, InvalidRequestError } from '../core/errors.js';
import type { MediaRecord } from '../storage/repositories/media.js';
import { sendText } from '../web/reply.js';
import { hasVariants, variantType } from './photo-variants.js';
import type { VariantType } from './variant-keys.js';

/** A copy's bytes (a stream, or a buffer when it was just made) and its length when known. */
export interface VariantBody {
  readonly body: Readable | Buffer;
  readonly size: number | null;
}

export async function serveVariant(
  request: FastifyRequest,
  reply: FastifyReply,
  target: {
    record: MediaRecord;
    width: number;
    /** The copy in `type`, made first if need be; null when the original is gone. */
    open: (type: VariantType) => Promise<VariantBody | null>;
  },
): Promise<FastifyReply> {
  const { record, width } = target;
  if (!hasVariants(record.mediaType)) throw new InvalidRequestError(forClient(`${record.mediaType} has no sizes: w is for photos`));
  const type = variantType(request.raw);
  const etag = `"${record.storageKey.slice('indieweb/media/'.length).replace(/\.[a-z0-9]+$/, '')}-w${width}-${type.slice('image/'.length)}"`;
  const match = request.headers['if-none-match'];
  const cached = match !== undefined && match.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
  const copy = cached ? null : await target.open(type);
  if (!cached && copy === null) return sendText(reply, 404, 'not found');
  reply
    .header('vary', 'Accept')
    .header('etag', etag)
    .header('cache-control', 'public, max-age=31536000, immutable')
    .header('x-content-type-options', 'nosniff')
    .header('content-security-policy', "default-src 'none'; sandbox");
  if (copy === null) return reply.code(304).send();
  reply.header('content-type', type).header('content-disposition', 'inline');
  if (copy.size !== null) reply.header('content-length', copy.size);
  return reply.send(copy.body);
}
