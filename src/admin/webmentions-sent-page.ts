/**
 * Sent webmentions: what sending on publish did for each (entry, target)
 * pair of the signed-in account — waiting for the deploy signal, queued,
 * sent (with the endpoint's status), no endpoint, failed (and why) — newest
 * first, 50 at a time.
 * @module
 */
import type { FastifyInstance } from 'fastify';
import { readParam } from '../core/params.js';
import type { OutgoingMention } from '../storage/repositories/webmention-outgoing.js';
import { html, type SafeHtml } from '../web/html.js';
import type { PublishSender } from '../webmention/publish/sender.js';
import { ADMIN, sendAdminPage } from './layout.js';
import { sessionOf } from './session.js';

export const SENT_PATH = '/webmentions/sent/';
const PAGE_SIZE = 50;

const STATUS_TEXT: Readonly<Record<OutgoingMention['status'], string>> = {
  waiting: 'waiting for the deploy signal',
  queued: 'queued',
  sent: 'sent',
  'no-endpoint': 'no endpoint',
  failed: 'failed',
};

function row(item: OutgoingMention): SafeHtml {
  const why = item.linked ? 'linked' : 'link removed';
  const httpStatus = item.httpStatus === null ? '—' : String(item.httpStatus);
  return html`<tr class="sent-${item.status}"><td><a href="${item.source}">${item.source}</a></td>
<td><a href="${item.target}">${item.target}</a> <small>(${why})</small></td><td>${STATUS_TEXT[item.status]}</td>
<td>${httpStatus}</td><td>${String(item.attempts)}</td><td>${item.error ?? '—'}</td><td>${item.updatedAt}</td></tr>`;
}

export function webmentionsSentPage(app: FastifyInstance, deps: { sender: PublishSender; mode: 'off' | 'on' | 'deploy' }): void {
  app.get(SENT_PATH, async (request, reply) => {
    const { user } = sessionOf(request);
    const offsetText = readParam(request.query, 'offset') ?? '0';
    const offset = /^\d{1,9}$/.test(offsetText) ? Number(offsetText) : 0;
    const { items, total } = await deps.sender.list(user.id, { limit: PAGE_SIZE, offset });
    const mode =
      deps.mode === 'off'
        ? html`<p>Sending on publish is off (<code>INDIEWEB_WEBMENTION_SEND_ON_PUBLISH</code>).</p>`
        : deps.mode === 'deploy'
          ? html`<p>Webmentions wait until your build pipeline sends the deploy signal
(<code>POST /indieweb/webmention/deploy</code>).</p>`
          : html`<p>Webmentions are sent as soon as an entry is published, updated or deleted.</p>`;
    const table =
      items.length === 0
        ? html`<p>No webmentions sent yet.</p>`
        : html`<table class="sent">
<thead><tr><th>From (your entry)</th><th>To</th><th>Status</th><th>HTTP</th><th>Attempts</th><th>Error</th><th>Updated</th></tr></thead>
<tbody>${items.map(row)}</tbody></table>`;
    const more =
      offset + items.length < total ? html`<p><a href="${ADMIN}${SENT_PATH}?offset=${String(offset + PAGE_SIZE)}">Older</a></p>` : '';
    return sendAdminPage(request, reply, { title: 'Sent webmentions', content: html`${mode}${table}${more}` });
  });
}
