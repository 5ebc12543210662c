/**
 * Connected apps: every grant (one authorization, its access and refresh
 * tokens together) grouped by app, alive while any of its tokens is, and
 * revoking one grant or all of an app's.
 * @module
 */
import type { FastifyInstance } from 'fastify';
import { readParam } from '../core/params.js';
import type { ClientGrants, Grant } from '../indieauth/grants.js';
import type { TokenService } from '../indieauth/token-service.js';
import { html, type SafeHtml } from '../web/html.js';
import { buttonForm } from '../web/ui/csrf-form.js';
import { ADMIN, redirectDone, sendAdminPage } from './layout.js';
import { sessionOf } from './session.js';

export interface AppsPageDeps {
  readonly tokens: TokenService;
  readonly baseUrl: string;
}

function grantRow(grant: Grant, csrf: string): SafeHtml {
  return html`<tr><td>${grant.scope === '' ? 'sign-in only' : grant.scope}</td><td>${grant.createdAt}</td><td>${grant.expiresAt ?? 'never'}</td><td>${grant.lastUsedAt ?? '—'}</td>
<td>${buttonForm({ action: `${ADMIN}/apps/revoke`, csrf, hidden: { grant_id: grant.grantId }, label: 'Revoke' })}</td></tr>`;
}

function clientSection(client: ClientGrants, csrf: string): SafeHtml {
  return html`<section class="client"><h2><code>${client.clientId}</code></h2>
<table><thead><tr><th>Scopes</th><th>Issued</th><th>Expires</th><th>Last used</th><th></th></tr></thead><tbody>${client.grants.map((grant) => grantRow(grant, csrf))}</tbody></table>
${buttonForm({ action: `${ADMIN}/apps/revoke-client`, csrf, hidden: { client_id: client.clientId }, label: 'Revoke all access of this app' })}</section>`;
}

export function appsPage(app: FastifyInstance, deps: AppsPageDeps): void {
  const { tokens, baseUrl } = deps;

  app.get('/apps/', async (request, reply) => {
    const { user, csrf } = sessionOf(request);
    const clients = await tokens.grantsByClient(user.id);
    const content = clients.length === 0 ? html`<p>No app has access to your site.</p>` : html`${clients.map((client) => clientSection(client, csrf))}`;
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
