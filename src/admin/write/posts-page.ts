/**
 * Posts: the user's entries from `q=source` (filter and paging), each with
 * Edit and Delete; what was just done (with a Restore button after a
 * delete); restoring a deleted post by its URL. A handler that cannot list
 * entries (501) is said plainly, and editing by URL still works.
 * @module
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { MicropubProperties } from '../../contracts/micropub-types.js';
import { readParam } from '../../core/params.js';
import { parseStrictHttpUrl } from '../../core/url.js';
import { postStatusOf } from '../../core/visibility.js';
import { html, type SafeHtml } from '../../web/html.js';
import { buttonForm, postForm } from '../../web/ui/csrf-form.js';
import { errorAlert } from '../../web/ui/messages.js';
import { ADMIN, sendAdminPage } from '../layout.js';
import { sessionOf } from '../session.js';
import { contentText } from './content.js';
import { MicropubRefusal, type SourceItem, type SourcePage } from './micropub-client.js';
import { POST_TYPE_FORMS, postTypeOf } from './post-types.js';
import { clientOf, type WritePagesDeps } from './write-page.js';

export const POSTS_PATH = `${ADMIN}/posts/`;
export const POSTS_PER_PAGE = 20;

/** A URL from the query that may be shown as a link: http(s) only. */
export function linkable(url: string | undefined): string | null {
  return url !== undefined && parseStrictHttpUrl(url.split('#')[0] ?? '') !== null ? url : null;
}

function firstText(properties: MicropubProperties, name: string): string {
  const value = properties[name]?.[0];
  if (value === undefined) return '';
  return name === 'content' ? contentText(value).text : typeof value === 'string' ? value : '';
}

/** What a post is called in the list: its title, else the start of its text, else what it cites. */
export function headline(item: SourceItem): string {
  const { properties } = item;
  const text = firstText(properties, 'name') || firstText(properties, 'content') || firstText(properties, 'summary');
  const cited = ['in-reply-to', 'like-of', 'repost-of', 'bookmark-of']
    .map((name) => firstText(properties, name))
    .find((value) => value !== '');
  const words = text.replace(/\s+/g, ' ').trim();
  if (words !== '') return words.length > 120 ? `${words.slice(0, 119)}…` : words;
  return cited ?? '(no text)';
}

function postRow(item: SourceItem, csrf: string): SafeHtml {
  const url = firstText(item.properties, 'url');
  const type = postTypeOf(item.type, item.properties);
  const draft = postStatusOf(item.properties) === 'draft';
  const published = firstText(item.properties, 'published');
  const link = linkable(url);
  const title = link === null ? headline(item) : html`<a href="${link}">${headline(item)}</a>`;
  const kind = `${POST_TYPE_FORMS[type].label}${draft ? ' (draft)' : ''}`;
  const edit = html`<a href="${POSTS_PATH}edit?url=${encodeURIComponent(url)}">Edit</a>`;
  const remove = buttonForm({ action: `${POSTS_PATH}delete`, csrf, hidden: { url }, label: 'Delete' });
  return html`<tr><td>${title}</td><td>${kind}</td><td>${published}</td>
<td>${url === '' ? '' : html`${edit} ${remove}`}</td></tr>`;
}

function pagingLinks(page: SourcePage, offset: number, count: number, filter: string): SafeHtml {
  const query = (to: number) =>
    `${POSTS_PATH}?${new URLSearchParams({ ...(filter === '' ? {} : { filter }), ...(to === 0 ? {} : { offset: String(to) }) }).toString()}`;
  const total = page.paging.total;
  const hasNext = total === undefined ? count === POSTS_PER_PAGE : offset + count < total;
  const shown = count === 0 ? 'No posts' : `Posts ${offset + 1}–${offset + count}${total === undefined ? '' : ` of ${total}`}`;
  const newer = offset > 0 ? html` · <a href="${query(Math.max(0, offset - POSTS_PER_PAGE))}" rel="prev">Newer</a>` : '';
  const older = hasNext ? html` · <a href="${query(offset + POSTS_PER_PAGE)}" rel="next">Older</a>` : '';
  return html`<nav aria-label="Pages of posts"><p>${shown}${newer}${older}</p></nav>`;
}

