/**
 * "Confirm it's you" (built-in accounts only): the re-authentication step in
 * front of the account changes that need a fresh proof (adding or removing a
 * passkey, switching passkey-only sign-in, changing the password of a
 * passkey-only account). The person proves who they are with their password
 * (refused for a passkey-only account) or one of their passkeys; the session
 * cookie then records the proof and the browser goes back to the page it came
 * from (`then`), where the change can be made for the next 5 minutes.
 * @see src/accounts/fresh-proof.ts
 * @module
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { FRESH_PROOF_S, type SessionProofs } from '../accounts/fresh-proof.js';
import { passkeyScripts } from '../accounts/passkeys/assets.js';
import { MAX_CEREMONY_RESPONSE_LENGTH, type PasskeyService } from '../accounts/passkeys/service.js';
import { passwordAttemptKeys, throttledAnswer } from '../accounts/sign-in-throttle.js';
import type { UserService } from '../accounts/user-service.js';
import { PasskeyRefusedError } from '../core/errors.js';
import { readParam } from '../core/params.js';
import type { FailureThrottle } from '../core/throttle.js';
import { isSafeReturnPath } from '../core/url.js';
import { html, type SafeHtml } from '../web/html.js';
import { sendJson } from '../web/reply.js';
import { csrfField, postForm } from '../web/ui/csrf-form.js';
import { errorAlert } from '../web/ui/messages.js';
import { ADMIN, sendAdminPage } from './layout.js';
import { sessionOf } from './session.js';

export interface ConfirmPageDeps {
  readonly users: UserService;
  readonly passkeys: PasskeyService;
  readonly proofs: SessionProofs;
  /** A password typed here is guessed like a sign-in: the same throttle and keys. */
  readonly signInThrottle: FailureThrottle;
  readonly baseUrl: string;
}

const CONFIRM_PATH = `${ADMIN}/confirm/`;
const OPTIONS_PATH = `${ADMIN}/confirm/options`;
const PASSKEY_PATH = `${ADMIN}/confirm/passkey`;
const DEFAULT_THEN = `${ADMIN}/passkeys/`;

/** The link to the step, coming back to `then` (an admin path) afterwards. */
export function confirmLink(then: string): string {
  return `${CONFIRM_PATH}?${new URLSearchParams({ then }).toString()}`;
}

/** Where to go once confirmed: an admin page of ours, nothing else. */
function thenOf(value: unknown): string {
  return typeof value === 'string' && value.startsWith(`${ADMIN}/`) && isSafeReturnPath(value) ? value : DEFAULT_THEN;
}

/** What the step says it is for (the same on every page that sends to it). */
export const CONFIRM_REASON = `Adding or removing a passkey, switching passkey-only sign-in and changing the password need a recent proof that it is you: your password or one of your passkeys, in the last ${FRESH_PROOF_S / 60} minutes.`;

/** A panel telling that the change needs the step, with the link to it. */
export function confirmPrompt(then: string): SafeHtml {
  return html`<p>${CONFIRM_REASON}</p><p><a href="${confirmLink(then)}">Confirm it's you</a></p>`;
}

/** What was refused, shown above the form it is about. */
type Problem = { readonly at: 'password' | 'passkey'; readonly alert: SafeHtml };

export type ConfirmStep = ReturnType<typeof createConfirmStep>;

