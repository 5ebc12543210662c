/**
 * The Syndication page: the signed-in user's targets on Mastodon and Bluesky
 * (added with a guided form, after the service accepted the credentials;
 * removed), and where each post went — queued, sent (with the copy's link),
 * failed (and why) — with a retry.
 * @module
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { readParam } from '../core/params.js';
import type { SyndicationRecord } from '../storage/repositories/syndication.js';
import { SyndicationError } from '../syndication/client.js';
import { TargetInputError, type SyndicationService, type TargetView } from '../syndication/service.js';
import { html, type SafeHtml } from '../web/html.js';
import { buttonForm, postForm } from '../web/ui/csrf-form.js';
import { timestamp } from '../web/ui/format.js';
import { errorAlert } from '../web/ui/messages.js';
import { ADMIN, redirectDone, sendAdminPage } from './layout.js';
import { sessionOf } from './session.js';

export const SYNDICATION_PATH = '/syndication/';
const PAGE_SIZE = 50;
const TITLE = 'Syndication';

export interface SyndicationPageDeps {
  readonly syndication: SyndicationService;
  readonly baseUrl: string;
}

interface Typed {
  readonly service: string;
  readonly url: string;
  readonly handle: string;
}

type PollView = { readonly polledAt: string | null; readonly found: string | null; readonly error: string | null } | null;

/** Backfeed (issue 34): when the target was last polled and what it found, or why it failed. */
function pollCell(poll: PollView): SafeHtml {
  if (poll === null || poll.polledAt === null) return html`<td data-label="Last poll">not yet</td>`;
  const what = poll.error === null ? (poll.found ?? '') : `failed: ${poll.error}`;
  return html`<td data-label="Last poll">${timestamp(poll.polledAt)}: ${what}</td>`;
}

function targetRow(target: TargetView, csrf: string, poll: PollView): SafeHtml {
  const service = target.service === 'mastodon' ? 'Mastodon' : 'Bluesky';
  return html`<tr><td data-label="Service">${service}</td><td data-label="Account">${target.name}</td>
<td data-label="Server"><code>${target.url}</code></td><td data-label="uid"><code>${target.uid}</code></td>${pollCell(poll)}
<td>${buttonForm({ action: `${ADMIN}${SYNDICATION_PATH}remove`, csrf, hidden: { uid: target.uid }, label: 'Remove' })}</td></tr>`;
}

function addForm(csrf: string, typed: Typed): SafeHtml {
  const selected = (service: string) => (typed.service === service ? html` selected` : '');
  return postForm({
    action: `${ADMIN}${SYNDICATION_PATH}add`,
    csrf,
    content: html`<label for="target-service">Service</label><select id="target-service" name="service">
<option value="mastodon"${selected('mastodon')}>Mastodon</option><option value="bluesky"${selected('bluesky')}>Bluesky</option>
</select>
<label for="target-url">Server</label>
<span class="hint" id="target-url-hint">Mastodon: your instance, e.g. <code>https://mastodon.social</code>.
Bluesky: your PDS, <code>https://bsky.social</code> unless you host your own.</span>
<input id="target-url" name="url" required value="${typed.url}" aria-describedby="target-url-hint">
<label for="target-handle">Bluesky handle</label>
<span class="hint" id="target-handle-hint">Bluesky only, e.g. <code>alice.bsky.social</code>.</span>
<input id="target-handle" name="handle" value="${typed.handle}" aria-describedby="target-handle-hint">
<label for="target-secret">Access token or app password</label>
<span class="hint" id="target-secret-hint">Mastodon: Preferences → Development → New application, with the scopes
<code>read:accounts read:search write:statuses write:media write:favourites</code>; paste “Your access token”.
Bluesky: Settings → Privacy and security → App passwords. It is checked with the service now, then kept encrypted.</span>
<input id="target-secret" name="secret" type="password" required autocomplete="off" aria-describedby="target-secret-hint">
<button type="submit">Add target</button>`,
  });
}

function stateCell(row: SyndicationRecord): SafeHtml {
  if (row.state === 'sent') return row.copyUrl === null ? html`sent` : html`sent: <a href="${row.copyUrl}">the copy</a>`;
  if (row.state === 'failed') return html`failed: ${row.error ?? 'no reason given'}`;
  return row.error === null ? html`queued` : html`queued: ${row.error}`;
}

function statusRow(row: SyndicationRecord, names: ReadonlyMap<string, string>, csrf: string): SafeHtml {
  const retry =
    row.state === 'sent' ? '' : buttonForm({ action: `${ADMIN}${SYNDICATION_PATH}retry`, csrf, hidden: { id: row.id }, label: 'Retry' });
  const target = names.get(row.targetId) ?? '(removed)';
  return html`<tr class="syndication-${row.state}"><td data-label="Post"><a href="${row.entryUrl}">${row.entryUrl}</a></td>
<td data-label="Target">${target}</td><td data-label="State">${stateCell(row)}</td><td data-label="Attempts">${String(row.attempts)}</td>
<td data-label="Updated">${timestamp(row.updatedAt)}</td><td>${retry}</td></tr>`;
}

