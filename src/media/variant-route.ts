/**
 * The answer to `GET {media URL}?w=N` with the local storage: the sized copy
 * in the negotiated format, `Vary: Accept`, an ETag (and `304` for a
 * matching `If-None-Match`), a year's cache lifetime and the same
 * can-never-run-as-a-page headers as the original.
 * @module
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { forClient, InvalidRequestError } from '../core/errors.js';
import type { MediaRecord } from '../storage/repositories/media.js';
import { hasVariants, type LocalVariants, variantType } from './photo-variants.js';

export async function serveVariant(
  request: FastifyRequest,
  reply: FastifyReply,
  target: { record: MediaRecord; path: string; width: number; variantDir: string; variants: LocalVariants },
): Promise<FastifyReply> {
  const { record, width } = target;
  if (!hasVariants(record.mediaType)) throw new InvalidRequestError(forClient(`${record.mediaType} has no sizes: w is for photos`));
  const type = variantType(request.raw);
  const etag = `"${record.storageKey.slice('indieweb/media/'.length).replace(/\.[a-z0-9]+$/, '')}-w${width}-${type.slice('image/'.length)}"`;
  reply
    .header('vary', 'Accept')
    .header('etag', etag)
    .header('cache-control', 'public, max-age=31536000, immutable')
    .header('x-content-type-options', 'nosniff')
    .header('content-security-policy', "default-src 'none'; sandbox");
  const match = request.headers['if-none-match'];
  if (match !== undefined && match.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag)) return reply.code(304).send();
  const file = await target.variants.pathOf(target.path, target.variantDir, width, type);
  const info = await stat(file);
  return reply
    .header('content-type', type)
    .header('content-length', info.size)
    .header('content-disposition', 'inline')
    .send(createReadStream(file));
}
