/**
 * Webmention settings: the read token of the webmention.io-compatible API
 * (shown, with the URLs a static site uses, and rotated), and the account's
 * block and allow lists.
 * @module
 */
import type { FastifyInstance } from 'fastify';
import { isIndieWebError } from '../core/errors.js';
import { readParam } from '../core/params.js';
import type { WebmentionRule } from '../storage/repositories/webmention-rules.js';
import type { ModerationService } from '../webmention/moderation-service.js';
import type { Webhooks } from '../webmention/webhooks.js';
import type { WebhookDelivery } from '../storage/repositories/webhook-deliveries.js';
import { postForm } from '../web/ui/csrf-form.js';
import { errorAlert } from '../web/ui/messages.js';
import type { ReadTokens } from '../webmention/api/read-tokens.js';
import { html, type SafeHtml } from '../web/html.js';
import { buttonForm } from '../web/ui/csrf-form.js';
import { timestamp } from '../web/ui/format.js';
import { ADMIN, redirectDone, sendAdminPage } from './layout.js';
import { sessionOf } from './session.js';

export interface WebmentionSettingsPageDeps {
  readonly readTokens: ReadTokens;
  readonly moderation: ModerationService;
  readonly webhooks: Webhooks;
  readonly baseUrl: string;
}

export const SETTINGS_PATH = '/webmention-settings/';

async function tokenSection(deps: WebmentionSettingsPageDeps, userId: string, csrf: string): Promise<SafeHtml> {
  const current = await deps.readTokens.current(userId);
  const api = `${deps.baseUrl}/indieweb/webmention/api`;
  const rotate = (label: string) => buttonForm({ action: `${ADMIN}${SETTINGS_PATH}rotate-token`, csrf, label });
  if (current.state !== 'ok') {
    const why =
      current.state === 'stale'
        ? html`<p>Your token was made under another server secret and cannot be shown; a new one replaces it.</p>`
        : html`<p>You have no API token yet.</p>`;
    return html`<section id="api-token" class="card"><h2>API token</h2>${why}${rotate('Make a token')}</section>`;
  }
  return html`<section id="api-token" class="card"><h2>API token</h2>
<p>Static-site plug-ins made for webmention.io read your mentions with this token; keep it out of public pages.</p>
<p><code class="token">${current.token}</code></p>
<p>Your mentions: <code>${api}/mentions.jf2?token=${current.token}</code></p>
<p>Without a token, anyone may read the approved mentions of one page: <code>${api}/mentions.jf2?target=PAGE_URL</code></p>
${rotate('Make a new token (the old one stops working)')}</section>`;
}

function ruleRow(rule: WebmentionRule, csrf: string): SafeHtml {
  const matches = rule.kind === 'domain' ? 'domain' : 'URL prefix';
  const remove = buttonForm({ action: `${ADMIN}${SETTINGS_PATH}remove-rule`, csrf, hidden: { id: rule.id }, label: 'Remove' });
  return html`<tr>
<td data-label="Rule">${rule.action}</td><td data-label="Matches">${matches}</td><td data-label="Value"><code>${rule.value}</code></td>
<td>${remove}</td></tr>`;
}

async function rulesSection(deps: WebmentionSettingsPageDeps, userId: string, csrf: string): Promise<SafeHtml> {
  const rules = await deps.moderation.listRules(userId);
  const rows = rules.map((rule) => ruleRow(rule, csrf));
  const table =
    rules.length === 0
      ? html`<p>No rules.</p>`
      : html`<table><thead><tr><th>Rule</th><th>Matches</th><th>Value</th><th></th></tr></thead><tbody>${rows}</tbody></table>`;
  const form = postForm({
    action: `${ADMIN}${SETTINGS_PATH}add-rule`,
    csrf,
    content: html`<label for="rule-value">Domain or URL prefix</label>
<input id="rule-value" name="value" required placeholder="spam.example or https://example.com/user/">
<label for="rule-action">Rule</label>
<select id="rule-action" name="action"><option value="block">Block (recorded as spam, never fetched)</option>
<option value="allow">Allow (public without approval)</option></select>
<button type="submit">Add rule</button>`,
  });
  return html`<section id="rules" class="card"><h2>Block and allow lists</h2>
<p>A domain covers its subdomains; a URL prefix covers the source URLs that start with it. A block wins over an allow.</p>
${table}${form}</section>`;
}

function deliveryRow(delivery: WebhookDelivery, csrf: string): SafeHtml {
  const httpStatus = delivery.httpStatus === null ? '—' : String(delivery.httpStatus);
  return html`<tr><td data-label="Created">${timestamp(delivery.createdAt)}</td><td data-label="Event">${delivery.event}</td>
<td data-label="Status">${delivery.status}</td><td data-label="Attempts">${String(delivery.attempts)}</td>
<td data-label="HTTP">${httpStatus}</td><td data-label="Last error">${delivery.lastError ?? '—'}</td>
<td>${buttonForm({ action: `${ADMIN}${SETTINGS_PATH}send-again`, csrf, hidden: { id: delivery.id }, label: 'Send again' })}</td></tr>`;
}