/** What was just done, with the post's link, and Restore after a delete. */
function outcome(done: string | undefined, url: string | null, csrf: string): SafeHtml | '' {
  if (url === null) return '';
  if (done === 'post-deleted') {
    const restore = buttonForm({ action: `${POSTS_PATH}undelete`, csrf, hidden: { url }, label: 'Restore it' });
    return html`<p>Deleted <code>${url}</code>. ${restore}</p>`;
  }
  if (done === 'published' || done === 'draft-saved' || done === 'updated' || done === 'unchanged' || done === 'restored') {
    return html`<p>The post: <a href="${url}">${url}</a> · <a href="${POSTS_PATH}edit?url=${encodeURIComponent(url)}">Edit it</a></p>`;
  }
  return '';
}

export function postsPages(app: FastifyInstance, deps: WritePagesDeps): void {
  const { baseUrl } = deps;

  async function show(request: FastifyRequest, reply: FastifyReply, problem?: { message: string; status: number }): Promise<FastifyReply> {
    const { csrf } = sessionOf(request);
    const filter = readParam(request.query, 'filter', 500) ?? '';
    const offset = Math.max(0, Math.min(Number.parseInt(readParam(request.query, 'offset') ?? '0', 10) || 0, 1_000_000));
    let list: SafeHtml;
    try {
      const page = await clientOf(deps, request).list({ limit: POSTS_PER_PAGE, offset, filter });
      const rows = page.items.map((item) => postRow(item, csrf));
      const paging = pagingLinks(page, offset, rows.length, filter);
      list =
        rows.length === 0
          ? html`<p>${filter === '' ? html`No posts yet. <a href="${ADMIN}/write/">Write one</a>.` : 'No post matches this filter.'}</p>`
          : html`<table><thead><tr><th>Post</th><th>Kind</th><th>Published</th><th></th></tr></thead>
<tbody>${rows}</tbody></table>${paging}`;
    } catch (error) {
      if (!(error instanceof MicropubRefusal)) throw error;
      list =
        error.status === 501
          ? html`<p class="warning">Your content handler cannot list posts (it answers the Micropub list query with 501 Not Implemented),
so none are shown here. You can still write posts, and edit, delete or restore one by its URL below.</p>`
          : errorAlert(error.sentence);
    }
    const search = html`<form method="get" action="${POSTS_PATH}" role="search">
<label for="posts-filter">Show posts containing</label>
<input type="text" id="posts-filter" name="filter" value="${filter}"><button type="submit">Filter</button></form>`;
    const restore = postForm({
      action: `${POSTS_PATH}undelete`,
      csrf,
      content: html`<label for="restore-url">URL of a deleted post to restore</label>
<input type="url" id="restore-url" name="url" required><button type="submit">Restore</button>`,
    });
    const byUrl = html`<h2>A post by its URL</h2>
<form method="get" action="${POSTS_PATH}edit"><label for="edit-url">URL of the post to edit</label>
<input type="url" id="edit-url" name="url" required><button type="submit">Edit</button></form>
${restore}`;
    const done = outcome(readParam(request.query, 'done'), linkable(readParam(request.query, 'url')), csrf);
    return sendAdminPage(request, reply, {
      title: 'Posts',
      content: html`${problem === undefined ? '' : errorAlert(problem.message)}${done}
<p><a href="${ADMIN}/write/">Write a post</a></p>${search}${list}${byUrl}`,
      status: problem?.status ?? 200,
    });
  }

  app.get('/posts/', async (request, reply) => show(request, reply));

  for (const action of ['delete', 'undelete'] as const) {
    app.post(`/posts/${action}`, async (request, reply) => {
      const url = (readParam(request.body, 'url') ?? '').trim();
      if (url === '') return show(request, reply, { message: 'Give the URL of the post.', status: 400 });
      let after = url;
      try {
        const client = clientOf(deps, request);
        if (action === 'delete') await client.delete(url);
        else after = await client.undelete(url);
      } catch (error) {
        if (!(error instanceof MicropubRefusal)) throw error;
        request.log.info({ err: error, action }, 'posts: the endpoint refused');
        const message =
          error.status === 400 ? `No ${action === 'delete' ? '' : 'deleted '}post of yours has this URL: ${url}` : error.sentence;
        return show(request, reply, { message, status: error.status >= 400 && error.status < 600 ? error.status : 502 });
      }
      request.log.info({ userId: sessionOf(request).user.id, action }, `posts: ${action}`);
      return reply.redirect(
        `${baseUrl}${POSTS_PATH}?done=${action === 'delete' ? 'post-deleted' : 'restored'}&url=${encodeURIComponent(after)}`,
        303,
      );
    });
  }
}
