/**
 * Connected apps: every grant (one authorization, its access and refresh
 * tokens together) grouped by app, alive while any of its tokens is, and
 * revoking one grant or all of an app's.
 * @module
 */
import type { FastifyInstance } from 'fastify';
import { readParam } from '../core/params.js';
import type { ClientInfo } from '../indieauth/client-info.js';
import type { ClientGrants, Grant } from '../indieauth/grants.js';
import type { TokenService } from '../indieauth/token-service.js';
import { html, type SafeHtml } from '../web/html.js';
import { buttonForm } from '../web/ui/csrf-form.js';
import { timestamp } from '../web/ui/format.js';
import { ADMIN, redirectDone, sendAdminPage } from './layout.js';
import { sessionOf } from './session.js';

export interface AppsPageDeps {
  readonly tokens: TokenService;
  /** What each app says about itself (name, logo) at its client_id URL; cached, never throws. */
  readonly clientInfo: { get(clientId: string): Promise<ClientInfo | null> };
  readonly baseUrl: string;
}

/** How long the page waits for apps' own pages; an app not described by then is shown by its client_id. */
const DISCOVERY_WAIT_MS = 1_500;

/** Each client's own description, as far as it arrives within {@link DISCOVERY_WAIT_MS}. */
async function describeClients(clientInfo: AppsPageDeps['clientInfo'], clientIds: readonly string[]): Promise<Map<string, ClientInfo>> {
  const found = new Map<string, ClientInfo>();
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, DISCOVERY_WAIT_MS);
    timer.unref();
  });
  const lookups = clientIds.map(async (clientId) => {
    const info = await clientInfo.get(clientId).catch(() => null);
    if (info !== null) found.set(clientId, info);
  });
  await Promise.race([Promise.all(lookups), waited]);
  clearTimeout(timer);
  return new Map(found);
}

/** A cell that phones show with its column's name before the value (the stylesheet's `td[data-label]::before`). */
function cell(label: string, value: string | SafeHtml): SafeHtml {
  return html`<td data-label="${label}">${value}</td>`;
}

function grantRow(grant: Grant, csrf: string): SafeHtml {
  const scopes = cell('Scopes', grant.scope === '' ? 'sign-in only' : grant.scope);
  const issued = cell('Issued', timestamp(grant.createdAt));
  const expires = cell('Expires', grant.expiresAt === null ? 'never' : timestamp(grant.expiresAt));
  const lastUsed = cell('Last used', grant.lastUsedAt === null ? '—' : timestamp(grant.lastUsedAt));
  const revoke = buttonForm({ action: `${ADMIN}/apps/revoke`, csrf, hidden: { grant_id: grant.grantId }, label: 'Revoke' });
  return html`<tr>${scopes}${issued}${expires}${lastUsed}
<td>${revoke}</td></tr>`;
}

/** The app by its own name and logo when its page gave them, by its client_id otherwise. */
function clientHeading(client: ClientGrants, info: ClientInfo | undefined): SafeHtml {
  const name = info?.name ?? null;
  if (name === null || name === '') return html`<h2><code>${client.clientId}</code></h2>`;
  const logo = info?.logo?.startsWith('https:') === true ? html`<img src="${info.logo}" alt="" width="32" height="32" loading="lazy">` : '';
  return html`<h2>${logo}${name}</h2><p class="client-id"><code>${client.clientId}</code></p>`;
}

function clientSection(client: ClientGrants, info: ClientInfo | undefined, csrf: string): SafeHtml {
  const rows = client.grants.map((grant) => grantRow(grant, csrf));
  const revokeAll = buttonForm({
    action: `${ADMIN}/apps/revoke-client`,
    csrf,
    hidden: { client_id: client.clientId },
    label: 'Revoke all access of this app',
  });
  return html`<section class="client">${clientHeading(client, info)}
<table><thead><tr><th>Scopes</th><th>Issued</th><th>Expires</th><th>Last used</th><th></th></tr></thead><tbody>${rows}</tbody></table>
${revokeAll}</section>`;
}

export function appsPage(app: FastifyInstance, deps: AppsPageDeps): void {
  const { tokens, clientInfo, baseUrl } = deps;

  app.get('/apps/', async (request, reply) => {
    const { user, csrf } = sessionOf(request);
    const clients = await tokens.grantsByClient(user.id);
    const described = await describeClients(
      clientInfo,
      clients.map((client) => client.clientId),
    );
    const sections = clients.map((client) => clientSection(client, described.get(client.clientId), csrf));
    const content =
      clients.length === 0
        ? html`<p>No app has access to your site.</p>`
        : html`<p class="lead">The apps you signed in to with your web address, and what each may do.
Revoking ends its access at once; it has to ask you again.</p>${sections}`;
    return sendAdminPage(request, reply, { title: 'Connected apps', content });
  });

  // only the signed-in user's own grants: an id of another user's grant revokes nothing
  app.post('/apps/revoke', async (request, reply) => {
    const { user } = sessionOf(request);
    const revoked = await tokens.revokeGrants(user.id, { grantId: readParam(request.body, 'grant_id') ?? '' });
    request.log.info({ userId: user.id, revoked }, 'grant revoked from admin');
    return redirectDone(reply, baseUrl, '/apps/', 'revoked');
  });

  app.post('/apps/revoke-client', async (request, reply) => {
    const { user } = sessionOf(request);
    const revoked = await tokens.revokeGrants(user.id, { clientId: readParam(request.body, 'client_id') ?? '' });
    request.log.info({ userId: user.id, revoked }, 'app access revoked from admin');
    return redirectDone(reply, baseUrl, '/apps/', 'revoked');
  });
}
