/**
 * Account (built-in accounts only): changing the password, throttled like a
 * sign-in, and signing out everywhere.
 * @module
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { passwordAttemptKeys, throttledAnswer } from '../accounts/sign-in-throttle.js';
import type { UserService } from '../accounts/user-service.js';
import { isIndieWebError } from '../core/errors.js';
import { readParam } from '../core/params.js';
import type { FailureThrottle } from '../core/throttle.js';
import { html, type SafeHtml } from '../web/html.js';
import { buttonForm, postForm } from '../web/ui/csrf-form.js';
import { errorAlert } from '../web/ui/messages.js';
import { ADMIN, sendAdminPage } from './layout.js';
import { sessionOf } from './session.js';

export interface AccountPageDeps {
  readonly users: UserService;
  /** The password change is guessed like a sign-in: the same throttle. */
  readonly signInThrottle: FailureThrottle;
  readonly baseUrl: string;
}

const PASSWORD_FIELDS = html`
<label for="current">Current password</label><input type="password" id="current" name="current" autocomplete="current-password" required>
<label for="new">New password</label><span class="hint" id="new-hint">At least 8 characters.</span><input type="password" id="new" name="new" autocomplete="new-password" required minlength="8" aria-describedby="new-hint">
<label for="confirm">New password again</label><input type="password" id="confirm" name="confirm" autocomplete="new-password" required minlength="8">
<button type="submit">Change password</button>`;

/** The page, with the alert of a refused change (text, or the throttle's ready-made alert). */
function sendAccountPage(request: FastifyRequest, reply: FastifyReply, problem?: { readonly alert: string | SafeHtml; readonly status: number }): FastifyReply {
  const { csrf } = sessionOf(request);
  const alert = problem === undefined ? '' : typeof problem.alert === 'string' ? errorAlert(problem.alert) : problem.alert;
  const content = html`<div class="columns">
<section class="panel">
<h2>Change password</h2>${alert}
${postForm({ action: `${ADMIN}/account/password`, csrf, content: PASSWORD_FIELDS })}
</section>
<section class="panel">
<h2>Sessions</h2><p>Sign out on every device and browser, this one included.</p>
${buttonForm({ action: `${ADMIN}/account/sign-out-everywhere`, csrf, label: 'Sign out everywhere' })}
</section>
</div>`;
  return sendAdminPage(request, reply, { title: 'Account', content, status: problem?.status ?? 200 });
}

export function accountPage(app: FastifyInstance, deps: AccountPageDeps): void {
  const { users, signInThrottle, baseUrl } = deps;

  app.get('/account/', async (request, reply) => sendAccountPage(request, reply));

  app.post('/account/password', async (request, reply) => {
    const { user } = sessionOf(request);
    const current = readParam(request.body, 'current') ?? '';
    const next = readParam(request.body, 'new') ?? '';
    if (next !== (readParam(request.body, 'confirm') ?? '')) return sendAccountPage(request, reply, { alert: 'The new passwords do not match.', status: 400 });
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
    await users.signOutEverywhere(user.id);
    request.log.info({ userId: user.id }, 'signed out everywhere');
    return reply.redirect(`${baseUrl}/indieweb/login/`, 303);
  });
}
