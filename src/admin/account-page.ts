/**
 * Account (built-in accounts only): changing the password, throttled like a
 * sign-in (a passkey-only account also needs a fresh proof: its password
 * proves nothing), and signing out everywhere, whose confirmation page offers
 * to remove the passkeys added since this session signed in (issue 28 F6).
 * @module
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { passwordAttemptKeys, throttledAnswer } from '../accounts/sign-in-throttle.js';
import type { UserService } from '../accounts/user-service.js';
import type { SessionProofs } from '../accounts/fresh-proof.js';
import type { PasskeyService } from '../accounts/passkeys/service.js';
import { forClient, InvalidRequestError, isIndieWebError } from '../core/errors.js';
import type { PasskeyRecord } from '../storage/repositories/passkeys.js';
import { timestamp } from '../web/ui/format.js';
import type { ConfirmStep } from './confirm-page.js';
import { readParam } from '../core/params.js';
import type { FailureThrottle } from '../core/throttle.js';
import { html, type SafeHtml } from '../web/html.js';
import { postForm } from '../web/ui/csrf-form.js';
import { errorAlert } from '../web/ui/messages.js';
import { ADMIN, sendAdminPage } from './layout.js';
import { sessionOf } from './session.js';

export interface AccountPageDeps {
  readonly users: UserService;
  readonly passkeys: PasskeyService;
  readonly proofs: SessionProofs;
  /** The "Confirm it's you" step in front of changes that need a fresh proof. */
  readonly confirm: ConfirmStep;
  /** The password change is guessed like a sign-in: the same throttle. */
  readonly signInThrottle: FailureThrottle;
  readonly baseUrl: string;
}

const SIGN_OUT_PATH = `${ADMIN}/account/sign-out-everywhere`;

const PASSWORD_FIELDS = html`
<label for="current">Current password</label><input type="password" id="current" name="current" autocomplete="current-password" required>
<label for="new">New password</label><span class="hint" id="new-hint">At least 8 characters.</span>
<input type="password" id="new" name="new" autocomplete="new-password" required minlength="8" aria-describedby="new-hint">
<label for="confirm">New password again</label>
<input type="password" id="confirm" name="confirm" autocomplete="new-password" required minlength="8">
<button type="submit">Change password</button>`;

/** The page, with the alert of a refused change (text, or the throttle's ready-made alert). */
function sendAccountPage(
  request: FastifyRequest,
  reply: FastifyReply,
  problem?: { readonly alert: string | SafeHtml; readonly status: number },
): FastifyReply {
  const { csrf } = sessionOf(request);
  const alert = problem === undefined ? '' : typeof problem.alert === 'string' ? errorAlert(problem.alert) : problem.alert;
  const content = html`<div class="columns">
<section class="panel">
<h2>Change password</h2>${alert}
${postForm({ action: `${ADMIN}/account/password`, csrf, content: PASSWORD_FIELDS })}
</section>
<section class="panel">
<h2>Sessions</h2>
<p>Sign out on every device and browser, this one included. You can remove the passkeys added since you signed in at the same time.</p>
<p><a href="${SIGN_OUT_PATH}">Sign out everywhere…</a></p>
</section>
</div>`;
  return sendAdminPage(request, reply, { title: 'Account', content, status: problem?.status ?? 200 });
}

/** Passkeys one confirmation may remove at once (an account has a handful). */
const MAX_REMOVED = 100;

/** The passkey ids ticked on the confirmation page: none, one (a string) or several (an array). */
function ticked(body: unknown): string[] {
  const value = typeof body === 'object' && body !== null ? (body as Record<string, unknown>).remove : undefined;
  const values = value === undefined ? [] : Array.isArray(value) ? value : [value];
  if (values.length > MAX_REMOVED || values.some((one) => typeof one !== 'string' || one.length > 64)) {
    throw new InvalidRequestError(forClient('The list of passkeys to remove could not be read.'));
  }
  return values as string[];
}

/** The confirmation of "Sign out everywhere": the passkeys added since this session signed in, each with a box to remove it. */
function signOutBody(csrf: string, recent: readonly PasskeyRecord[], signedInAt: string | null, fresh: boolean): SafeHtml {
  const since = signedInAt === null ? 'since you signed in' : html`since you signed in (${timestamp(signedInAt)})`;
  const confirmFirst = fresh ? '' : " Removing one needs you to confirm it's you first: you will be asked.";
  const boxes = recent.map((passkey) => {
    const added = timestamp(passkey.createdAt);
    return html`<label><input type="checkbox" name="remove" value="${passkey.id}" checked> ${passkey.name} (added ${added})</label>`;
  });
  const choice =
    recent.length === 0
      ? html`<p>No passkey was added to your account ${since}.</p>`
      : html`<fieldset><legend>Passkeys added ${since}</legend>
<p class="hint">If you did not add one of these, someone who had your session may have: leave it ticked to remove it.${confirmFirst}</p>
${boxes}
</fieldset>`;
  return html`<p class="lead">Sign out on every device and browser, this one included: every session of your account ends.</p>
${postForm({ action: SIGN_OUT_PATH, csrf, content: html`${choice}<button type="submit">Sign out everywhere</button>` })}`;
}

