/**
 * The webmention.io-compatible read API under `/indieweb/webmention/api/`:
 * `mentions.jf2`, `mentions.json` (also `mentions`, `links.json`, `links`:
 * the older `links` shape) and `count.json` (also `count`). Every answer,
 * errors included, carries `Access-Control-Allow-Origin: *` and
 * `Cache-Control: no-store`; `jsonp=NAME` wraps a success in a call.
 * Errors are JSON `{ error, error_description }`: 400 `invalid_input`,
 * 401 `forbidden`.
 * @module
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { clientReason, createErrorHandler, jsonError, type ErrorTable } from '../../web/error-handler.js';
import { sendJson } from '../../web/reply.js';
import { toCount, toJf2Feed, toLinks } from './format.js';
import { parseApiQuery, type ApiQuery } from './query.js';
import type { MentionsApi } from './service.js';

const API_HEADERS = { 'access-control-allow-origin': '*', 'cache-control': 'no-store' } as const;

export const MENTIONS_API_ERRORS: ErrorTable = {
  codes: {
    authentication_error: { answer: jsonError('forbidden', { described: true }) },
  },
  otherwise: (reply, { error, status }) =>
    sendJson(reply, status, { error: status === 400 ? 'invalid_input' : 'not_found', error_description: clientReason(error, status) }),
  unavailable: jsonError('temporarily_unavailable'),
  headers: API_HEADERS,
};

function answer(reply: FastifyReply, query: ApiQuery, body: unknown): FastifyReply {
  reply.headers(API_HEADERS);
  if (query.jsonp === undefined) return sendJson(reply, 200, body);
  return reply
    .code(200)
    .header('content-type', 'text/javascript; charset=utf-8')
    .header('x-content-type-options', 'nosniff')
    .send(`${query.jsonp}(${JSON.stringify(body)})`);
}

export async function mentionsApiRoutes(app: FastifyInstance, deps: { api: MentionsApi }): Promise<void> {
  const { api } = deps;
  app.setErrorHandler(createErrorHandler(MENTIONS_API_ERRORS));

  const jf2 = async (request: FastifyRequest, reply: FastifyReply) => {
    const query = parseApiQuery(request.query);
    return answer(reply, query, toJf2Feed(await api.mentions(query)));
  };
  const links = async (request: FastifyRequest, reply: FastifyReply) => {
    const query = parseApiQuery(request.query);
    return answer(reply, query, toLinks(await api.mentions(query)));
  };
  const count = async (request: FastifyRequest, reply: FastifyReply) => {
    const query = parseApiQuery(request.query);
    return answer(reply, query, toCount(await api.count(query)));
  };

  app.get('/webmention/api/mentions.jf2', jf2);
  for (const path of ['/webmention/api/mentions.json', '/webmention/api/mentions', '/webmention/api/links.json', '/webmention/api/links'])
    app.get(path, links);
  app.get('/webmention/api/count.json', count);
  app.get('/webmention/api/count', count);
}
