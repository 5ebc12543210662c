/**
 * `/indieweb/webmention/`: receive (POST), the status view of one mention
 * (`/indieweb/webmention/<id>`), and the read API for sites (`?target=`).
 * @module
 */
import type { FastifyInstance } from 'fastify';
import { forClient, InvalidRequestError } from '../core/errors.js';
import { parseListParams } from '../core/list-params.js';
import { readParam } from '../core/params.js';
import { html, sendPage } from '../web/html.js';
import { timestamp } from '../web/ui/format.js';
import { layout } from '../web/ui/layout.js';
import { createErrorHandler } from '../web/error-handler.js';
import { methodNotAllowed } from '../web/method-not-allowed.js';
import { prefersJson } from '../web/negotiation.js';
import type { WebmentionRecord } from '../storage/repositories/webmentions.js';
import { capStored } from './cap-mention.js';
import { linkingPropertyOf } from './mention-type.js';
import { failureReason } from './failure.js';
import type { WebmentionService } from './service.js';
import { WEBMENTION_ERRORS } from './responses.js';

export const READ_API_DEFAULT_LIMIT = 20;
export const READ_API_MAX_LIMIT = 100;

/** The JSON status view; a failed mention also says why (`reason`, written for the sender). */
export function statusJson(stored: WebmentionRecord) {
  const record = capStored(stored);
  const reason = failureReason(record);
  return {
    status: record.status,
    source: record.source,
    target: record.target,
    verified_at: record.verifiedAt,
    type: record.type,
    author: { name: record.author.name, url: record.author.url, photo: record.author.photo },
    content: record.contentText,
    ...(reason === null ? {} : { reason }),
  };
}

/** One public mention in jf2 shape (a row from before the caps capped: cap-mention.ts). */
function jf2(stored: WebmentionRecord) {
  const record = capStored(stored);
  return {
    type: 'entry',
    'wm-id': record.id,
    // our own read API names the property linking the target: an RSVP is in-reply-to (mention-type.ts)
    'wm-property': linkingPropertyOf(record.type),
    'wm-received': record.createdAt,
    url: record.source,
    published: record.published,
    author: { type: 'card', name: record.author.name, url: record.author.url, photo: record.author.photo },
    content: record.contentText === null && record.contentHtml === null ? null : { text: record.contentText, html: record.contentHtml },
  };
}

export async function webmentionRoutes(app: FastifyInstance, deps: { service: WebmentionService }): Promise<void> {
  const { service } = deps;

  app.setErrorHandler(createErrorHandler(WEBMENTION_ERRORS));

  app.post('/webmention/', async (request, reply) => {
    const { record, created, statusUrl } = await service.receive(readParam(request.body, 'source'), readParam(request.body, 'target'), {
      clientAddress: request.ip,
    });
    request.log.info({ id: record.id, created }, 'webmention received');
    return reply
      .code(201)
      .header('location', statusUrl)
      .header('content-type', 'text/plain; charset=utf-8')
      .send(`Accepted. Status: ${statusUrl}\n`);
  });

  app.get('/webmention/', async (request, reply) => {
    const target = readParam(request.query, 'target');
    if (target === undefined || target === '') throw new InvalidRequestError(forClient('target is required'));
    const page = parseListParams(request.query);
    const limit = Math.min(page.limit ?? READ_API_DEFAULT_LIMIT, READ_API_MAX_LIMIT);
    const { items, total } = await service.listPublic({ target, limit, offset: page.offset });
    return reply.send({ type: 'feed', children: items.map(jf2), paging: { limit, offset: page.offset, total } });
  });

  app.get<{ Params: { id: string } }>('/webmention/:id', async (request, reply) => {
    const record = capStored(await service.get(request.params.id));
    reply.header('cache-control', 'no-store');
    if (prefersJson(request)) return reply.send(statusJson(record));
    const reason = failureReason(record);
    const verified = record.verifiedAt === null ? '' : html` (verified ${timestamp(record.verifiedAt)})`;
    const why = reason === null ? '' : html`<dt>Why it failed</dt><dd>${reason}</dd>`;
    return sendPage(reply, 200, {
      title: 'Webmention status',
      body: layout({
        width: 'medium',
        heading: `Webmention: ${record.status}`,
        content: html`
<dl>
<dt>Source</dt><dd><code>${record.source}</code></dd>
<dt>Target</dt><dd><code>${record.target}</code></dd>
<dt>Status</dt><dd>${record.status}${verified}</dd>${why}
${record.type === null ? '' : html`<dt>Type</dt><dd>${record.type}</dd>`}
${record.author.name === null ? '' : html`<dt>Author</dt><dd>${record.author.name}</dd>`}
${record.contentText === null ? '' : html`<dt>Content</dt><dd>${record.contentText}</dd>`}
</dl>
`,
      }),
    });
  });

  methodNotAllowed(app, '/webmention/', ['GET', 'HEAD', 'POST']);
}
