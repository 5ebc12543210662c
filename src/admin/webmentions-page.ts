/**
 * Webmentions: the user's own mentions, newest first, a page at a time,
 * filtered by status and target; checking one again, marking it as spam,
 * deleting it. Another user's mention answers exactly like an unknown id
 * (see webmention/ownership.ts).
 * @module
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isIndieWebError } from '../core/errors.js';
import { readParam } from '../core/params.js';
import { WEBMENTION_STATUSES, type WebmentionRecord, type WebmentionStatus } from '../storage/repositories/webmentions.js';
import { isService, SERVICE_NAMES } from '../syndication/clients.js';
import { failureReason } from '../webmention/failure.js';
import type { ModerationService } from '../webmention/moderation-service.js';
import { OWNED_PAGE_SIZE, type WebmentionService } from '../webmention/service.js';
import { html, type SafeHtml } from '../web/html.js';
import { buttonForm } from '../web/ui/csrf-form.js';
import { errorAlert } from '../web/ui/messages.js';
import { ADMIN, redirectDone, sendAdminPage, type Done } from './layout.js';
import { sessionOf } from './session.js';

export interface WebmentionsPageDeps {
  readonly webmentions: WebmentionService;
  readonly moderation: ModerationService;
  readonly baseUrl: string;
}

interface Services {
  readonly webmentions: WebmentionService;
  readonly moderation: ModerationService;
}

/** What each action does, and the notice after it. */
const ACTIONS: Readonly<Record<string, { readonly run: (services: Services, id: string) => Promise<unknown>; readonly done: Done }>> = {
  reprocess: { run: (services, id) => services.webmentions.reprocess(id), done: 'reprocessed' },
  spam: { run: (services, id) => services.webmentions.markSpam(id), done: 'spam' },
  delete: { run: (services, id) => services.webmentions.remove(id), done: 'deleted' },
  approve: { run: (services, id) => services.moderation.approve(id), done: 'approved' },
  'approve-allow': { run: (services, id) => services.moderation.approve(id, { allowDomain: true }), done: 'allowed' },
  reject: { run: (services, id) => services.moderation.reject(id), done: 'rejected' },
};

interface ListQuery {
  readonly status: WebmentionStatus | undefined;
  readonly held: boolean;
  readonly target: string;
  readonly offset: number;
}

function readListQuery(query: unknown): ListQuery {
  const statusParam = readParam(query, 'status') ?? '';
  const offsetParam = readParam(query, 'offset') ?? '';
  return {
    status: (WEBMENTION_STATUSES as readonly string[]).includes(statusParam) ? (statusParam as WebmentionStatus) : undefined,
    held: readParam(query, 'approval') === 'held',
    target: readParam(query, 'target') ?? '',
    // a malformed or huge offset shows the first page rather than an error
    offset: /^\d{1,9}$/.test(offsetParam) ? Number(offsetParam) : 0,
  };
}

function pageLink(query: ListQuery, at: number, label: string): SafeHtml {
  const search = new URLSearchParams({
    ...(query.status === undefined ? {} : { status: query.status }),
    ...(query.held ? { approval: 'held' } : {}),
    ...(query.target === '' ? {} : { target: query.target }),
    ...(at === 0 ? {} : { offset: String(at) }),
  }).toString();
  return html`<a href="${ADMIN}/webmentions/${search === '' ? '' : `?${search}`}">${label}</a>`;
}

function paging(query: ListQuery, shown: number, total: number): SafeHtml | '' {
  const { offset } = query;
  if (total <= OWNED_PAGE_SIZE && offset === 0) return '';
  const newer = offset > 0 ? html` ${pageLink(query, Math.max(0, offset - OWNED_PAGE_SIZE), 'Newer')}` : '';
  const older = offset + shown < total ? html` ${pageLink(query, offset + OWNED_PAGE_SIZE, 'Older')}` : '';
  return html`<p class="paging">${shown === 0 ? 'None' : `${offset + 1}–${offset + shown}`} of ${String(total)}${newer}${older}</p>`;
}

function filterForm(query: ListQuery): SafeHtml {
  const options = [
    html`<option value="">any</option>`,
    ...WEBMENTION_STATUSES.map(
      (status) => html`<option value="${status}"${status === query.status ? html` selected` : ''}>${status}</option>`,
    ),
  ];
  return html`<form method="get" action="${ADMIN}/webmentions/" class="filters"
role="search" aria-label="Filter webmentions">
<div><label for="filter-status">Status</label><select id="filter-status" name="status">${options}</select></div>
<div><label for="filter-target">Target</label><input type="url" id="filter-target" name="target" value="${query.target}"></div>
<button type="submit">Filter</button></form>`;
}

