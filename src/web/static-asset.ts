/**
 * The one cache policy of the static assets indiestack serves itself (the
 * UI and entry stylesheets, the Write script, the passkey scripts):
 *
 * - every answer has a strong `ETag` (a hash of the bytes) and a matching
 *   `If-None-Match` gets `304 Not Modified` without a body;
 * - a hashed name (the name carries the hash of this content) is cached for
 *   a year, `immutable`: a new release links a new name;
 * - any other name is `public, no-cache`: a cache keeps it but asks again
 *   each time, so a new release is seen at once, for the price of a 304.
 * Both also send `X-Content-Type-Options: nosniff`.
 * @see docs/architecture.md, docs/entry-pages.md
 * @module
 */
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

export const IMMUTABLE_CACHE = 'public, max-age=31536000, immutable';
export const REVALIDATE_CACHE = 'public, no-cache';

/** An asset's bytes, content type and entity tag (computed once). */
export interface StaticAsset {
  readonly contentType: string;
  readonly body: string;
  readonly etag: string;
}

export function staticAsset(contentType: string, body: string): StaticAsset {
  return { contentType, body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
}

/** Whether an `If-None-Match` header names this tag (weak comparison, as RFC 9110 says for GET). */
function matches(ifNoneMatch: string | string[] | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  const tags = (Array.isArray(ifNoneMatch) ? ifNoneMatch.join(',') : ifNoneMatch).split(',').map((tag) => tag.trim().replace(/^W\//, ''));
  return tags.includes('*') || tags.includes(etag);
}

/** Sends the asset with the one cache policy: `hashedName` when the URL carries the hash of exactly this content. */
export function sendStaticAsset(request: FastifyRequest, reply: FastifyReply, asset: StaticAsset, hashedName: boolean): FastifyReply {
  reply
    .header('etag', asset.etag)
    .header('cache-control', hashedName ? IMMUTABLE_CACHE : REVALIDATE_CACHE)
    .header('x-content-type-options', 'nosniff');
  if (matches(request.headers['if-none-match'], asset.etag)) return reply.code(304).send();
  return reply.code(200).header('content-type', asset.contentType).send(asset.body);
}
