import type { HostUser } from '../contracts/accounts.js';
import { scopeNames } from '../core/scope.js';
import { html, type SafeHtml } from '../web/html.js';
import { csrfField } from '../web/ui/csrf-form.js';
import { errorAlert } from '../web/ui/messages.js';
import { hostOf, type AuthorizationRequest } from './authorize.js';
import type { ClientInfo } from './client-info.js';

const SCOPE_DESCRIPTIONS: Readonly<Record<string, string>> = {
  create: 'create new posts',
  post: 'create new posts (older name of create)',
  update: 'edit posts, and read their source',
  delete: 'delete posts',
  undelete: 'restore deleted posts',
  media: 'upload files',
  draft: 'create drafts',
  profile: 'see your profile',
  email: 'see your e-mail address',
};

/** A scope that is not in {@link SCOPE_DESCRIPTIONS}. */
const UNDESCRIBED_SCOPE = "a permission indiestack does not describe (your site's own software decides what it allows)";

/** The request as hidden fields, so approval and denial carry it unchanged. */
function hiddenFields(request: AuthorizationRequest): SafeHtml {
  const fields: [string, string][] = [
    ['client_id', request.clientId],
    ['redirect_uri', request.redirectUri],
    ['state', request.state],
    ['me', request.me],
    ['scope', request.scope],
  ];
  if (request.codeChallenge !== null)
    fields.push(['code_challenge', request.codeChallenge], ['code_challenge_method', request.codeChallengeMethod ?? 'plain']);
  return html`${fields.map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}`;
}

/** The app's logo (https only, never a tracking pixel over http), or its first letter. */
function appMark(client: ClientInfo | null, shownName: string): SafeHtml {
  if (client?.logo?.startsWith('https:') === true)
    return html`<img class="client-logo" src="${client.logo}" alt="" width="64" height="64">`;
  return html`<span class="initial" aria-hidden="true">${(shownName.replace(/^www\./i, '')[0] ?? '?').toUpperCase()}</span>`;
}

export function consentBody(options: {
  request: AuthorizationRequest;
  user: HostUser;
  csrf: string;
  notice?: SafeHtml;
  client?: ClientInfo | null;
}): SafeHtml {
  const { request, user, csrf } = options;
  const client = options.client ?? null;
  const clientHost = hostOf(request.clientId);
  const redirectHost = hostOf(request.redirectUri);
  const scopes = scopeNames(request.scope);
  const name = client?.name ?? clientHost;
  const asker = client?.name === undefined || client.name === null ? 'An app' : html`An app at <strong>${clientHost}</strong>`;
  const intro = html`<h1>Sign in to ${name}</h1><p>${asker} asks to sign you in with your web address.</p>`;
  const sentTo = html`<span>Whatever you decide, you are sent to</span><span class="host">${redirectHost}</span>`;
  const scopeItems = scopes.map((scope) => html`<li><code>${scope}</code> — ${SCOPE_DESCRIPTIONS[scope] ?? UNDESCRIBED_SCOPE}</li>`);
  return html`<main id="main" class="consent">
<div class="app-card">${appMark(client, name)}<div>${intro}</div></div>
${options.notice ?? ''}
<p>Signed in here as <strong>${user.name}</strong>, as <code>${request.me}</code>.</p>
<div class="redirect">${sentTo}<code>${request.redirectUri}</code>${
    redirectHost !== clientHost
      ? html`<p class="warning" role="alert">This address is on ${redirectHost}, not on the app's own site ${clientHost}.${
          client !== null && client.redirectUris.includes(request.redirectUri) ? ' The app publishes it as its own.' : ''
        }</p>`
      : ''
  }</div>
<h2>${scopes.length === 0 ? 'What the app gets' : `What ${name} may do`}</h2>
${
  scopes.length === 0
    ? html`<p>Sign-in only: the app learns your profile URL and gets no access to your site.</p>`
    : html`<ul class="scopes">${scopeItems}</ul>`
}
<details><summary>Details of the request</summary>
<dl>
<dt>App (client_id)</dt><dd><code>${request.clientId}</code></dd>
<dt>Profile URL (me)</dt><dd><code>${request.me}</code></dd>
<dt>Permissions asked for (scope)</dt><dd>${request.scope === '' ? 'none' : html`<code>${request.scope}</code>`}</dd>
</dl>
</details>
<form method="post" action="/indieweb/auth/consent/">
${csrfField(csrf)}
${hiddenFields(request)}
<div class="decision">
<button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny">Deny</button>
</div>
</form>
</main>`;
}

/** Shown when the app asks to sign in as a profile URL that is not the signed-in account's. */
export function notYourProfileBody(options: { request: AuthorizationRequest; user: HostUser; csrf: string }): SafeHtml {
  const { request, user, csrf } = options;
  return html`<main id="main" class="consent">
<h1>Not your profile</h1>
${errorAlert(html`The app <code>${request.clientId}</code> asked to sign you in as <code>${request.me}</code>,
which is not a profile URL of the account <strong>${user.name}</strong>.`)}
<p>This account's profile URLs:</p>
<ul>${user.me.map((url) => html`<li><code>${url}</code></li>`)}</ul>
<p>Nothing was issued. Sign in with the account that owns <code>${request.me}</code>, or go back to the app.</p>
<form method="post" action="/indieweb/auth/consent/">
${csrfField(csrf)}
${hiddenFields(request)}
<button type="submit" name="decision" value="deny">Back to the app</button>
</form>
</main>`;
}
