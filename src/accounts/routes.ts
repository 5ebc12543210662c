/**
 * The standalone sign-in pages: login, logout and the account home.
 * Registered only when indiestack manages its own accounts.
 * @module
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Accounts, HostUser } from '../contracts/accounts.js';
import type { Clock } from '../core/clock.js';
import type { FailureThrottle } from '../core/throttle.js';
import type { Signer } from '../core/signing.js';
import { isSafeReturnPath } from '../core/url.js';
import { clearCookie } from '../web/cookies.js';
import type { Csrf } from '../web/csrf.js';
import { html, sendPage, type SafeHtml } from '../web/html.js';
import { CSRF_FIELD } from '../web/csrf-token.js';
import { buttonForm } from '../web/ui/csrf-form.js';
import { layout, navigation } from '../web/ui/layout.js';
import { errorAlert } from '../web/ui/messages.js';
import { linkTags } from '../profile/template-helpers.js';
import { sendLoginPage } from './login-page.js';
import { passkeyAssetRoutes } from './passkeys/assets.js';
import type { PasskeyService } from './passkeys/service.js';
import { passkeySignInRoutes } from './passkeys/sign-in-routes.js';
import { SESSION_COOKIE } from './session.js';
import { startSession } from './session-cookie.js';
import { passwordAttemptKeys, throttledAnswer } from './sign-in-throttle.js';
import type { UserService } from './user-service.js';

const HOME_PATH = '/indieweb/';

/** The one answer to a password that does not sign in: unknown name, wrong password, disabled or passkey-only account. */
export const SIGN_IN_FAILED =
  'Sign-in failed. Check the user name and the password. (An account that signs in with passkeys only refuses every password: use "Sign in with a passkey".)';

export interface AccountRoutesDeps {
  readonly accounts: Accounts;
  readonly users: UserService;
  readonly passkeys: PasskeyService;
  readonly csrf: Csrf;
  readonly signer: Signer;
  readonly clock: Clock;
  /** Sign-in attempts: keys per client address and per account name. */
  readonly signInThrottle: FailureThrottle;
  readonly baseUrl: string;
  /** Session cookies carry `Secure` (the base URL is https). */
  readonly secureCookies: boolean;
}

