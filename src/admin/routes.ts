/**
 * The admin pages: server-rendered, behind sign-in, every form CSRF-protected,
 * no JavaScript, readable on a phone. Profile, connected apps, webmentions,
 * media and account.
 * @module
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { passwordAttemptKeys, throttledAnswer } from '../accounts/sign-in-throttle.js';
import type { UserService } from '../accounts/user-service.js';
import { CSRF_FIELD } from '../web/csrf-token.js';
import type { Accounts, HostUser } from '../contracts/accounts.js';
import { isIndieWebError } from '../core/errors.js';
import { readParam } from '../core/params.js';
import type { FailureThrottle } from '../core/throttle.js';
import type { TokenService } from '../indieauth/token-service.js';
import type { UploadPipeline } from '../media/upload.js';
import type { Csrf } from '../web/csrf.js';
import { html, SafeHtml, sendPage } from '../web/html.js';
import { HCardValidationError, type HCardProblem } from '../profile/h-card.js';
import type { ProfileService } from '../profile/service.js';
import type { MediaRepository } from '../storage/repositories/media.js';
import type { HCard } from '../storage/repositories/profiles.js';
import type { WebmentionStatus } from '../storage/repositories/webmentions.js';
import { WEBMENTION_STATUSES } from '../storage/repositories/webmentions.js';
import { OWNED_PAGE_SIZE, type WebmentionService } from '../webmention/service.js';

const ADMIN = '/indieweb/admin';

const NOTICES: Readonly<Record<string, string>> = {
  saved: 'Profile saved.',
  revoked: 'Access revoked.',
  reprocessed: 'Webmention checked again.',
  spam: 'Webmention marked as spam.',
  deleted: 'Deleted.',
  password: 'Password changed. Other sessions were signed out.',
};

/** The fields of the profile form and the h-card property each edits (one value per line for lists). */
const FORM_FIELDS = [
  { name: 'name', label: 'Name', list: false, multiline: false },
  { name: 'url', label: 'Web sites (one per line)', list: true, multiline: true },
  { name: 'photo', label: 'Photo URL', list: false, multiline: false },
  { name: 'email', label: 'E-mail addresses (one per line)', list: true, multiline: true },
  { name: 'note', label: 'About you', list: false, multiline: true },
] as const;

/** Fields are read whole (the body limit bounds them) so that an oversized value gets a form error, not a bare 400. */
const FIELD_READ_LIMIT = 10 * 1024 * 1024;

interface AdminContext {
  readonly request: FastifyRequest;
  readonly reply: FastifyReply;
  readonly user: HostUser;
  readonly csrf: string;
}

export interface AdminRoutesDeps {
  readonly accounts: Accounts;
  /** The built-in accounts (the account page); null when the host brings its own. */
  readonly users: UserService | null;
  /** The account page's password change is guessed like a sign-in: the same throttle. */
  readonly signInThrottle: FailureThrottle;
  readonly csrf: Csrf;
  readonly baseUrl: string;
  readonly tokens: TokenService;
  readonly profiles: ProfileService;
  readonly webmentions: WebmentionService;
  readonly media: { readonly repository: MediaRepository; readonly pipeline: UploadPipeline };
}

