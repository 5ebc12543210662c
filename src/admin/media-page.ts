/**
 * Media: the user's uploads with a preview and their URL, and deleting one.
 * @module
 */
import { byteSize, timestamp } from '../web/ui/format.js';
import type { FastifyInstance } from 'fastify';
import { readParam } from '../core/params.js';
import type { MediaLibrary } from '../media/library.js';
import type { MediaRecord } from '../storage/repositories/media.js';
import { html, type SafeHtml } from '../web/html.js';
import { buttonForm } from '../web/ui/csrf-form.js';
import { ADMIN, redirectDone, sendAdminPage } from './layout.js';
import { sessionOf } from './session.js';

export interface MediaPageDeps {
  readonly media: MediaLibrary;
  readonly baseUrl: string;
}

/** Images, audio and video play in the page (the CSP allows media from us and https); other types show none. */
function preview(file: MediaRecord): SafeHtml | '' {
  if (file.mediaType.startsWith('image/')) return html`<img src="${file.url}" alt="" loading="lazy" width="160">`;
  if (file.mediaType.startsWith('audio/')) return html`<audio controls preload="none" src="${file.url}"></audio>`;
  if (file.mediaType.startsWith('video/')) return html`<video controls preload="none" width="240" src="${file.url}"></video>`;
  return '';
}

function mediaItem(file: MediaRecord, csrf: string): SafeHtml {
  return html`<li class="media-item">${preview(file)}<p>${file.name} · ${file.mediaType} · ${byteSize(file.size)} · ${timestamp(file.createdAt)}</p>
<label>URL <input type="text" readonly value="${file.url}"></label>
${buttonForm({ action: `${ADMIN}/media/delete`, csrf, hidden: { id: file.id }, label: 'Delete' })}</li>`;
}

export function mediaPage(app: FastifyInstance, deps: MediaPageDeps): void {
  const { media, baseUrl } = deps;

  app.get('/media/', async (request, reply) => {
    const { user, csrf } = sessionOf(request);
    const files = await media.listOwned(user);
    const content = files.length === 0 ? html`<p>No uploads yet.</p>` : html`<ul class="media">${files.map((file) => mediaItem(file, csrf))}</ul>`;
    return sendAdminPage(request, reply, { title: 'Media', content });
  });

  // another user's file answers like a deleted one: the same redirect, nothing removed
  app.post('/media/delete', async (request, reply) => {
    await media.deleteOwned(sessionOf(request).user, readParam(request.body, 'id') ?? '');
    return redirectDone(reply, baseUrl, '/media/', 'deleted');
  });
}
