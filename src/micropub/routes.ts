/**
 * `/indieweb/micropub/`: wire format only. GET answers queries; POST creates
 * or runs an action. Every request needs a bearer token.
 * @module
 */
import type { Meter } from '../core/meter.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { BearerAuth, BearerGuard } from '../indieauth/bearer.js';
import type { HostUser } from '../contracts/accounts.js';
import type { Config } from '../config/config.js';
import type { ReceiveRequest } from '../media/receive.js';
import type { UploadPipeline } from '../media/upload.js';
import { entryHostsOf } from '../core/entry-hosts.js';
import { readParam } from '../core/params.js';
import { methodNotAllowed } from '../web/method-not-allowed.js';
import { createEntry, isAction, prepareCreate, runAction, assertLocalUrl } from './actions.js';
import type { Content } from '../content/content.js';
import type { EntryPublished, PublishListener } from '../content/published.js';
import { parseFormPost, parseJsonPost, type MicropubPost } from './parse-request.js';
import { createConfigText, runConfigQuery, runSourceQuery, type SyndicationTargets } from './queries.js';
import type { NewEntry } from '../contracts/micropub-types.js';
import { micropubErrorHandler } from './responses.js';
import { excerpt, forClient, InvalidRequestError } from '../core/errors.js';

/** File parts a Micropub create accepts; their stored URLs join the property of the same name. */
const UPLOAD_PROPERTIES: ReadonlySet<string> = new Set(['photo', 'video', 'audio']);

function bodyTypeOf(request: FastifyRequest): 'json' | 'multipart' | 'form' {
  const type = (request.headers['content-type'] ?? '').toLowerCase();
  if (type.startsWith('application/json')) return 'json';
  if (type.startsWith('multipart/form-data')) return 'multipart';
  return 'form';
}

export interface MicropubRoutesDeps {
  readonly content: Content;
  readonly bearer: BearerGuard;
  /** Multipart creates: files go through the media pipeline. */
  readonly media: { readonly receive: ReceiveRequest; readonly pipeline: UploadPipeline };
  /** Absolute URL of the media endpoint. */
  readonly mediaEndpoint: string;
  /** Server-managed properties, dropped from every create. */
  readonly serverManaged: ReadonlySet<string>;
  readonly config: Pick<Config, 'baseUrl' | 'limits'>;
  /** Operations that succeeded, for the metrics. */
  readonly meter: Meter;
  /** Told after each create and action that succeeded; null: nobody listens. */
  readonly onPublished: PublishListener | null;
  readonly syndicationTargets: SyndicationTargets | null;
}

/** The uids a create's `mp-syndicate-to` names (strings only). */
function syndicateToOf(entry: NewEntry): string[] {
  return (entry.properties['mp-syndicate-to'] ?? []).filter((value): value is string => typeof value === 'string');
}

