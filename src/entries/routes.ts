/**
 * The entry pages' HTTP side, at the root of the site (outside
 * `/indieweb`): `/{user}/`, `/{user}/{yyyy}/{MM}/{slug}/`, the feeds, and the
 * stylesheet. Paths are read from the raw request URL (paths.ts), never
 * from decoded parameters.
 * @module
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { escapeRegExp } from '../core/text.js';
import { sendText } from '../web/reply.js';
import { sendEntryDocument, STYLESHEET_PATH, stylesheetHash } from './document.js';
import { atomFeed } from './atom.js';
import { jsonFeed } from './json-feed.js';
import type { EntryPages, RenderedPage } from './pages.js';
import { basePath, decodeCursor, isUserSegment, parseEntryPath, requestPath, requestQuery } from './paths.js';
import type { EntryTemplates } from './templates.js';
import { sendStaticAsset, staticAsset } from '../web/static-asset.js';

export interface EntryRoutesDeps {
  readonly pages: EntryPages;
  readonly templates: EntryTemplates;
  readonly baseUrl: string;
}

const NOT_FOUND = 'not found\n';

/** Registers a GET route with and without its trailing slash, unless the router already treats them as one. */
function getBoth(
  app: FastifyInstance,
  url: string,
  handler: (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>,
): void {
  app.get(url, handler);
  const other = url.endsWith('/') ? url.slice(0, -1) : `${url}/`;
  if (!app.hasRoute({ method: 'GET', url: other })) app.get(other, handler);
}

export async function entryRoutes(app: FastifyInstance, deps: EntryRoutesDeps): Promise<void> {
  const { pages, templates, baseUrl } = deps;
  const send = (reply: FastifyReply, page: RenderedPage) => sendEntryDocument(reply, page.status, templates, page, baseUrl);
  // a base URL with a path of its own (plugin mode) puts every page below it
  const prefix = basePath(baseUrl);
  /** The part of the request path below the prefix, or null. */
  const below = (url: string): string | null => {
    const path = requestPath(url);
    return path === null || !path.startsWith(`${prefix}/`) ? null : path.slice(prefix.length);
  };

  // pages link it with `?v=` the hash of its text: that URL is for good, any other is revalidated
  const stylesheet = staticAsset('text/css; charset=utf-8', templates.stylesheet);
  const version = stylesheetHash(templates.stylesheet);
  app.get(`${prefix}${STYLESHEET_PATH}`, async (request, reply) =>
    sendStaticAsset(request, reply, stylesheet, requestQuery(request.url).get('v') === version),
  );

  getBoth(app, `${prefix}/:user/`, async (request, reply) => {
    const path = below(request.url);
    const user = path === null ? null : /^\/([^/]+)\/?$/.exec(path)?.[1];
    if (user === undefined || user === null || !isUserSegment(user)) return sendText(reply, 404, NOT_FOUND);
    const query = requestQuery(request.url);
    const beforeValue = query.get('before');
    const afterValue = query.get('after');
    if (beforeValue !== null && afterValue !== null) return sendText(reply, 400, 'bad request: give either before or after, not both\n');
    const before = beforeValue === null ? undefined : decodeCursor(beforeValue);
    const after = afterValue === null ? undefined : decodeCursor(afterValue);
    if (before === null || after === null) return sendText(reply, 400, 'bad request: the page cursor could not be read\n');
    if (!path!.endsWith('/')) {
      // the home page's one spelling ends in a slash; redirect only when it exists
      const owner = await pages.ownerNamed(user);
      return owner === null ? sendText(reply, 404, NOT_FOUND) : reply.redirect(owner.view.homeUrl, 301);
    }
    const page = await pages.home(user, { ...(before === undefined ? {} : { before }), ...(after === undefined ? {} : { after }) });
    return page === null ? sendText(reply, 404, NOT_FOUND) : send(reply, page);
  });

  getBoth(app, `${prefix}/:user/:year/:month/:slug/`, async (request, reply) => {
    const path = requestPath(request.url);
    const entryPath = path === null ? null : parseEntryPath(path, prefix);
    if (entryPath === null) return sendText(reply, 404, NOT_FOUND);
    const answer = await pages.entry(entryPath);
    if (answer.kind === 'redirect') return reply.redirect(answer.location, 301);
    if (answer.kind === 'not-found') return sendText(reply, 404, NOT_FOUND);
    return send(reply, answer.page);
  });

  const feedRoute = (file: string, type: string, render: typeof atomFeed) =>
    app.get(`${prefix}/:user/${file}`, async (request, reply) => {
      const path = below(request.url);
      const user = path === null ? undefined : new RegExp(`^/([^/]+)/${escapeRegExp(file)}$`).exec(path)?.[1];
      const feed = user === undefined || !isUserSegment(user) ? null : await pages.feed(user);
      if (feed === null) return sendText(reply, 404, NOT_FOUND);
      return reply
        .code(200)
        .header('content-type', `${type}; charset=utf-8`)
        .header('x-content-type-options', 'nosniff')
        .header('cache-control', 'no-cache')
        .send(render(feed.owner, feed.entries));
    });
  feedRoute('feed.atom', 'application/atom+xml', atomFeed);
  feedRoute('feed.json', 'application/feed+json', jsonFeed);
}
