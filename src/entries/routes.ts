/**
 * The entry pages' HTTP side, at the root of the site (outside
 * `/indieweb`): `/{user}/`, `/{user}/{yyyy}/{MM}/{slug}/` (the in-memory
 * handler's `/indieweb/entries/{slug}`), the feeds, and the stylesheet.
 * Paths are read from the raw request URL (paths.ts), never from decoded
 * parameters.
 * @module
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { escapeRegExp } from '../core/text.js';
import { sendText } from '../web/reply.js';
import { sendEntryDocument, STYLESHEET_PATH, stylesheetHash } from './document.js';
import { atomFeed } from './atom.js';
import { jsonFeed } from './json-feed.js';
import type { EntryPages, RenderedPage } from './pages.js';
import type { EntryPath } from './paths.js';
import { basePath, decodeCursor, isUserSegment, parseEntryPath, parseFlatEntryPath, requestPath, requestQuery } from './paths.js';
import type { EntryTemplates } from './templates.js';
import { sendStaticAsset, staticAsset } from '../web/static-asset.js';

export interface EntryRoutesDeps {
  readonly pages: EntryPages;
  readonly templates: EntryTemplates;
  readonly baseUrl: string;
  /** The whole path before a flat entry's slug (the in-memory handler's `/indieweb/entries/`); absent: no flat entries. */
  readonly flatEntryPrefix?: string;
}

/** Not found: the answer of the host's not-found handler (standalone: a page for a browser, our JSON error otherwise), as for any unknown URL. */
const notFound = (reply: FastifyReply): FastifyReply => {
  reply.callNotFound();
  return reply;
};

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
    if (user === undefined || user === null || !isUserSegment(user)) return notFound(reply);
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
      return owner === null ? notFound(reply) : reply.redirect(owner.view.homeUrl, 301);
    }
    const page = await pages.home(user, { ...(before === undefined ? {} : { before }), ...(after === undefined ? {} : { after }) });
    return page === null ? notFound(reply) : send(reply, page);
  });

  const entryRoute = (url: string, parse: (path: string) => EntryPath | null) =>
    getBoth(app, url, async (request, reply) => {
      const path = requestPath(request.url);
      const entryPath = path === null ? null : parse(path);
      if (entryPath === null) return notFound(reply);
      const answer = await pages.entry(entryPath);
      if (answer.kind === 'redirect') return reply.redirect(answer.location, 301);
      if (answer.kind === 'not-found') return notFound(reply);
      return send(reply, answer.page);
    });
  entryRoute(`${prefix}/:user/:year/:month/:slug/`, (path) => parseEntryPath(path, prefix));
  // the in-memory handler's entries: `{base}/indieweb/entries/{slug}` (its pathPrefix holds the base URL's path already)
  const flat = deps.flatEntryPrefix;
  if (flat !== undefined) entryRoute(`${flat}:slug/`, (path) => parseFlatEntryPath(path, flat));

  const feedRoute = (file: string, type: string, render: typeof atomFeed) =>
    app.get(`${prefix}/:user/${file}`, async (request, reply) => {
      const path = below(request.url);
      const user = path === null ? undefined : new RegExp(`^/([^/]+)/${escapeRegExp(file)}$`).exec(path)?.[1];
      const feed = user === undefined || !isUserSegment(user) ? null : await pages.feed(user);
      if (feed === null) return notFound(reply);
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
