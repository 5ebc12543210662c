/**
 * `/indieweb/media/`: upload (multipart, one part named `file`), list and
 * describe (`q=source`), delete (`action=delete`); with the local storage,
 * the stored files themselves; with either built-in storage, the sized
 * copies of photos (`?w=N`).
 * @see SPEC.md "Media endpoint"
 * @module
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { HostUser } from '../contracts/accounts.js';
import type { MicropubHandler } from '../contracts/micropub-handler.js';
import { forClient, InvalidRequestError, NotImplementedError } from '../core/errors.js';
import { parseListParams } from '../core/list-params.js';
import { readParam } from '../core/params.js';
import { UnreadableJsonBody } from '../web/body-parsers.js';
import { methodNotAllowed } from '../web/method-not-allowed.js';
import type { BearerGuard } from '../indieauth/bearer.js';
import { callHandler } from '../content/call-handler.js';
import type { UrlPolicyCheck } from '../content/url-policy.js';
import type { MediaRepository } from '../storage/repositories/media.js';
import { sendText } from '../web/reply.js';
import type { LocalMediaStorage } from './fs-storage.js';
import { createLocalVariants, parseVariantWidth } from './photo-variants.js';
import type { S3MediaStorage } from './s3-storage.js';
import { createS3Variants } from './s3-variants.js';
import { serveVariant } from './variant-route.js';
import type { ReceiveRequest } from './receive.js';
import type { UploadPipeline } from './upload.js';

const FILE_NAME = /^[A-Za-z0-9_-]{16,64}\.[a-z0-9]{1,8}$/;

function isMultipart(request: FastifyRequest): boolean {
  return (request.headers['content-type'] ?? '').toLowerCase().startsWith('multipart/form-data');
}

export interface MediaRoutesDeps {
  readonly bearer: BearerGuard;
  /** The content handler: it lists, describes and deletes media. */
  readonly handler: MicropubHandler;
  readonly urlPolicy: UrlPolicyCheck;
  readonly receive: ReceiveRequest;
  readonly pipeline: UploadPipeline;
  readonly repository: MediaRepository;
  /** The built-in local storage, whose files indiestack serves; null with any other storage. */
  readonly localStorage: LocalMediaStorage | null;
  /** The built-in S3 storage, whose photos' sized copies indiestack serves; null with any other storage. */
  readonly s3Storage: S3MediaStorage | null;
}

