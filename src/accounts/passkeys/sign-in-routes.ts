/**
 * Signing in with a passkey: the challenge for the browser (JSON, asked for
 * by the passkey script with the form's CSRF token), then the form post
 * carrying the answer, which signs the user in like the password form does
 * or shows the sign-in page again saying why not.
 * @module
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../../core/clock.js';
import { isIndieWebError, PasskeyRefusedError } from '../../core/errors.js';
import { readParam } from '../../core/params.js';
import type { Signer } from '../../core/signing.js';
import { isSafeReturnPath } from '../../core/url.js';
import type { Csrf } from '../../web/csrf.js';
import { CSRF_FIELD } from '../../web/csrf-token.js';
import { sendJson } from '../../web/reply.js';
import { errorAlert } from '../../web/ui/messages.js';
import { sendLoginPage } from '../login-page.js';
import { startSession } from '../session-cookie.js';
import { PASSKEY_SIGN_IN_OPTIONS_PATH, PASSKEY_SIGN_IN_PATH, routePath } from './paths.js';
import { MAX_CEREMONY_RESPONSE_LENGTH, type PasskeyService } from './service.js';

const HOME_PATH = '/indieweb/';

export interface PasskeySignInDeps {
  readonly passkeys: PasskeyService;
  readonly csrf: Csrf;
  readonly signer: Signer;
  readonly clock: Clock;
  readonly baseUrl: string;
  readonly secureCookies: boolean;
}

/** Refusals that are about the request (resend it) rather than about who signs in. */
const REQUEST_PROBLEMS = new Set(['malformed', 'challenge']);

export function passkeySignInRoutes(app: FastifyInstance, deps: PasskeySignInDeps): void {
  const { passkeys, csrf, baseUrl } = deps;
  const returnPathOf = (value: unknown): string => (typeof value === 'string' && isSafeReturnPath(value) ? value : HOME_PATH);

  function refusedPage(request: FastifyRequest, reply: FastifyReply, status: number, returnTo: string, message: string): FastifyReply {
    return sendLoginPage(reply, status, {
      baseUrl,
      csrfToken: csrf.tokenFor(request, reply, null),
      returnTo,
      passkeyMessage: errorAlert(message),
    });
  }

  app.post(routePath(PASSKEY_SIGN_IN_OPTIONS_PATH), async (request, reply) => {
    reply.header('cache-control', 'no-store');
    if (!csrf.isValid(request, null, readParam(request.body, CSRF_FIELD))) {
      return sendJson(reply, 403, { error: 'The page expired. Reload it and try again.' });
    }
    return sendJson(reply, 200, await passkeys.authenticationOptions());
  });

  app.post(routePath(PASSKEY_SIGN_IN_PATH), async (request, reply) => {
    const body = request.body;
    let returnTo = HOME_PATH;
    let challengeId = '';
    let response = '';
    try {
      returnTo = returnPathOf(readParam(body, 'return_to'));
      challengeId = readParam(body, 'challenge_id') ?? '';
      response = readParam(body, 'response', MAX_CEREMONY_RESPONSE_LENGTH) ?? '';
    } catch (error) {
      if (isIndieWebError(error) && error.status === 400)
        return refusedPage(request, reply, 400, returnTo, 'The answer of your passkey could not be read. Try again.');
      throw error;
    }
    if (!csrf.isValid(request, null, readParam(body, CSRF_FIELD))) {
      request.log.info('passkey sign-in rejected: csrf token missing or expired');
      return refusedPage(request, reply, 403, returnTo, 'The form expired. Please sign in again.');
    }
    if (response === '')
      return refusedPage(
        request,
        reply,
        400,
        returnTo,
        'Signing in with a passkey needs JavaScript in this browser. Turn it on, or sign in with your password.',
      );
    try {
      const { user, passkey } = await passkeys.authenticate({ challengeId, response });
      startSession(reply, deps, user);
      request.log.info({ userId: user.id, passkeyId: passkey.id }, 'signed in with a passkey');
      return reply.redirect(`${baseUrl}${returnTo}`, 303);
    } catch (error) {
      if (!(error instanceof PasskeyRefusedError)) throw error;
      request.log.info({ reason: error.reason, err: error.cause }, 'passkey sign-in refused');
      return refusedPage(request, reply, REQUEST_PROBLEMS.has(error.reason) ? 400 : 401, returnTo, error.description ?? error.message);
    }
  });
}
