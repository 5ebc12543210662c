/**
 * Webmention settings: the read token of the webmention.io-compatible API
 * (shown, with the URLs a static site uses, and rotated).
 * @module
 */
import type { FastifyInstance } from 'fastify';
import type { ReadTokens } from '../webmention/api/read-tokens.js';
import { html, type SafeHtml } from '../web/html.js';
import { buttonForm } from '../web/ui/csrf-form.js';
import { ADMIN, redirectDone, sendAdminPage } from './layout.js';
import { sessionOf } from './session.js';

export interface WebmentionSettingsPageDeps {
  readonly readTokens: ReadTokens;
  readonly baseUrl: string;
}

export const SETTINGS_PATH = '/webmention-settings/';

async function tokenSection(deps: WebmentionSettingsPageDeps, userId: string, csrf: string): Promise<SafeHtml> {
  const current = await deps.readTokens.current(userId);
  const api = `${deps.baseUrl}/indieweb/webmention/api`;
  const rotate = (label: string) => buttonForm({ action: `${ADMIN}${SETTINGS_PATH}rotate-token`, csrf, label });
  if (current.state !== 'ok') {
    const why = current.state === 'stale' ? html`<p>Your token was made under another server secret and cannot be shown; a new one replaces it.</p>` : html`<p>You have no API token yet.</p>`;
    return html`<section id="api-token"><h2>API token</h2>${why}${rotate('Make a token')}</section>`;
  }
  return html`<section id="api-token"><h2>API token</h2>
<p>Static-site plug-ins made for webmention.io read your mentions with this token; keep it out of public pages.</p>
<p><code class="token">${current.token}</code></p>
<p>Your mentions: <code>${api}/mentions.jf2?token=${current.token}</code></p>
<p>Without a token, anyone may read the approved mentions of one page: <code>${api}/mentions.jf2?target=PAGE_URL</code></p>
${rotate('Make a new token (the old one stops working)')}</section>`;
}

export function webmentionSettingsPage(app: FastifyInstance, deps: WebmentionSettingsPageDeps): void {
  app.get(SETTINGS_PATH, async (request, reply) => {
    const { user, csrf } = sessionOf(request);
    return sendAdminPage(request, reply, { title: 'Webmention settings', content: await tokenSection(deps, user.id, csrf) });
  });

  app.post(`${SETTINGS_PATH}rotate-token`, async (request, reply) => {
    await deps.readTokens.rotate(sessionOf(request).user.id);
    return redirectDone(reply, deps.baseUrl, SETTINGS_PATH, 'token');
  });
}