export async function micropubRoutes(app: FastifyInstance, routeDeps: MicropubRoutesDeps): Promise<void> {
  const { content, bearer, media, serverManaged, config, meter, onPublished } = routeDeps;

  /** The entry is stored: what listens is told; its failure is logged, the answer stays the same. */
  async function published(request: FastifyRequest, event: EntryPublished): Promise<void> {
    if (onPublished === null) return;
    try {
      await onPublished(event);
    } catch (error) {
      request.log.error({ err: error, action: event.action }, 'after publishing: a listener failed');
    }
  }
  const handler = content.handler;
  const deps = {
    handler,
    mediaEndpoint: routeDeps.mediaEndpoint,
    urlPolicy: content.urlPolicy,
    syndicationTargets: routeDeps.syndicationTargets,
  };

  /** Hosts an action URL may name: the request's, and those where the user's entries live. */
  const hostsOf = (request: FastifyRequest, user: HostUser) => [request.host.toLowerCase(), ...entryHostsOf(config.baseUrl, handler, user)];
  const originOf = (request: FastifyRequest) => `${request.protocol}://${request.host}/`;

  app.setErrorHandler(micropubErrorHandler);
  const configText = createConfigText(deps);

  app.get('/micropub/', async (request, reply) => {
    const auth = await bearer.authenticate(request);
    const q = readParam(request.query, 'q');
    // spec: always form-encoded
    if (q === undefined)
      return reply
        .header('content-type', 'application/x-www-form-urlencoded; charset=utf-8')
        .send(new URLSearchParams({ me: auth.token.me }).toString());
    if (q === 'source') {
      bearer.assertScope(auth, 'update');
      return reply.send(await runSourceQuery(deps, request.query, auth.user, request));
    }
    if (q === 'config') return reply.type('application/json; charset=utf-8').send(await configText(auth.user));
    return reply.send(await runConfigQuery(deps, q, request.query, auth.user));
  });

  app.post('/micropub/', async (request, reply) => {
    const bodyType = bodyTypeOf(request);
    if (bodyType === 'multipart') return createFromMultipart(request, reply);
    // spec: the token first (401), then a body that is not a JSON object (400), before scope and dispatch
    const auth = await bearer.authenticate(request);
    const post: MicropubPost = bodyType === 'json' ? parseJsonPost(request.body) : parseFormPost(request.body ?? {}, 'form', config.limits);

    if (post.kind === 'create') {
      bearer.assertScope(auth, 'create');
      const prepared = prepareCreate(post.entry, serverManaged);
      const entry = await createEntry(handler, prepared, auth.user);
      request.log.info({ userId: auth.user.id, url: entry.url }, 'entry created');
      meter.micropubOperation('create');
      await published(request, { action: 'create', user: auth.user, entry, urls: [], syndicateTo: syndicateToOf(prepared) });
      return reply.code(201).header('location', entry.url).send('');
    }
    return runActionRequest(request, reply, post, auth);
  });

  /**
   * Multipart create: files named photo, video or audio go through the media
   * pipeline (create scope, not media). A multipart body without files may
   * also carry an action, as a form body would.
   */
  async function createFromMultipart(request: FastifyRequest, reply: FastifyReply) {
    const received = await media.receive(request, {
      // an action never carries files; its scope is checked by the action itself
      acceptsFile: (name, fields) => UPLOAD_PROPERTIES.has(name) && fields.action === undefined,
      scope: (fields) => (fields.action === undefined ? 'create' : null),
    });
    try {
      const post = parseFormPost(received.fields, 'multipart', config.limits);
      if (post.kind !== 'create') {
        if (received.stored.length > 0) throw new InvalidRequestError(forClient('actions cannot carry files'));
        return await runActionRequest(request, reply, post, received.auth);
      }
      const properties = { ...post.entry.properties };
      for (const [name, records] of received.files) {
        // spec: stored URLs come after the URL values already submitted
        properties[name] = [...(properties[name] ?? []), ...records.map((record) => record.url)];
      }
      const prepared = prepareCreate({ type: post.entry.type, properties }, serverManaged);
      const entry = await createEntry(handler, prepared, received.user);
      request.log.info({ userId: received.user.id, url: entry.url, files: received.stored.length }, 'entry created');
      meter.micropubOperation('create');
      await published(request, { action: 'create', user: received.user, entry, urls: [], syndicateTo: syndicateToOf(prepared) });
      return reply.code(201).header('location', entry.url).send('');
    } catch (error) {
      await media.pipeline.discard(received.stored);
      throw error;
    }
  }

  async function runActionRequest(
    request: FastifyRequest,
    reply: FastifyReply,
    post: Extract<MicropubPost, { kind: 'action' }>,
    auth: BearerAuth,
  ) {
    if (!isAction(post.action)) throw new InvalidRequestError(forClient(`unknown action ${excerpt(post.action)}`));
    bearer.assertScope(auth, post.action);
    const url = assertLocalUrl(post.url, hostsOf(request, auth.user));
    // a relative URL means the same entry whether read against the request's origin or the base URL's
    const origins = [originOf(request), `${config.baseUrl}/`];
    const resolutions = (value: string) =>
      origins.map((origin) => {
        try {
          return new URL(value, origin).href;
        } catch {
          return value;
        }
      });
    const result = await runAction(handler, { ...post, action: post.action }, url, auth.user, {
      serverManaged,
      sameUrl: (submitted, returned) =>
        submitted === returned || resolutions(submitted).some((candidate) => resolutions(returned).includes(candidate)),
    });
    request.log.info({ userId: auth.user.id, action: post.action }, 'micropub action');
    meter.micropubOperation(post.action);
    await published(request, { action: post.action, user: auth.user, entry: result.entry ?? null, urls: [...new Set(resolutions(url))] });
    if (result.moved) return reply.code(201).header('location', result.location).send('');
    return reply.code(204).send();
  }

  methodNotAllowed(app, '/micropub/', ['GET', 'HEAD', 'POST']);
}
