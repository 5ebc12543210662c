/**
 * Passkeys (built-in accounts only): the account's passkeys (name, added,
 * last used, removing one), adding one (the passkey script runs the
 * browser's ceremony, then the form posts its answer), and passkey-only
 * sign-in. Removing the account's last way in is refused. Every change
 * needs a fresh proof (the "Confirm it's you" step, confirm-page.ts): a
 * session cookie alone cannot add a passkey or lock the password out.
 * @module
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { passkeyScripts } from '../accounts/passkeys/assets.js';
import { MAX_CEREMONY_RESPONSE_LENGTH, MAX_PASSKEY_NAME_LENGTH, type PasskeyService } from '../accounts/passkeys/service.js';
import type { UserService } from '../accounts/user-service.js';
import { ConflictError, InvalidRequestError, PasskeyRefusedError } from '../core/errors.js';
import { readParam } from '../core/params.js';
import type { PasskeyRecord } from '../storage/repositories/passkeys.js';
import { html, type SafeHtml } from '../web/html.js';
import { sendJson } from '../web/reply.js';
import { buttonForm, csrfField } from '../web/ui/csrf-form.js';
import { fieldError, invalidAttributes } from '../web/ui/field.js';
import { timestamp } from '../web/ui/format.js';
import { errorAlert } from '../web/ui/messages.js';
import { confirmPrompt, type ConfirmStep } from './confirm-page.js';
import { ADMIN, redirectDone, sendAdminPage } from './layout.js';
import { sessionOf } from './session.js';

export interface PasskeysPageDeps {
  readonly users: UserService;
  readonly passkeys: PasskeyService;
  /** Every change here needs a fresh proof (issue 28 F6): the "Confirm it's you" step. */
  readonly confirm: ConfirmStep;
  readonly baseUrl: string;
}

const PAGE_PATH = `${ADMIN}/passkeys/`;

const OPTIONS_PATH = `${ADMIN}/passkeys/options`;

/** What went wrong, and where it is shown: above the list, or by the add form (with the name typed). */
type Problem = { readonly at: 'page' | 'add' | 'name'; readonly message: string; readonly status: number; readonly name?: string };

function passkeyRow(passkey: PasskeyRecord, csrf: string, fresh: boolean): SafeHtml {
  const lastUsed = passkey.lastUsedAt === null ? 'never' : timestamp(passkey.lastUsedAt);
  const remove = fresh
    ? buttonForm({ action: `${ADMIN}/passkeys/remove`, csrf, hidden: { id: passkey.id }, label: `Remove ${passkey.name}` })
    : '';
  return html`<tr><td data-label="Name">${passkey.name}</td><td data-label="Added">${timestamp(passkey.createdAt)}</td>
<td data-label="Last used">${lastUsed}</td><td data-label="Synced">${passkey.backedUp ? 'yes' : 'no'}</td>
<td>${remove}</td></tr>`;
}

function addForm(csrf: string, problem: Problem | undefined): SafeHtml {
  const nameError = problem?.at === 'name' ? fieldError(problem.message, 'passkey-name') : '';
  const addError = problem?.at === 'add' ? problem.message : '';
  const invalid = invalidAttributes('passkey-name', nameError === '' ? 0 : 1);
  return html`<form method="post" action="${ADMIN}/passkeys/" id="passkey-add"
data-passkey="register" data-passkey-options="${OPTIONS_PATH}">
${csrfField(csrf)}<input type="hidden" name="challenge_id" value=""><input type="hidden" name="response" value="">
<label for="passkey-name">Name (the device or password manager that holds it)</label>
<input type="text" id="passkey-name" name="name" maxlength="${MAX_PASSKEY_NAME_LENGTH}" autocomplete="off"
value="${problem?.name ?? ''}"${invalid}>${nameError}
<p role="alert" data-passkey-error${addError === '' ? html` hidden` : html` class="error"`}>${addError}</p>
<button type="submit">Add a passkey</button>
</form>`;
}

function passwordSection(passwordless: boolean, count: number, csrf: string): SafeHtml {
  const action = `${ADMIN}/passkeys/passwordless`;
  if (passwordless) {
    return html`<p>Only your passkeys sign you in: your password is refused.</p>
${buttonForm({ action, csrf, hidden: { mode: 'off' }, label: 'Allow password sign-in again' })}`;
  }
  const first = count === 0 ? ' Add a passkey before you turn password sign-in off.' : '';
  return html`<p>Your password and your passkeys both sign you in.${first}</p>
${buttonForm({ action, csrf, hidden: { mode: 'on' }, label: 'Sign in with passkeys only' })}`;
}