async function webhookSection(deps: WebmentionSettingsPageDeps, userId: string, csrf: string): Promise<SafeHtml> {
  const settings = await deps.webhooks.settingsOf(userId);
  const deliveries = await deps.webhooks.list(userId);
  const compat = settings?.webmentionIo === true ? html` checked` : '';
  const form = postForm({
    action: `${ADMIN}${SETTINGS_PATH}webhook`,
    csrf,
    content: html`<label for="webhook-url">Webhook URL (empty to remove)</label>
<span class="hint" id="webhook-url-hint">An <code>https://</code> URL (<code>http://</code> only for this machine:
localhost, 127.0.0.1, ::1).</span>
<input id="webhook-url" name="url" type="url" value="${settings?.url ?? ''}" aria-describedby="webhook-url-hint">
<label for="webhook-compat">
<input type="checkbox" id="webhook-compat" name="webmention_io" value="1" aria-describedby="webhook-compat-hint"${compat}>
webmention.io-compatible: put the secret in each body too</label>
<span class="hint" id="webhook-compat-hint">Only for a receiver written for webmention.io, which compares the body's <code>secret</code>:
anyone who sees a body then holds the secret. Leave it off for receivers that check the signature.</span>
<button type="submit">Save webhook</button>`,
  });
  const inBody = settings?.webmentionIo === true ? html` The body carries the secret too (webmention.io-compatible).` : '';
  const newSecret = buttonForm({ action: `${ADMIN}${SETTINGS_PATH}webhook-secret`, csrf, label: 'Make a new secret' });
  const sendTest = buttonForm({ action: `${ADMIN}${SETTINGS_PATH}webhook-test`, csrf, label: 'Send a test' });
  const secret =
    settings === null
      ? ''
      : html`<p>Each delivery is signed the <a href="https://www.standardwebhooks.com/">Standard Webhooks</a> way:
headers <code>webhook-id</code>, <code>webhook-timestamp</code> and <code>webhook-signature</code>
(HMAC-SHA256 over <code>id.timestamp.body</code>);
verify it with this secret and any Standard Webhooks library, and refuse old timestamps.${inBody}</p>
<p>Secret: <code class="webhook-secret">${settings.secret}</code></p>
${newSecret}${sendTest}`;
  const log =
    deliveries.length === 0
      ? html`<p>No deliveries yet.</p>`
      : html`<table class="deliveries">
<thead><tr><th>Created</th><th>Event</th><th>Status</th><th>Attempts</th><th>HTTP</th><th>Last error</th><th></th></tr></thead>
<tbody>${deliveries.map((delivery) => deliveryRow(delivery, csrf))}</tbody></table>`;
  return html`<section id="webhook" class="card"><h2>Webhook</h2>
<p>A POST for each of your public mentions when it is verified, approved, updated or deleted.</p>
${form}${secret}<h3>Deliveries</h3>${log}</section>`;
}

export function webmentionSettingsPage(app: FastifyInstance, deps: WebmentionSettingsPageDeps): void {
  const render = async (request: Parameters<typeof sessionOf>[0], problem?: string) => {
    const { user, csrf } = sessionOf(request);
    const sections = [
      await tokenSection(deps, user.id, csrf),
      await rulesSection(deps, user.id, csrf),
      await webhookSection(deps, user.id, csrf),
    ];
    return html`${problem === undefined ? '' : errorAlert(problem)}<div class="stack">${sections}</div>`;
  };

  app.get(SETTINGS_PATH, async (request, reply) =>
    sendAdminPage(request, reply, { title: 'Webmention settings', content: await render(request) }),
  );

  app.post(`${SETTINGS_PATH}add-rule`, async (request, reply) => {
    const action = readParam(request.body, 'action');
    const value = readParam(request.body, 'value') ?? '';
    try {
      if (action !== 'block' && action !== 'allow') throw new Error('unknown rule');
      await deps.moderation.addRule(sessionOf(request).user.id, action, value);
    } catch (error) {
      const problem =
        isIndieWebError(error) && error.description !== undefined
          ? error.description
          : 'Choose block or allow, and give a domain or an http(s) URL.';
      return sendAdminPage(request, reply, { title: 'Webmention settings', status: 400, content: await render(request, problem) });
    }
    return redirectDone(reply, deps.baseUrl, SETTINGS_PATH, 'rule-added');
  });

  const webhookAction = (path: string, work: (userId: string, body: unknown) => Promise<void>, done: 'webhook' | 'sent') =>
    app.post(`${SETTINGS_PATH}${path}`, async (request, reply) => {
      try {
        await work(sessionOf(request).user.id, request.body);
      } catch (error) {
        if (!isIndieWebError(error)) throw error;
        const status = error.status === 404 ? 404 : 400;
        return sendAdminPage(request, reply, {
          title: 'Webmention settings',
          status,
          content: await render(request, error.description ?? 'Not found.'),
        });
      }
      return redirectDone(reply, deps.baseUrl, SETTINGS_PATH, done);
    });
  webhookAction(
    'webhook',
    (userId, body) => {
      const url = (readParam(body, 'url') ?? '').trim();
      return deps.webhooks.setUrl(userId, url === '' ? null : url, { webmentionIo: readParam(body, 'webmention_io') === '1' });
    },
    'webhook',
  );
  webhookAction('webhook-secret', (userId) => deps.webhooks.rotateSecret(userId), 'webhook');
  webhookAction('webhook-test', (userId) => deps.webhooks.sendTest(userId), 'sent');
  webhookAction('send-again', (userId, body) => deps.webhooks.sendAgain(userId, readParam(body, 'id') ?? ''), 'sent');

  app.post(`${SETTINGS_PATH}remove-rule`, async (request, reply) => {
    try {
      await deps.moderation.removeRule(readParam(request.body, 'id') ?? '', sessionOf(request).user.id);
    } catch (error) {
      if (!isIndieWebError(error)) throw error;
      return sendAdminPage(request, reply, { title: 'Webmention settings', status: 404, content: await render(request, 'No such rule.') });
    }
    return redirectDone(reply, deps.baseUrl, SETTINGS_PATH, 'rule-removed');
  });

  app.post(`${SETTINGS_PATH}rotate-token`, async (request, reply) => {
    await deps.readTokens.rotate(sessionOf(request).user.id);
    return redirectDone(reply, deps.baseUrl, SETTINGS_PATH, 'token');
  });
}
