/**
 * The admin's first page (`/indieweb/admin/`, the "Admin" link after
 * sign-in): what to do next, which content handler keeps the posts, the
 * latest posts and the latest webmentions.
 * @module
 */
import type { FastifyInstance } from 'fastify';
import type { WebmentionService } from '../webmention/service.js';
import { html, type SafeHtml } from '../web/html.js';
import { ADMIN, sendAdminPage } from './layout.js';
import { sessionOf } from './session.js';
import { MicropubRefusal } from './write/micropub-client.js';
import { headline, linkable } from './write/posts-page.js';
import { clientOf, type WritePagesDeps } from './write/write-page.js';

/** How many posts and mentions the dashboard shows. */
const LATEST = 5;

/** Part of the in-memory warning, named so that its sentence stays on one line of the page's HTML. */
const READ_BACK = 'Micropub apps can read them back while the server runs, but they are not served as pages';

export interface DashboardDeps extends Pick<WritePagesDeps, 'micropub'> {
  readonly webmentions: Pick<WebmentionService, 'listOwned'>;
  /** `INDIEWEB_MICROPUB_HANDLER` as configured (null: the default in-memory handler). */
  readonly handler: string | null;
  readonly baseUrl: string;
}

/** Which handler keeps the posts, and what that means for them. */
export function handlerSentence(handler: string | null, baseUrl: string, userName: string): SafeHtml {
  if (handler === null || handler === 'memory') {
    return html`<p class="warning">
Posts are kept <strong>in memory</strong> (the default handler): ${READ_BACK}, and they are <strong>gone when it stops</strong>.
To keep them, start the server with <code>INDIEWEB_MICROPUB_HANDLER=database</code>.</p>`;
  }
  if (handler === 'database') {
    const home = `${baseUrl}/${userName}/`;
    return html`<p>Posts are kept in <strong>indiestack's database</strong> (<code>INDIEWEB_MICROPUB_HANDLER=database</code>)
and served as pages: your home is <a href="${home}">${home}</a>,
with <a href="${home}feed.atom">Atom</a> and <a href="${home}feed.json">JSON</a> feeds.</p>`;
  }
  if (handler === 'files')
    return html`<p>Posts are written as <strong>Markdown files</strong> into your static site
(<code>INDIEWEB_MICROPUB_HANDLER=files</code>): your site generator publishes them.</p>`;
  return html`<p>Posts go to <strong>your own handler</strong> (<code>INDIEWEB_MICROPUB_HANDLER=${handler}</code>):
it decides where they are kept and served.</p>`;
}

export function dashboardPage(app: FastifyInstance, deps: DashboardDeps): void {
  app.get('/', async (request, reply) => {
    const { user } = sessionOf(request);
    let posts: SafeHtml;
    try {
      const page = await clientOf(deps, request).list({ limit: LATEST, offset: 0, filter: '' });
      posts =
        page.items.length === 0
          ? html`<p>No posts yet. <a href="${ADMIN}/write/">Write the first one</a>.</p>`
          : html`<ul>${page.items.map((item) => {
              const url = linkable(typeof item.properties.url?.[0] === 'string' ? item.properties.url[0] : undefined);
              return url === null ? html`<li>${headline(item)}</li>` : html`<li><a href="${url}">${headline(item)}</a></li>`;
            })}</ul><p><a href="${ADMIN}/posts/">All posts</a></p>`;
    } catch (error) {
      if (!(error instanceof MicropubRefusal)) throw error;
      posts = html`<p>Your content handler does not list posts here. <a href="${ADMIN}/write/">Write one</a>.</p>`;
    }
    const { items: mentions } = await deps.webmentions.listOwned(user, {});
    const latest = mentions.slice(0, LATEST).map((mention) => {
      const author = mention.author.name ?? mention.source;
      return html`<li><a href="${mention.source}">${author}</a> mentioned <a href="${mention.target}">${mention.target}</a></li>`;
    });
    const latestMentions =
      mentions.length === 0
        ? html`<p>No webmentions yet: when someone links to your posts and tells this server, they show here.</p>`
        : html`<ul>${latest}</ul><p><a href="${ADMIN}/webmentions/">All webmentions</a></p>`;
    const content = html`<div class="columns dashboard">
<section class="panel" aria-labelledby="next-heading">
<h2 id="next-heading">What to do next</h2>
<ol>
<li><a href="${ADMIN}/setup/">Check my setup</a>: whether your homepage links this server and clients can reach it.</li>
<li><a href="${ADMIN}/write/">Write</a> a post, or publish from any Micropub app signed in as <code>${user.me[0] ?? user.name}</code>.</li>
<li><a href="${ADMIN}/profile/">Profile</a>: the name, photo and note of your h-card.</li>
<li><a href="${ADMIN}/webmention-settings/">Webmention settings</a>: API token, block and allow lists.</li>
</ol>
</section>
<section class="panel" aria-labelledby="posts-heading">
<h2 id="posts-heading">Latest posts</h2>
${handlerSentence(deps.handler, deps.baseUrl, user.name)}
${posts}
</section>
<section class="panel" aria-labelledby="mentions-heading">
<h2 id="mentions-heading">Latest webmentions</h2>
${latestMentions}
</section>
</div>`;
    return sendAdminPage(request, reply, { title: 'Dashboard', content });
  });
}
