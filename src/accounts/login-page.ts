/**
 * The sign-in page: the password form and, with the built-in accounts, the
 * passkey form (scripts and the CSP that allows them come with it).
 * @module
 */
import type { FastifyReply } from 'fastify';
import { html, sendPage, type SafeHtml } from '../web/html.js';
import { csrfField } from '../web/ui/csrf-form.js';
import { layout, navigation } from '../web/ui/layout.js';
import { passkeyScripts } from './passkeys/assets.js';
import { PASSKEY_SIGN_IN_OPTIONS_PATH, PASSKEY_SIGN_IN_PATH } from './passkeys/paths.js';

export interface LoginPageOptions {
  readonly baseUrl: string;
  readonly csrfToken: string;
  readonly returnTo: string;
  readonly username?: string;
  /** An alert about the password form. */
  readonly message?: SafeHtml;
  /** An alert about the passkey form, shown beside it. */
  readonly passkeyMessage?: SafeHtml;
}

export function sendLoginPage(reply: FastifyReply, status: number, options: LoginPageOptions): FastifyReply {
  const { baseUrl, csrfToken, returnTo } = options;
  return sendPage(reply, status, {
    title: 'Sign in',
    scripts: passkeyScripts(baseUrl),
    connect: [`${baseUrl}${PASSKEY_SIGN_IN_OPTIONS_PATH}`],
    body: layout({
      nav: navigation({}),
      heading: 'Sign in',
      className: 'auth',
      content: html`<p class="lead">Sign in to manage your site and to approve the apps that sign in with your web address.</p>
<div class="columns">
<section class="panel" aria-labelledby="password-heading">
<h2 id="password-heading">With your password</h2>
${options.message ?? ''}
<form method="post" action="/indieweb/login/">
${csrfField(csrfToken)}
<input type="hidden" name="return_to" value="${returnTo}">
<label for="username">User name</label>
<input type="text" id="username" name="username" autocomplete="username" autocapitalize="none" required value="${options.username ?? ''}">
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>
</section>
<section class="panel" aria-labelledby="passkey-heading">
<h2 id="passkey-heading">Or with a passkey</h2>
${options.passkeyMessage ?? ''}
<form method="post" action="${PASSKEY_SIGN_IN_PATH}" id="passkey-sign-in"
data-passkey="sign-in" data-passkey-options="${PASSKEY_SIGN_IN_OPTIONS_PATH}">
${csrfField(csrfToken)}
<input type="hidden" name="return_to" value="${returnTo}">
<input type="hidden" name="challenge_id" value="">
<input type="hidden" name="response" value="">
<p>Your device asks for your fingerprint, face or PIN; no user name needed.</p>
<p role="alert" data-passkey-error hidden></p>
<button type="submit" class="secondary">Sign in with a passkey</button>
</form>
</section>
</div>`,
    }),
  });
}