export function createConfirmStep(deps: ConfirmPageDeps) {
  const { users, passkeys, proofs, signInThrottle, baseUrl } = deps;

  /** The step: a password form (unless passkey-only) and a passkey form (when the account has one). */
  async function sendConfirm(
    request: FastifyRequest,
    reply: FastifyReply,
    then: string,
    options: { status?: number; problem?: Problem; lead?: string } = {},
  ): Promise<FastifyReply> {
    const { user, csrf } = sessionOf(request);
    const record = await users.findById(user.id);
    const passwordless = record?.passwordless === true;
    const hasPasskeys = (await passkeys.list(user.id)).length > 0;
    const problem = options.problem;
    const passwordPanel = passwordless
      ? ''
      : html`<section class="panel" aria-labelledby="confirm-password-heading"><h2 id="confirm-password-heading">With your password</h2>
${problem?.at === 'password' ? problem.alert : ''}
${postForm({
  action: CONFIRM_PATH,
  csrf,
  hidden: { then },
  content: html`<label for="confirm-password">Password</label>
<input type="password" id="confirm-password" name="password"
autocomplete="current-password" required><button type="submit">Confirm</button>`,
})}</section>`;
    const passkeyPanel = hasPasskeys
      ? html`<section class="panel" aria-labelledby="confirm-passkey-heading">
<h2 id="confirm-passkey-heading">${passwordless ? 'With one of your passkeys' : 'Or with a passkey'}</h2>
${problem?.at === 'passkey' ? problem.alert : ''}
<form method="post" action="${PASSKEY_PATH}" id="passkey-confirm" data-passkey="sign-in" data-passkey-options="${OPTIONS_PATH}">
${csrfField(csrf)}<input type="hidden" name="then" value="${then}">
<input type="hidden" name="challenge_id" value=""><input type="hidden" name="response" value="">
<p role="alert" data-passkey-error hidden></p>
<button type="submit" class="secondary">Confirm with a passkey</button>
</form></section>`
      : passwordless
        ? html`<p>This account signs in with passkeys only and has none left:
the operator can let you in again with <code>indiestack user passwordless NAME off</code>.</p>`
        : '';
    const content = html`<p class="lead">${options.lead ?? CONFIRM_REASON}</p>
<div class="columns">${passwordPanel}${passkeyPanel}</div>`;
    return sendAdminPage(request, reply, {
      title: "Confirm it's you",
      content,
      status: options.status ?? 200,
      ...(hasPasskeys ? { scripts: passkeyScripts(baseUrl), connect: [`${baseUrl}${OPTIONS_PATH}`] } : {}),
    });
  }

  function confirmed(request: FastifyRequest, reply: FastifyReply, userId: string, then: string): FastifyReply {
    proofs.renew(request, reply, userId);
    request.log.info({ userId }, 'identity confirmed for account changes');
    return reply.redirect(`${baseUrl}${then}`, 303);
  }

  function routes(app: FastifyInstance): void {
    app.get('/confirm/', async (request, reply) => sendConfirm(request, reply, thenOf(readParam(request.query, 'then'))));

    app.post('/confirm/', async (request, reply) => {
      const { user } = sessionOf(request);
      const then = thenOf(readParam(request.body, 'then'));
      const password = readParam(request.body, 'password', 4096) ?? '';
      const record = await users.findById(user.id);
      if (record === null) return sendConfirm(request, reply, then, { status: 400 });
      // a passkey-only account's password proves nothing: refused before any hashing, whatever was typed
      if (record.passwordless) {
        return sendConfirm(request, reply, then, {
          status: 400,
          problem: { at: 'passkey', alert: errorAlert('This account signs in with passkeys only: confirm with one of your passkeys.') },
        });
      }
      const keys = passwordAttemptKeys(request.ip, user.name);
      const decision = signInThrottle.begin(keys.all);
      if (!decision.allowed) {
        request.log.info({ userId: user.id, retryAfter: decision.retryAfter }, 'confirmation throttled');
        return sendConfirm(request, reply, then, {
          status: 429,
          problem: { at: 'password', alert: throttledAnswer(reply, decision.retryAfter) },
        });
      }
      const { attempt } = decision;
      const authenticated = await users.authenticate(user.name, password).catch((error: unknown) => {
        attempt.release();
        throw error;
      });
      if (authenticated === null || authenticated.id !== user.id) {
        attempt.fail();
        return sendConfirm(request, reply, then, {
          status: 401,
          problem: { at: 'password', alert: errorAlert('The password is not right.') },
        });
      }
      attempt.succeed([keys.account]);
      return confirmed(request, reply, user.id, then);
    });

    // the guard checked the CSRF token: the challenge the passkey script asks for
    app.post('/confirm/options', async (_request, reply) => {
      reply.header('cache-control', 'no-store');
      return sendJson(reply, 200, await passkeys.authenticationOptions());
    });

    app.post('/confirm/passkey', async (request, reply) => {
      const { user } = sessionOf(request);
      const then = thenOf(readParam(request.body, 'then'));
      const response = readParam(request.body, 'response', MAX_CEREMONY_RESPONSE_LENGTH) ?? '';
      const refused = (status: number, message: string) =>
        sendConfirm(request, reply, then, { status, problem: { at: 'passkey', alert: errorAlert(message) } });
      if (response === '')
        return refused(400, 'Confirming with a passkey needs JavaScript in this browser. Turn it on, or use your password.');
      try {
        const { user: owner } = await passkeys.authenticate({ challengeId: readParam(request.body, 'challenge_id') ?? '', response });
        if (owner.id !== user.id) return refused(401, 'This passkey belongs to another account: use one of yours.');
      } catch (error) {
        if (!(error instanceof PasskeyRefusedError)) throw error;
        request.log.info({ userId: user.id, reason: error.reason, err: error.cause }, 'passkey confirmation refused');
        return refused(error.reason === 'malformed' || error.reason === 'challenge' ? 400 : 401, error.description ?? error.message);
      }
      return confirmed(request, reply, user.id, then);
    });
  }

  return {
    routes,

    /** True when the signed-in user proved who they are less than 5 minutes ago in this session. */
    isFresh: (request: FastifyRequest): boolean => proofs.isFresh(request, sessionOf(request).user.id),

    /**
     * Answers a change asked for without a fresh proof: the step itself, 403,
     * saying the change was not made, coming back to `then` once confirmed.
     * Returns null when the proof is fresh and the change may go on.
     */
    async requireFresh(request: FastifyRequest, reply: FastifyReply, then: string): Promise<FastifyReply | null> {
      const { user } = sessionOf(request);
      if (proofs.isFresh(request, user.id)) return null;
      request.log.info({ userId: user.id, url: request.url.split('?')[0] }, 'account change refused: no fresh proof');
      return sendConfirm(request, reply, thenOf(then), { status: 403, lead: `Nothing was changed yet. ${CONFIRM_REASON}` });
    },
  };
}