export async function mediaRoutes(app: FastifyInstance, deps: MediaRoutesDeps): Promise<void> {
  const { bearer, handler, urlPolicy, receive, pipeline, repository } = deps;

  /** `action=delete` from a form, JSON or file-less multipart body; the caller holds a token with media scope. */
  async function deleteAction(request: FastifyRequest, body: unknown, user: HostUser) {
    const action = readParam(body, 'action');
    if (action !== 'delete') throw new InvalidRequestError(forClient('not a multipart upload and not action=delete'));
    const deleteMedia = handler.deleteMedia?.bind(handler);
    if (deleteMedia === undefined) throw new NotImplementedError('the handler cannot delete media');
    const url = readParam(body, 'url');
    if (url === undefined || url === '') throw new InvalidRequestError(forClient('url is required'));
    await urlPolicy(url, 'media', request);
    await callHandler('delete_media', () => deleteMedia(url, user));
    request.log.info({ userId: user.id }, 'media deleted');
  }

  app.post('/media/', async (request, reply) => {
    if (isMultipart(request)) {
      // an action never carries a file
      const received = await receive(request, {
        acceptsFile: (name, fields) => name === 'file' && fields.action === undefined,
        scope: 'media',
      });
      if (received.stored.length === 0 && received.fields.action !== undefined) {
        await deleteAction(request, received.fields, received.user);
        return reply.code(204).send();
      }
      const files = received.files.get('file') ?? [];
      if (files.length !== 1 || received.stored.length !== 1 || received.fields.action !== undefined) {
        await pipeline.discard(received.stored);
        throw new InvalidRequestError(forClient('exactly one file part named file is needed'));
      }
      const [file] = files;
      request.log.info({ userId: received.user.id, mediaType: file!.mediaType, size: file!.size }, 'media stored');
      return reply.code(201).header('location', file!.url).send('');
    }

    const auth = await bearer.authenticate(request);
    bearer.assertScope(auth, 'media');
    if (request.body instanceof UnreadableJsonBody) throw new InvalidRequestError(forClient('request body is not valid UTF-8 JSON'));
    await deleteAction(request, request.body, auth.user);
    return reply.code(204).send();
  });

  app.get('/media/', async (request, reply) => {
    const auth = await bearer.authenticate(request);
    bearer.assertScope(auth, 'media');
    if (readParam(request.query, 'q') !== 'source') throw new InvalidRequestError(forClient('only q=source is supported'));
    const url = readParam(request.query, 'url');
    if (url !== undefined) {
      const getMedia = handler.getMedia?.bind(handler);
      if (getMedia === undefined) throw new NotImplementedError('the handler cannot describe media');
      if (url === '') throw new InvalidRequestError(forClient('url is empty'));
      await urlPolicy(url, 'media', request);
      const found = await callHandler('get_media', () => getMedia(url, auth.user));
      if (found === null || found === undefined) throw new InvalidRequestError(forClient('no such media'));
      return reply.send(found);
    }
    const listMedia = handler.listMedia?.bind(handler);
    if (listMedia === undefined) throw new NotImplementedError('the handler cannot list media');
    const page = parseListParams(request.query);
    const result = await callHandler('list_media', () => listMedia(auth.user, page));
    const paging: Record<string, number | null> = { limit: page.limit, offset: page.offset };
    if (typeof result.total === 'number') paging.total = result.total;
    return reply.send({ items: result.items, paging });
  });

  methodNotAllowed(app, '/media/', ['GET', 'HEAD', 'POST']);

  const local = deps.localStorage;
  if (local !== null) {
    const variants = createLocalVariants();
    // files of the local storage, served with their stored type and no chance to run as a page
    app.get<{ Params: { name: string } }>('/media/:name', async (request, reply) => {
      const { name } = request.params;
      const width = parseVariantWidth(readParam(request.query, 'w'));
      const record = FILE_NAME.test(name) ? await repository.findByKey(`indieweb/media/${name}`) : null;
      if (record === null) return sendText(reply, 404, 'not found');
      const path = local.pathOf(record.storageKey);
      const info = await stat(path).catch(() => null);
      if (info === null) return sendText(reply, 404, 'not found');
      if (width !== null) {
        const variantDir = local.variantDirOf(record.storageKey);
        return serveVariant(request, reply, {
          record,
          width,
          open: async (type) => {
            const file = await variants.pathOf(path, variantDir, width, type);
            return { body: createReadStream(file), size: (await stat(file)).size };
          },
        });
      }
      return reply
        .header('content-type', record.mediaType)
        .header('content-length', info.size)
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "default-src 'none'; sandbox")
        .header('cache-control', 'public, max-age=31536000, immutable')
        .header('content-disposition', 'inline')
        .send(createReadStream(path));
    });
  }

  const s3 = deps.s3Storage;
  if (s3 !== null) {
    const variants = createS3Variants(s3);
    // the bucket serves the files; indiestack serves their sized copies (a query on the bucket's URL reaches the original)
    app.get<{ Params: { name: string } }>('/media/:name', async (request, reply) => {
      const { name } = request.params;
      const width = parseVariantWidth(readParam(request.query, 'w'));
      const record = FILE_NAME.test(name) ? await repository.findByKey(`indieweb/media/${name}`) : null;
      if (record === null) return sendText(reply, 404, 'not found');
      // without w: the file is where its URL says
      if (width === null) return reply.redirect(record.url, 302);
      return serveVariant(request, reply, { record, width, open: (type) => variants.open(record.storageKey, width, type) });
    });
  }
}