export async function accountRoutes(app: FastifyInstance, deps: AccountRoutesDeps): Promise<void> {
  const { accounts, users, passkeys, csrf, signer, clock, signInThrottle, baseUrl, secureCookies } = deps;
  passkeyAssetRoutes(app);
  passkeySignInRoutes(app, { passkeys, csrf, signer, clock, baseUrl, secureCookies });

  const returnPathOf = (value: unknown): string => (typeof value === 'string' && isSafeReturnPath(value) ? value : HOME_PATH);

  function loginPage(
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    options: { returnTo: string; username?: string; message?: SafeHtml },
  ) {
    return sendLoginPage(reply, status, { baseUrl, csrfToken: csrf.tokenFor(request, reply, null), ...options });
  }

  app.get('/login/', async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const returnTo = returnPathOf(query.return_to);
    const user = await accounts.currentUser(request);
    if (user !== null) return reply.redirect(`${baseUrl}${returnTo}`, 303);
    return loginPage(request, reply, 200, { returnTo });
  });

  app.post('/login/', async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const returnTo = returnPathOf(body.return_to);
    const username = typeof body.username === 'string' ? body.username : '';
    if (!csrf.isValid(request, null, body[CSRF_FIELD])) {
      request.log.info('login rejected: csrf token missing or expired');
      return loginPage(request, reply, 403, { returnTo, username, message: errorAlert('The form expired. Please sign in again.') });
    }
    const password = typeof body.password === 'string' ? body.password : '';
    // security: the keys come from the address and the name as typed, so an unknown name waits exactly like a real one;
    // a throttled attempt is answered before any password is hashed
    const keys = passwordAttemptKeys(request.ip, username);
    const decision = signInThrottle.begin(keys.all);
    if (!decision.allowed) {
      request.log.info({ retryAfter: decision.retryAfter }, 'login throttled');
      return loginPage(request, reply, 429, { returnTo, username, message: throttledAnswer(reply, decision.retryAfter) });
    }
    const { attempt } = decision;
    const user = await users.authenticate(username, password).catch((error: unknown) => {
      attempt.release();
      throw error;
    });
    // security: the right password of a passkey-only account is answered exactly like a wrong one (status, page, one
    // scrypt either way), so the answer does not confirm a guessed or phished password (issue 28 F9)
    if (user === null || user.passwordless) {
      attempt.fail();
      request.log.info(
        user === null ? {} : { userId: user.id },
        user === null ? 'login failed' : 'login refused: the account signs in with passkeys only',
      );
      return loginPage(request, reply, 401, { returnTo, username, message: errorAlert(SIGN_IN_FAILED) });
    }
    attempt.succeed([keys.account]);
    startSession(reply, { signer, clock, secureCookies }, user);
    request.log.info({ userId: user.id }, 'signed in');
    return reply.redirect(`${baseUrl}${returnTo}`, 303);
  });

  const logoutForm = (request: FastifyRequest, reply: FastifyReply, user: HostUser, label = 'Sign out') =>
    buttonForm({ action: '/indieweb/logout/', csrf: csrf.tokenFor(request, reply, user.id), label });

  app.get('/logout/', async (request, reply) => {
    const user = await accounts.currentUser(request);
    if (user === null) return reply.redirect(`${baseUrl}/indieweb/login/`, 303);
    return sendPage(reply, 200, {
      title: 'Sign out',
      body: layout({
        heading: 'Sign out',
        width: 'narrow',
        content: html`<p>Signed in as <strong>${user.name}</strong>.</p>${logoutForm(request, reply, user)}`,
      }),
    });
  });

  app.post('/logout/', async (request, reply) => {
    const user = await accounts.currentUser(request);
    const body = (request.body ?? {}) as Record<string, unknown>;
    if (user !== null && !csrf.isValid(request, user.id, body[CSRF_FIELD])) {
      return sendPage(reply, 403, {
        title: 'Sign out',
        body: layout({
          heading: 'Sign out',
          width: 'narrow',
          message: errorAlert('The form expired. Please try again.'),
          content: logoutForm(request, reply, user),
        }),
      });
    }
    clearCookie(reply, SESSION_COOKIE, { secure: secureCookies });
    if (user !== null) {
      // sessions are signed cookies with a per-account epoch: ending this one on the server ends every session of the
      // account, so a copy of the cookie taken before sign-out opens nothing (issue 23 #9)
      await users.signOutEverywhere(user.id);
      request.log.info({ userId: user.id }, 'signed out');
    }
    return reply.redirect(`${baseUrl}/indieweb/login/`, 303);
  });

  app.get('/', async (request, reply) => {
    const admin = `${baseUrl}/indieweb/admin`;
    const user = await accounts.currentUser(request);
    if (user === null) return reply.redirect(accounts.loginUrl(HOME_PATH), 303);
    return sendPage(reply, 200, {
      title: 'Your indiestack',
      body: layout({
        nav: navigation({
          links: [
            { href: HOME_PATH, label: 'Home' },
            { href: `${admin}/`, label: 'Admin' },
          ],
          current: HOME_PATH,
          end: logoutForm(request, reply, user),
        }),
        heading: `Signed in as ${user.name}`,
        content: html`<div class="columns">
<section class="panel" aria-labelledby="manage-heading">
<h2 id="manage-heading">Manage</h2>
<ul>
<li><a href="${admin}/">Dashboard</a>: what to do next, your latest posts and webmentions</li>
<li><a href="${admin}/write/">Write</a> a post, or see your <a href="${admin}/posts/">Posts</a></li>
<li><a href="${admin}/setup/">Check my setup</a>: whether your homepage links this server and apps can reach it</li>
<li><a href="${admin}/profile/">Profile</a>: the h-card of your homepage</li>
<li><a href="${admin}/apps/">Apps</a>: what you signed in to, and revoking it</li>
<li><a href="${admin}/webmentions/">Webmentions</a>: what others said about your posts,
and <a href="${admin}/webmention-settings/">Webmention settings</a></li>
<li><a href="${admin}/media/">Media</a>: your uploads</li>
<li><a href="${admin}/passkeys/">Passkeys</a>: signing in without a password</li>
<li><a href="${admin}/account/">Account</a>: your password, signing out everywhere</li>
</ul>
</section>
<section class="panel" aria-labelledby="urls-heading">
<h2 id="urls-heading">Your profile URLs</h2>
<ul>${user.me.map((url) => html`<li><a href="${url}">${url}</a></li>`)}</ul>
</section>
</div>
<h2>Your homepage</h2>
<p>Put these tags in the <code>&lt;head&gt;</code> of each profile URL above, so apps find this server when you sign in with it:</p>
<pre><code>${linkTags(baseUrl)}</code></pre>`,
      }),
    });
  });
}