export function syndicationPage(app: FastifyInstance, deps: SyndicationPageDeps): void {
  const { syndication } = deps;

  async function render(request: FastifyRequest, reply: FastifyReply, options: { status?: number; problem?: string; typed?: Typed } = {}) {
    const { user, csrf } = sessionOf(request);
    const offsetText = readParam(request.query, 'offset') ?? '0';
    const offset = /^\d{1,9}$/.test(offsetText) ? Number(offsetText) : 0;
    const targets = await syndication.listTargets(user.id);
    const polls = await Promise.all(
      targets.map(async (target) => ({ target, poll: (await syndication.backfeed?.pollState(target.uid)) ?? null })),
    );
    const rows = await syndication.listRows(user.id, { limit: PAGE_SIZE + 1, offset });
    const names = new Map(targets.map((target) => [target.uid, `${target.name} (${target.service})`]));
    const table =
      targets.length === 0
        ? html`<p>No targets yet: add your Mastodon or Bluesky account below, then tick it when you write.</p>`
        : html`<table class="targets"><thead><tr><th>Service</th><th>Account</th><th>Server</th><th>uid</th><th>Last poll</th><th></th></tr>
</thead><tbody>${polls.map(({ target, poll }) => targetRow(target, csrf, poll))}</tbody></table>`;
    const status =
      rows.length === 0
        ? html`<p>No post was syndicated yet.</p>`
        : html`<table class="syndication-status">
<thead><tr><th>Post</th><th>Target</th><th>State</th><th>Attempts</th><th>Updated</th><th></th></tr></thead>
<tbody>${rows.slice(0, PAGE_SIZE).map((row) => statusRow(row, names, csrf))}</tbody></table>`;
    const more =
      rows.length > PAGE_SIZE ? html`<p><a href="${ADMIN}${SYNDICATION_PATH}?offset=${String(offset + PAGE_SIZE)}">Older</a></p>` : '';
    const typed = options.typed ?? { service: 'mastodon', url: '', handle: '' };
    const content = html`${options.problem === undefined ? '' : errorAlert(options.problem)}<div class="stack">
<section id="targets" class="card"><h2>Targets</h2><p>A post you publish here goes to the targets you tick in the Write area
(or a Micropub client's <code>mp-syndicate-to</code>); its copy's link is added to the post.</p>${table}</section>
<section id="add-target" class="card"><h2>Add a target</h2>${addForm(csrf, typed)}</section>
<section id="status" class="card"><h2>Your posts on other sites</h2>${status}${more}</section></div>`;
    return sendAdminPage(request, reply, { title: TITLE, status: options.status ?? 200, content });
  }

  app.get(SYNDICATION_PATH, async (request, reply) => render(request, reply));

  app.post(`${SYNDICATION_PATH}add`, async (request, reply) => {
    const typed: Typed = {
      service: (readParam(request.body, 'service') ?? '').slice(0, 40),
      url: (readParam(request.body, 'url') ?? '').slice(0, 2000),
      handle: (readParam(request.body, 'handle') ?? '').slice(0, 300),
    };
    const secret = (readParam(request.body, 'secret') ?? '').slice(0, 4000);
    try {
      await syndication.addTarget({
        userId: sessionOf(request).user.id,
        service: typed.service,
        url: typed.url,
        handle: typed.service === 'bluesky' ? typed.handle : null,
        secret,
      });
    } catch (error) {
      if (!(error instanceof SyndicationError) && !(error instanceof TargetInputError)) throw error;
      return render(request, reply, { status: 400, problem: `The target was not added: ${error.message}`, typed });
    }
    return redirectDone(reply, deps.baseUrl, SYNDICATION_PATH, 'target-added');
  });

  app.post(`${SYNDICATION_PATH}remove`, async (request, reply) => {
    const uid = readParam(request.body, 'uid') ?? '';
    if (!(await syndication.removeTarget(sessionOf(request).user.id, uid)))
      return render(request, reply, { status: 404, problem: 'No such target.' });
    return redirectDone(reply, deps.baseUrl, SYNDICATION_PATH, 'target-removed');
  });

  app.post(`${SYNDICATION_PATH}retry`, async (request, reply) => {
    const id = readParam(request.body, 'id') ?? '';
    if (!(await syndication.retry(sessionOf(request).user.id, id)))
      return render(request, reply, { status: 404, problem: 'No such post and target.' });
    return redirectDone(reply, deps.baseUrl, SYNDICATION_PATH, 'syndication-retried');
  });
}