export function accountPage(app: FastifyInstance, deps: AccountPageDeps): void {
  const { users, passkeys, proofs, confirm, signInThrottle, baseUrl } = deps;

  app.get('/account/', async (request, reply) => sendAccountPage(request, reply));

  /** Passkeys of the account added after this session's sign-in. */
  async function addedSinceSignIn(
    request: FastifyRequest,
    userId: string,
  ): Promise<{ recent: PasskeyRecord[]; signedInAt: string | null }> {
    const proof = proofs.of(request);
    const signedInAt = proof === null ? null : new Date(proof.signedInAt * 1000).toISOString();
    const own = await passkeys.list(userId);
    return { recent: signedInAt === null ? own : own.filter((passkey) => passkey.createdAt >= signedInAt), signedInAt };
  }

  app.get('/account/sign-out-everywhere', async (request, reply) => {
    const { user, csrf } = sessionOf(request);
    const { recent, signedInAt } = await addedSinceSignIn(request, user.id);
    return sendAdminPage(request, reply, {
      title: 'Sign out everywhere',
      content: signOutBody(csrf, recent, signedInAt, confirm.isFresh(request)),
    });
  });

  app.post('/account/password', async (request, reply) => {
    const { user } = sessionOf(request);
    // a passkey-only account's password proves nothing: changing it needs a fresh proof (a passkey) as well (issue 28 F6)
    if ((await users.findById(user.id))?.passwordless === true) {
      const refused = await confirm.requireFresh(request, reply, `${ADMIN}/account/`);
      if (refused !== null) return refused;
    }
    const current = readParam(request.body, 'current') ?? '';
    const next = readParam(request.body, 'new') ?? '';
    if (next !== (readParam(request.body, 'confirm') ?? ''))
      return sendAccountPage(request, reply, { alert: 'The new passwords do not match.', status: 400 });
    // the current password is guessed like a sign-in: the same throttle, the same keys, no hashing while it says wait
    const keys = passwordAttemptKeys(request.ip, user.name);
    const decision = signInThrottle.begin(keys.all);
    if (!decision.allowed) {
      request.log.info({ userId: user.id, retryAfter: decision.retryAfter }, 'password change throttled');
      return sendAccountPage(request, reply, { alert: throttledAnswer(reply, decision.retryAfter), status: 429 });
    }
    const { attempt } = decision;
    const authenticated = await users.authenticate(user.name, current).catch((error: unknown) => {
      attempt.release();
      throw error;
    });
    if (authenticated === null) {
      attempt.fail();
      return sendAccountPage(request, reply, { alert: 'The current password is not right.', status: 400 });
    }
    attempt.succeed([keys.account]);
    try {
      await users.setPassword(user.name, next);
    } catch (error) {
      if (isIndieWebError(error) && error.status === 400) return sendAccountPage(request, reply, { alert: error.message, status: 400 });
      throw error;
    }
    request.log.info({ userId: user.id }, 'password changed');
    return reply.redirect(`${baseUrl}/indieweb/login/?return_to=${encodeURIComponent(`${ADMIN}/account/?done=password`)}`, 303);
  });

  app.post('/account/sign-out-everywhere', async (request, reply) => {
    const { user } = sessionOf(request);
    const remove = ticked(request.body);
    if (remove.length > 0) {
      // removing a passkey needs a fresh proof, here as on the Passkeys page: nothing is done without it, not even the sign-out
      const refused = await confirm.requireFresh(request, reply, SIGN_OUT_PATH);
      if (refused !== null) return refused;
      const own = await passkeys.list(user.id);
      const removed = own.filter((passkey) => remove.includes(passkey.id));
      // removing every passkey of a passkey-only account gives the password back: the account never loses its last way in
      if (removed.length > 0 && removed.length === own.length && (await users.findById(user.id))?.passwordless === true)
        await passkeys.setPasswordless(user.id, false);
      for (const passkey of removed) await passkeys.remove(user.id, passkey.id);
      if (removed.length > 0)
        request.log.info(
          { userId: user.id, passkeyIds: removed.map((passkey) => passkey.id) },
          'passkeys removed on signing out everywhere',
        );
    }
    await users.signOutEverywhere(user.id);
    request.log.info({ userId: user.id }, 'signed out everywhere');
    return reply.redirect(`${baseUrl}/indieweb/login/`, 303);
  });
}
