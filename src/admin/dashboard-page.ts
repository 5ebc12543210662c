/**
 * The admin's first page (`/indieweb/admin/`, the "Admin" link after
 * sign-in): what to do next, which content handler keeps the posts, the
 * latest posts and the latest webmentions.
 * @module
 */
import type { FastifyInstance } from 'fastify';
import type { HostUser } from '../contracts/accounts.js';
import type { WebmentionService } from '../webmention/service.js';
import { html, type SafeHtml } from '../web/html.js';
import { ADMIN, sendAdminPage } from './layout.js';
import { sessionOf } from './session.js';
import { MicropubRefusal } from './write/micropub-client.js';
import { headline, linkable } from './write/posts-page.js';
import { clientOf, type WritePagesDeps } from './write/write-page.js';

/** How many posts and mentions the dashboard shows. */
const LATEST = 5;

/** The content handler that runs, as the dashboard tells it. */
export interface HandlerInfo {
  readonly kind: 'memory' | 'database' | 'files' | 'own';
  /** `INDIEWEB_MICROPUB_HANDLER` as configured; null when unset (or the host's handler object in plugin mode). */
  readonly setting: string | null;
  /** Whether this server serves the posts as pages (`/NAME/`, feeds). */
  readonly pages: boolean;
  /** The files handler: the account's site directory. */
  readonly siteDirectory?: (user: HostUser) => string;
}

export interface DashboardDeps extends Pick<WritePagesDeps, 'micropub'> {
  readonly webmentions: Pick<WebmentionService, 'listOwned'>;
  readonly handler: HandlerInfo;
  readonly baseUrl: string;
}

/** Which handler keeps the posts, and what that means for them. */
export function handlerSentence(handler: HandlerInfo, baseUrl: string, user: HostUser): SafeHtml {
  const home = `${baseUrl}/${user.name}/`;
  const served = [
    html`your home is <a href="${home}">${home}</a>, with <a href="${home}feed.atom">Atom</a>`,
    html` and <a href="${home}feed.json">JSON</a> feeds`,
  ];
  const setting = html`<code>INDIEWEB_MICROPUB_HANDLER=${handler.setting ?? handler.kind}</code>`;
  if (handler.kind === 'memory') {
    const pages = handler.pages
      ? html`and served as pages while the server runs (${served}), but`
      : html`(Micropub apps can read them back while the server runs, not served as pages here), and`;
    return html`<p class="warning">${[
      html`Posts are kept <strong>in memory</strong> (the default handler) ${pages} they are <strong>gone when it stops</strong>,`,
      html` a restart too. To keep them, start the server with <code>INDIEWEB_MICROPUB_HANDLER=database</code>.`,
    ]}</p>`;
  }
  if (handler.kind === 'database') {
    const pages = handler.pages ? html` and served as pages: ${served}` : html`; this server does not serve them as pages`;
    return html`<p>Posts are stored in <strong>indiestack's database</strong> (${setting}): they survive a restart${pages}.</p>`;
  }
  if (handler.kind === 'files') {
    const where = handler.siteDirectory === undefined ? html`your site's directory` : html`<code>${handler.siteDirectory(user)}</code>`;
    return html`<p>${[
      html`Posts are written as <strong>Markdown files</strong> into ${where} (${setting}),`,
      html` for your static site generator to publish; this server does not serve them as pages.`,
    ]}</p>`;
  }
  const own = handler.setting === null ? html`the host application's` : setting;
  return html`<p>Posts go to <strong>your own handler</strong> (${own}): it decides where they are kept and served.</p>`;
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
${handlerSentence(deps.handler, deps.baseUrl, user)}
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