/**
 * The service a backfed mention came from (its origin is `SERVICE:TARGET_UID`, issue 34): a visible label whose
 * text says it ("via Bluesky"), so it needs no icon alt text; '' for a mention received the usual way.
 */
export function viaLabel(origin: string | null): SafeHtml | '' {
  const service = origin?.split(':', 1)[0] ?? '';
  if (!isService(service)) return '';
  return html` <span class="via" data-service="${service}">via ${SERVICE_NAMES[service]}</span>`;
}

function mentionItem(item: WebmentionRecord, csrf: string): SafeHtml {
  const action = (name: string, label: string) => buttonForm({ action: `${ADMIN}/webmentions/${item.id}/${name}`, csrf, label });
  const reason = failureReason(item);
  const waiting = item.approval === 'held' && item.status !== 'spam' && item.status !== 'failed';
  const moderation = waiting
    ? html`<p class="held">Waiting for your approval.</p>
${action('approve', 'Approve')}${action('approve-allow', 'Approve and always allow this domain')}${action('reject', 'Reject')}`
    : item.approval === 'rejected'
      ? html`<p class="rejected">Rejected.</p>${action('approve', 'Approve')}`
      : '';
  const source = html`<a href="${item.source}" rel="nofollow ugc noopener">${item.source}</a>`;
  // the service of a backfed mention follows the target
  const target = html`<code>${item.target}</code>${viaLabel(item.origin)}`;
  const by = item.author.name === null ? '' : html`<p>By ${item.author.name}</p>`;
  const quote = item.contentText === null ? '' : html`<blockquote>${item.contentText}</blockquote>`;
  const failure = reason === null ? '' : html`<p class="failure">Why it failed: ${reason}</p>`;
  const { status } = item;
  const spam = status === 'spam' ? '' : action('spam', 'Mark as spam');
  // a backfed mention is checked again by its target's next poll, not by fetching its source
  const recheck = item.origin === null ? action('reprocess', 'Check again') : '';
  return html`<li class="mention" data-status="${status}"><p><strong>${status}</strong> ${item.type ?? ''} from ${source} to ${target}</p>
${by}${quote}${failure}
${moderation}${recheck}${spam}${action('delete', 'Delete')}</li>`;
}

export function webmentionsPage(app: FastifyInstance, deps: WebmentionsPageDeps): void {
  const { webmentions, baseUrl } = deps;
  const services: Services = { webmentions, moderation: deps.moderation };
  const sendError = (request: FastifyRequest, reply: FastifyReply, status: number, message: string) =>
    sendAdminPage(request, reply, { title: 'Webmentions', content: errorAlert(message), status });

  app.get('/webmentions/', async (request, reply) => {
    const { user, csrf } = sessionOf(request);
    const query = readListQuery(request.query);
    const { items, total } = await webmentions.listOwned(user, {
      ...(query.status === undefined ? {} : { status: query.status }),
      ...(query.target === '' ? {} : { target: query.target }),
      ...(query.held ? { approval: 'held' as const } : {}),
      offset: query.offset,
    });
    const list =
      items.length === 0 ? html`<p>No webmentions.</p>` : html`<ul class="mentions">${items.map((item) => mentionItem(item, csrf))}</ul>`;
    const held = sessionOf(request).heldMentions;
    const heldLink = held > 0 ? html`<a href="${ADMIN}/webmentions/?approval=held">${String(held)} waiting for approval</a> · ` : '';
    const settings = html`<p>${heldLink}<a href="${ADMIN}/webmention-settings/">Webmention settings</a>: API token, block and allow lists.
· <a href="${ADMIN}/webmentions/sent/">Sent webmentions</a></p>`;
    return sendAdminPage(request, reply, {
      title: 'Webmentions',
      content: html`${settings}${filterForm(query)}\n${list}${paging(query, items.length, total)}`,
    });
  });

  app.post<{ Params: { id: string; action: string } }>('/webmentions/:id/:action', async (request, reply) => {
    const { id, action } = request.params;
    try {
      await webmentions.getOwned(sessionOf(request).user, id);
    } catch (error) {
      if (isIndieWebError(error) && error.status === 404) return sendError(request, reply, 404, 'No such webmention.');
      throw error;
    }
    const chosen = Object.hasOwn(ACTIONS, action) ? ACTIONS[action] : undefined;
    if (chosen === undefined) return sendError(request, reply, 400, 'Unknown action.');
    await chosen.run(services, id);
    return redirectDone(reply, baseUrl, '/webmentions/', chosen.done);
  });
}