export async function adminRoutes(app: FastifyInstance, deps: AdminRoutesDeps): Promise<void> {
  const { accounts, csrf, baseUrl, tokens, profiles, webmentions, media } = deps;

  const csrfInput = (admin: AdminContext) => html`<input type="hidden" name="${CSRF_FIELD}" value="${admin.csrf}">`;

  function page(admin: AdminContext, title: string, body: SafeHtml, status = 200) {
    const done = readParam(admin.request.query, 'done');
    const notice = done !== undefined && NOTICES[done] !== undefined ? html`<p class="notice" role="status">${NOTICES[done]}</p>` : '';
    const link = (path: string, label: string) => html`<a href="${ADMIN}${path}">${label}</a>`;
    return sendPage(admin.reply, status, {
      title,
      body: html`<nav><strong>indiestack</strong>${link('/profile/', 'Profile')}${link('/apps/', 'Apps')}${link('/webmentions/', 'Webmentions')}${link('/media/', 'Media')}${
        deps.users === null ? '' : link('/account/', 'Account')
      }<form method="post" action="/indieweb/logout/">${csrfInput(admin)}<button type="submit">Sign out</button></form></nav>
<main><h1>${title}</h1>${notice}${body}</main>`,
    });
  }

  /** The signed-in user, or null after answering with a redirect to sign in. */
  async function signedIn(request: FastifyRequest, reply: FastifyReply): Promise<AdminContext | null> {
    const user = await accounts.currentUser(request);
    if (user === null || !user.isActive) {
      const path = request.method === 'GET' ? request.url : `${ADMIN}/`;
      await reply.redirect(accounts.loginUrl(path), 303);
      return null;
    }
    return { request, reply, user, csrf: csrf.tokenFor(request, reply, user.id) };
  }

  /** For POSTs: signed in and a valid CSRF token, or null after answering. */
  async function authorizedPost(request: FastifyRequest, reply: FastifyReply): Promise<AdminContext | null> {
    const admin = await signedIn(request, reply);
    if (admin === null) return null;
    if (!csrf.isValid(request, admin.user.id, readParam(request.body, CSRF_FIELD))) {
      request.log.info('admin form rejected: csrf token missing or expired');
      await page(admin, 'Form expired', html`<p class="error" role="alert">The form expired or did not come from this site. Go back, reload the page and try again.</p>`, 403);
      return null;
    }
    return admin;
  }

  const back = (reply: FastifyReply, path: string, done: string) => reply.redirect(`${baseUrl}${ADMIN}${path}?done=${done}`, 303);

  app.get('/admin/', async (_request, reply) => reply.redirect(`${baseUrl}${ADMIN}/profile/`, 303));

  // --- profile -------------------------------------------------------------

  function profileForm(admin: AdminContext, card: HCard, options: { problems?: readonly HCardProblem[]; json?: string; status?: number; fromJson?: boolean } = {}) {
    const problems = options.problems ?? [];
    const fieldProblems = options.fromJson === true ? [] : problems;
    const problemFor = (field: string) => fieldProblems.filter((problem) => problem.field === field).map((problem) => html`<span class="error" role="alert">${problem.message}</span>`);
    const others = options.fromJson === true ? problems : problems.filter((problem) => !FORM_FIELDS.some((field) => field.name === problem.field));
    const fields = FORM_FIELDS.map((field) => {
      // single-value fields edit the first value; further values (set through JSON) are kept as they are
      const values = field.list ? (card[field.name] ?? []) : (card[field.name] ?? []).slice(0, 1);
      const value = values.map((v) => (field.name === 'email' ? v.replace(/^mailto:/i, '') : v)).join('\n');
      const id = `field-${field.name}`;
      return html`<label for="${id}">${field.label}</label>${
        field.multiline ? html`<textarea id="${id}" name="${field.name}" rows="3">${value}</textarea>` : html`<input type="text" id="${id}" name="${field.name}" value="${value}">`
      }${problemFor(field.name)}`;
    });
    const json = options.json ?? JSON.stringify(card, null, 2);
    return page(
      admin,
      'Profile',
      html`${others.length === 0 || options.fromJson === true ? '' : html`<div class="error" role="alert"><p>Nothing was saved:</p><ul>${others.map((p) => html`<li><code>${p.field}</code>: ${p.message}</li>`)}</ul></div>`}
<form method="post" action="${ADMIN}/profile/">${csrfInput(admin)}${fields}<button type="submit">Save profile</button></form>
<h2>Raw h-card (JSON)</h2>
<p>Every microformats property, as lists of values. Saved as a whole.</p>
${options.fromJson === true ? html`<div class="error" role="alert"><p>Nothing was saved:</p><ul>${others.map((p) => html`<li><code>${p.field}</code>: ${p.message}</li>`)}</ul></div>` : ''}
<form method="post" action="${ADMIN}/profile/json">${csrfInput(admin)}<label for="field-json">h-card JSON</label><textarea id="field-json" name="h_card" rows="12">${json}</textarea><button type="submit">Save JSON</button></form>
<p>Public page: <a href="/indieweb/profile/${admin.user.name}/">/indieweb/profile/${admin.user.name}/</a></p>`,
      options.status ?? (problems.length > 0 ? 400 : 200),
    );
  }

  app.get('/admin/profile/', async (request, reply) => {
    const admin = await signedIn(request, reply);
    if (admin === null) return reply;
    return profileForm(admin, (await profiles.get(admin.user)).hCard);
  });

  app.post('/admin/profile/', async (request, reply) => {
    const admin = await authorizedPost(request, reply);
    if (admin === null) return reply;
    const current = (await profiles.get(admin.user)).hCard;
    const card: Record<string, string[]> = { ...current };
    for (const field of FORM_FIELDS) {
      const raw = readParam(request.body, field.name, FIELD_READ_LIMIT) ?? '';
      if (field.list) {
        const kept = raw.split(/\r?\n/).map((value) => value.trim()).filter((value) => value !== '');
        if (kept.length === 0) delete card[field.name];
        else card[field.name] = kept;
        continue;
      }
      const rest = (current[field.name] ?? []).slice(1);
      const value = raw.trim();
      const next = value === '' ? rest : [value, ...rest];
      if (next.length === 0) delete card[field.name];
      else card[field.name] = next;
    }
    try {
      await profiles.update(admin.user, card);
    } catch (error) {
      if (error instanceof HCardValidationError) return profileForm(admin, card, { problems: error.problems });
      throw error;
    }
    return back(reply, '/profile/', 'saved');
  });

  app.post('/admin/profile/json', async (request, reply) => {
    const admin = await authorizedPost(request, reply);
    if (admin === null) return reply;
    const raw = readParam(request.body, 'h_card', FIELD_READ_LIMIT) ?? '';
    const current = (await profiles.get(admin.user)).hCard;
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      return profileForm(admin, current, { problems: [{ field: 'h_card', message: 'is not valid JSON' }], json: raw, fromJson: true });
    }
    try {
      await profiles.update(admin.user, parsed);
    } catch (error) {
      if (error instanceof HCardValidationError) return profileForm(admin, current, { problems: error.problems, json: raw, fromJson: true });
      throw error;
    }
    return back(reply, '/profile/', 'saved');
  });

  // --- connected apps ------------------------------------------------------

  // every row is a grant (one authorization: its access tokens and refresh token together), alive while any of them is
  app.get('/admin/apps/', async (request, reply) => {
    const admin = await signedIn(request, reply);
    if (admin === null) return reply;
    const grants = await tokens.listGrants({ userId: admin.user.id });
    const clients = new Map<string, typeof grants>();
    for (const grant of grants) clients.set(grant.clientId, [...(clients.get(grant.clientId) ?? []), grant]);
    const body =
      clients.size === 0
        ? html`<p>No app has access to your site.</p>`
        : html`${[...clients].map(
            ([clientId, list]) => html`<section class="client"><h2><code>${clientId}</code></h2>
<table><thead><tr><th>Scopes</th><th>Issued</th><th>Expires</th><th>Last used</th><th></th></tr></thead><tbody>${list.map(
              (grant) => html`<tr><td>${grant.scope === '' ? 'sign-in only' : grant.scope}</td><td>${grant.createdAt}</td><td>${grant.expiresAt ?? 'never'}</td><td>${grant.lastUsedAt ?? '—'}</td>
<td><form method="post" action="${ADMIN}/apps/revoke">${csrfInput(admin)}<input type="hidden" name="grant_id" value="${grant.grantId}"><button type="submit">Revoke</button></form></td></tr>`,
            )}</tbody></table>
<form method="post" action="${ADMIN}/apps/revoke-client">${csrfInput(admin)}<input type="hidden" name="client_id" value="${clientId}"><button type="submit">Revoke all access of this app</button></form></section>`,
          )}`;
    return page(admin, 'Connected apps', body);
  });

  app.post('/admin/apps/revoke', async (request, reply) => {
    const admin = await authorizedPost(request, reply);
    if (admin === null) return reply;
    // only the signed-in user's own grants: an id of another user's grant revokes nothing
    const revoked = await tokens.revokeGrants(admin.user.id, { grantId: readParam(request.body, 'grant_id') ?? '' });
    request.log.info({ userId: admin.user.id, revoked }, 'grant revoked from admin');
    return back(reply, '/apps/', 'revoked');
  });

  app.post('/admin/apps/revoke-client', async (request, reply) => {
    const admin = await authorizedPost(request, reply);
    if (admin === null) return reply;
    const revoked = await tokens.revokeGrants(admin.user.id, { clientId: readParam(request.body, 'client_id') ?? '' });
    request.log.info({ userId: admin.user.id, revoked }, 'app access revoked from admin');
    return back(reply, '/apps/', 'revoked');
  });

  // --- webmentions ---------------------------------------------------------

  // every page and action shows only the signed-in user's own mentions (see webmention/ownership.ts);
  // another user's mention answers exactly like an unknown id
  const noSuchMention = (admin: AdminContext) => page(admin, 'Webmentions', html`<p class="error" role="alert">No such webmention.</p>`, 404);

  app.get('/admin/webmentions/', async (request, reply) => {
    const admin = await signedIn(request, reply);
    if (admin === null) return reply;
    const statusParam = readParam(request.query, 'status') ?? '';
    const status = (WEBMENTION_STATUSES as readonly string[]).includes(statusParam) ? (statusParam as WebmentionStatus) : undefined;
    const target = readParam(request.query, 'target') ?? '';
    const offsetParam = readParam(request.query, 'offset') ?? '';
    // a malformed or huge offset shows the first page rather than an error
    const offset = /^\d{1,9}$/.test(offsetParam) ? Number(offsetParam) : 0;
    const { items, total } = await webmentions.listOwned(admin.user, { ...(status === undefined ? {} : { status }), ...(target === '' ? {} : { target }), offset });
    const pageLink = (at: number, label: string) => {
      const query = new URLSearchParams({ ...(status === undefined ? {} : { status }), ...(target === '' ? {} : { target }), ...(at === 0 ? {} : { offset: String(at) }) }).toString();
      return html`<a href="${ADMIN}/webmentions/${query === '' ? '' : `?${query}`}">${label}</a>`;
    };
    const paging =
      total <= OWNED_PAGE_SIZE && offset === 0
        ? ''
        : html`<p class="paging">${items.length === 0 ? 'None' : `${offset + 1}–${offset + items.length}`} of ${String(total)}${
            offset > 0 ? html` ${pageLink(Math.max(0, offset - OWNED_PAGE_SIZE), 'Newer')}` : ''
          }${offset + items.length < total ? html` ${pageLink(offset + OWNED_PAGE_SIZE, 'Older')}` : ''}</p>`;
    const action = (id: string, name: string, label: string) =>
      html`<form method="post" action="${ADMIN}/webmentions/${id}/${name}">${csrfInput(admin)}<button type="submit">${label}</button></form>`;
    const body = html`<form method="get" action="${ADMIN}/webmentions/"><label for="filter-status">Status</label><select id="filter-status" name="status"><option value="">any</option>${WEBMENTION_STATUSES.map(
      (s) => html`<option value="${s}"${s === status ? html` selected` : ''}>${s}</option>`,
    )}</select><label for="filter-target">Target</label><input type="url" id="filter-target" name="target" value="${target}"><button type="submit">Filter</button></form>
${
  items.length === 0
    ? html`<p>No webmentions.</p>`
    : html`<ul class="mentions">${items.map(
        (item) => html`<li class="mention" data-status="${item.status}"><p><strong>${item.status}</strong> ${item.type ?? ''} from <a href="${item.source}" rel="nofollow ugc noopener">${item.source}</a> to <code>${item.target}</code></p>
${item.author.name === null ? '' : html`<p>By ${item.author.name}</p>`}${item.contentText === null ? '' : html`<blockquote>${item.contentText}</blockquote>`}
${action(item.id, 'reprocess', 'Check again')}${item.status === 'spam' ? '' : action(item.id, 'spam', 'Mark as spam')}${action(item.id, 'delete', 'Delete')}</li>`,
      )}</ul>`
}${paging}`;
    return page(admin, 'Webmentions', body);
  });

  app.post<{ Params: { id: string; action: string } }>('/admin/webmentions/:id/:action', async (request, reply) => {
    const admin = await authorizedPost(request, reply);
    if (admin === null) return reply;
    const { id, action } = request.params;
    try {
      await webmentions.getOwned(admin.user, id);
    } catch (error) {
      if (isIndieWebError(error) && error.status === 404) return noSuchMention(admin);
      throw error;
    }
    if (action === 'reprocess') await webmentions.reprocess(id);
    else if (action === 'spam') await webmentions.markSpam(id);
    else if (action === 'delete') await webmentions.remove(id);
    else return page(admin, 'Webmentions', html`<p class="error" role="alert">Unknown action.</p>`, 400);
    const done = action === 'reprocess' ? 'reprocessed' : action === 'spam' ? 'spam' : 'deleted';
    return back(reply, '/webmentions/', done);
  });

  // --- media ---------------------------------------------------------------

  app.get('/admin/media/', async (request, reply) => {
    const admin = await signedIn(request, reply);
    if (admin === null) return reply;
    const files = await media.repository.listByUser(admin.user.id);
    const preview = (type: string, url: string) =>
      type.startsWith('image/')
        ? html`<img src="${url}" alt="" loading="lazy" width="160">`
        : type.startsWith('audio/')
          ? html`<audio controls preload="none" src="${url}"></audio>`
          : type.startsWith('video/')
            ? html`<video controls preload="none" width="240" src="${url}"></video>`
            : '';
    const body =
      files.length === 0
        ? html`<p>No uploads yet.</p>`
        : html`<ul class="media">${files.map(
            (file) => html`<li class="media-item">${preview(file.mediaType, file.url)}<p>${file.name} · ${file.mediaType} · ${Math.ceil(file.size / 1024)} KiB · ${file.createdAt}</p>
<label>URL <input type="text" readonly value="${file.url}"></label>
<form method="post" action="${ADMIN}/media/delete">${csrfInput(admin)}<input type="hidden" name="id" value="${file.id}"><button type="submit">Delete</button></form></li>`,
          )}</ul>`;
    return page(admin, 'Media', body);
  });

  app.post('/admin/media/delete', async (request, reply) => {
    const admin = await authorizedPost(request, reply);
    if (admin === null) return reply;
    const id = readParam(request.body, 'id') ?? '';
    const file = (await media.repository.listByUser(admin.user.id)).find((f) => f.id === id);
    if (file !== undefined) await media.pipeline.discard([file]);
    return back(reply, '/media/', 'deleted');
  });

  // --- account (built-in accounts only) ------------------------------------

  const users = deps.users;
  if (users === null) return;

  function accountPage(admin: AdminContext, error?: string | SafeHtml, status = 200) {
    return page(
      admin,
      'Account',
      html`<h2>Change password</h2>${error === undefined || error instanceof SafeHtml ? error : html`<p class="error" role="alert">${error}</p>`}
<form method="post" action="${ADMIN}/account/password">${csrfInput(admin)}
<label for="current">Current password</label><input type="password" id="current" name="current" autocomplete="current-password" required>
<label for="new">New password</label><input type="password" id="new" name="new" autocomplete="new-password" required minlength="8">
<label for="confirm">New password again</label><input type="password" id="confirm" name="confirm" autocomplete="new-password" required minlength="8">
<button type="submit">Change password</button></form>
<h2>Sessions</h2><p>Sign out on every device and browser, this one included.</p>
<form method="post" action="${ADMIN}/account/sign-out-everywhere">${csrfInput(admin)}<button type="submit">Sign out everywhere</button></form>`,
      status,
    );
  }

  app.get('/admin/account/', async (request, reply) => {
    const admin = await signedIn(request, reply);
    if (admin === null) return reply;
    return accountPage(admin);
  });

  app.post('/admin/account/password', async (request, reply) => {
    const admin = await authorizedPost(request, reply);
    if (admin === null) return reply;
    const current = readParam(request.body, 'current') ?? '';
    const next = readParam(request.body, 'new') ?? '';
    if (next !== (readParam(request.body, 'confirm') ?? '')) return accountPage(admin, 'The new passwords do not match.', 400);
    // the current password is guessed like a sign-in: the same throttle, the same keys, no hashing while it says wait
    const keys = passwordAttemptKeys(request.ip, admin.user.name);
    const decision = deps.signInThrottle.begin(keys.all);
    if (!decision.allowed) {
      request.log.info({ userId: admin.user.id, retryAfter: decision.retryAfter }, 'password change throttled');
      return accountPage(admin, throttledAnswer(reply, decision.retryAfter), 429);
    }
    const { attempt } = decision;
    const authenticated = await users.authenticate(admin.user.name, current).catch((error: unknown) => {
      attempt.release();
      throw error;
    });
    if (authenticated === null) {
      attempt.fail();
      return accountPage(admin, 'The current password is not right.', 400);
    }
    attempt.succeed([keys.account]);
    try {
      await users.setPassword(admin.user.name, next);
    } catch (error) {
      if (isIndieWebError(error) && error.status === 400) return accountPage(admin, error.message, 400);
      throw error;
    }
    request.log.info({ userId: admin.user.id }, 'password changed');
    return reply.redirect(`${baseUrl}/indieweb/login/?return_to=${encodeURIComponent(`${ADMIN}/account/?done=password`)}`, 303);
  });

  app.post('/admin/account/sign-out-everywhere', async (request, reply) => {
    const admin = await authorizedPost(request, reply);
    if (admin === null) return reply;
    await users.signOutEverywhere(admin.user.id);
    request.log.info({ userId: admin.user.id }, 'signed out everywhere');
    return reply.redirect(`${baseUrl}/indieweb/login/`, 303);
  });
}
