/**
 * The Micropub feature: the `/micropub/` endpoint over the content handler,
 * and the error table of the resource endpoints (Micropub and media).
 * @module
 */
import { NO_METER, type Meter } from '../core/meter.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config/config.js';
import type { BearerGuard } from '../indieauth/bearer.js';
import type { ReceiveRequest } from '../media/receive.js';
import type { UploadPipeline } from '../media/upload.js';
import type { Content } from '../content/content.js';
import type { PublishListener } from '../content/published.js';
import { serverManagedSet } from './properties.js';
import { micropubErrorHandler } from './responses.js';
import { micropubRoutes } from './routes.js';
import type { SyndicationTargets } from './queries.js';

export interface MicropubFeature {
  readonly routes: (app: FastifyInstance) => Promise<void>;
  /** The Micropub and media surface's answers to errors (SPEC.md "Errors"), for the scope both endpoints share. */
  readonly errorHandler: (error: unknown, request: FastifyRequest, reply: FastifyReply) => FastifyReply;
}

export function createMicropub(deps: {
  config: Pick<Config, 'baseUrl' | 'limits' | 'micropubServerManagedProperties'>;
  content: Content;
  bearer: BearerGuard;
  media: { receive: ReceiveRequest; pipeline: UploadPipeline };
  /** @defaultValue counts nothing */
  meter?: Meter;
  /** Told after each create and action that succeeded (sending webmentions on publish). */
  onPublished?: PublishListener;
  /** The user's syndication targets, listed in `q=syndicate-to` (and `q=config`) after the handler's own. */
  syndicationTargets?: SyndicationTargets;
}): MicropubFeature {
  const { config } = deps;
  const routeDeps = {
    content: deps.content,
    bearer: deps.bearer,
    media: deps.media,
    mediaEndpoint: `${config.baseUrl}/indieweb/media/`,
    serverManaged: serverManagedSet(config.micropubServerManagedProperties),
    config,
    meter: deps.meter ?? NO_METER,
    onPublished: deps.onPublished ?? null,
    syndicationTargets: deps.syndicationTargets ?? null,
  };
  return {
    routes: (app) => micropubRoutes(app, routeDeps),
    errorHandler: micropubErrorHandler,
  };
}