export function passkeysPage(app: FastifyInstance, deps: PasskeysPageDeps): void {
  const { users, passkeys, confirm, baseUrl } = deps;
  /** The confirm step instead of the change when the proof is not fresh; null when it is. */
  const stale = (request: FastifyRequest, reply: FastifyReply) => confirm.requireFresh(request, reply, PAGE_PATH);

  async function sendPasskeysPage(request: FastifyRequest, reply: FastifyReply, problem?: Problem): Promise<FastifyReply> {
    const { user, csrf } = sessionOf(request);
    const record = await users.findById(user.id);
    const own = await passkeys.list(user.id);
    // without a fresh proof the page shows what there is and the way to confirm, not the forms that would be refused
    const fresh = confirm.isFresh(request);
    const list =
      own.length === 0
        ? html`<p>No passkeys yet.</p>`
        : html`<table><thead><tr><th>Name</th><th>Added</th><th>Last used</th><th>Synced</th><th></th></tr></thead>
<tbody>${own.map((passkey) => passkeyRow(passkey, csrf, fresh))}</tbody></table>`;
    if (!fresh) {
      const signIn =
        record?.passwordless === true
          ? 'Only your passkeys sign you in: your password is refused.'
          : 'Your password and your passkeys both sign you in.';
      const content = html`<p class="lead">A passkey signs you in with your device's fingerprint, face or PIN instead of your password.</p>
${list}
<section class="panel" aria-labelledby="confirm-heading"><h2 id="confirm-heading">Changing your passkeys</h2>
<p>${signIn}</p>
${confirmPrompt(PAGE_PATH)}</section>`;
      return sendAdminPage(request, reply, { title: 'Passkeys', content, status: problem?.status ?? 200 });
    }
    const content = html`<p class="lead">A passkey signs you in with your device's fingerprint, face or PIN instead of your password.
It only works on this server's own address, so a look-alike site cannot trick you into giving it away.</p>
${problem?.at === 'page' ? errorAlert(problem.message) : ''}${list}
<div class="columns">
<section class="panel" aria-labelledby="add-heading"><h2 id="add-heading">Add a passkey</h2>
${addForm(csrf, problem)}</section>
<section class="panel" aria-labelledby="password-heading"><h2 id="password-heading">Password sign-in</h2>
${passwordSection(record?.passwordless === true, own.length, csrf)}</section>
</div>`;
    return sendAdminPage(request, reply, {
      title: 'Passkeys',
      content,
      status: problem?.status ?? 200,
      scripts: passkeyScripts(baseUrl),
      connect: [`${baseUrl}${OPTIONS_PATH}`],
    });
  }

  app.get('/passkeys/', async (request, reply) => sendPasskeysPage(request, reply));

  // the guard checked the CSRF token: the JSON the passkey script asks for before the browser's ceremony
  app.post('/passkeys/options', async (request, reply) => {
    reply.header('cache-control', 'no-store');
    // no challenge is made for a session without a fresh proof
    if (!confirm.isFresh(request)) return sendJson(reply, 403, { error: "Confirm it's you first: reload the page." });
    return sendJson(reply, 200, await passkeys.registrationOptions(sessionOf(request).user));
  });

  app.post('/passkeys/', async (request, reply) => {
    const refused = await stale(request, reply);
    if (refused !== null) return refused;
    const { user } = sessionOf(request);
    const name = readParam(request.body, 'name', 1024) ?? '';
    const response = readParam(request.body, 'response', MAX_CEREMONY_RESPONSE_LENGTH) ?? '';
    if (response === '') {
      return sendPasskeysPage(request, reply, {
        at: 'add',
        status: 400,
        name,
        message: 'Adding a passkey needs JavaScript in this browser: turn it on and try again.',
      });
    }
    try {
      const added = await passkeys.register(user, { challengeId: readParam(request.body, 'challenge_id') ?? '', response, name });
      request.log.info({ userId: user.id, passkeyId: added.id }, 'passkey added');
    } catch (error) {
      if (error instanceof PasskeyRefusedError) {
        request.log.info({ userId: user.id, reason: error.reason, err: error.cause }, 'passkey registration refused');
        return sendPasskeysPage(request, reply, { at: 'add', status: 400, name, message: error.description ?? error.message });
      }
      if (error instanceof InvalidRequestError)
        return sendPasskeysPage(request, reply, { at: 'name', status: 400, name, message: error.description ?? error.message });
      throw error;
    }
    return redirectDone(reply, baseUrl, '/passkeys/', 'passkey-added');
  });

  // another user's passkey id answers like a removed one: the same redirect, nothing removed
  app.post('/passkeys/remove', async (request, reply) => {
    const refused = await stale(request, reply);
    if (refused !== null) return refused;
    const { user } = sessionOf(request);
    try {
      if (await passkeys.remove(user.id, readParam(request.body, 'id') ?? '')) request.log.info({ userId: user.id }, 'passkey removed');
    } catch (error) {
      if (error instanceof ConflictError)
        return sendPasskeysPage(request, reply, { at: 'page', status: 409, message: error.description ?? error.message });
      throw error;
    }
    return redirectDone(reply, baseUrl, '/passkeys/', 'passkey-removed');
  });

  app.post('/passkeys/passwordless', async (request, reply) => {
    const refused = await stale(request, reply);
    if (refused !== null) return refused;
    const { user } = sessionOf(request);
    const mode = readParam(request.body, 'mode');
    if (mode !== 'on' && mode !== 'off')
      return sendPasskeysPage(request, reply, { at: 'page', status: 400, message: 'Choose whether your password signs you in.' });
    try {
      await passkeys.setPasswordless(user.id, mode === 'on');
    } catch (error) {
      if (error instanceof ConflictError)
        return sendPasskeysPage(request, reply, { at: 'page', status: 409, message: error.description ?? error.message });
      throw error;
    }
    request.log.info({ userId: user.id, passwordless: mode === 'on' }, 'password sign-in changed');
    return redirectDone(reply, baseUrl, '/passkeys/', mode === 'on' ? 'passwordless-on' : 'passwordless-off');
  });
}
