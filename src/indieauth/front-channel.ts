/**
 * The front channel of IndieAuth, the user's browser: `GET /indieweb/auth/`
 * starts an authorization (sign-in, then our consent page) and
 * `POST /indieweb/auth/consent/` takes the decision.
 * @module
 */
import type { IndieAuthRoutesDeps } from './route-deps.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CSRF_FIELD } from '../web/csrf-token.js';
import type { HostUser } from '../contracts/accounts.js';
import { InvalidRequestError } from '../core/errors.js';
import { appendQuery, readParam } from '../core/params.js';
import { html, sendPage } from '../web/html.js';
import { navigation } from '../web/ui/layout.js';
import { errorAlert } from '../web/ui/messages.js';
import { createErrorHandler } from '../web/error-handler.js';
import { sendText } from '../web/reply.js';
import type { AuthorizationRequest } from './authorize.js';
import { ownProfileUrl, redirectProblem, REDIRECT_REFUSALS, type RedirectProblem } from './authorize.js';
import { consentBody, notYourProfileBody } from './consent-page.js';
import type { ClientInfo } from './client-info.js';
import { AUTHORIZATION_ERRORS } from './responses.js';

/** The GET URL of an authorization request, to come back to after signing in. */
function authorizationPath(request: AuthorizationRequest): string {
  const params: Record<string, string> = {
    client_id: request.clientId,
    redirect_uri: request.redirectUri,
    state: request.state,
    me: request.me,
  };
  if (request.scope !== '') params.scope = request.scope;
  if (request.codeChallenge !== null) {
    params.code_challenge = request.codeChallenge;
    params.code_challenge_method = request.codeChallengeMethod ?? 'plain';
  }
  return `/indieweb/auth/?${new URLSearchParams(params).toString()}`;
}

export async function frontChannelRoutes(app: FastifyInstance, deps: IndieAuthRoutesDeps): Promise<void> {
  const { authorization, clientInfo, accounts, csrf, issuer } = deps;

  /** The origin of redirect_uri, allowed as a form target: browsers apply form-action to the redirect after our POST. */
  const formActionFor = (request: AuthorizationRequest) => {
    const url = new URL(request.redirectUri);
    return [`${url.protocol}//${url.host}`];
  };

  async function activeUser(request: FastifyRequest): Promise<HostUser | null> {
    const user = await accounts.currentUser(request);
    return user !== null && user.isActive ? user : null;
  }

  /**
   * A redirect_uri on the client_id's host (and scheme) is always accepted;
   * on another host, or over http for an https client_id (a downgrade: the
   * code would cross the network in clear), only when the client's own page
   * publishes it. A page that cannot be read publishes nothing, so the
   * redirect is refused then too: nothing is ever sent to an address the
   * client did not vouch for.
   */
  async function clientCheck(auth: AuthorizationRequest): Promise<{ info: ClientInfo | null; refused: RedirectProblem | null }> {
    const info = await clientInfo.get(auth.clientId);
    const problem = redirectProblem(auth);
    const published = info !== null && info.redirectUris.includes(auth.redirectUri);
    return { info, refused: problem !== null && !published ? problem : null };
  }

  /** The 400 for a redirect_uri the client does not vouch for: plain text, like SPEC.md's malformed redirect_uri, and no redirect. */
  function refuseRedirect(
    request: FastifyRequest,
    reply: FastifyReply,
    auth: AuthorizationRequest,
    checked: { info: ClientInfo | null; refused: RedirectProblem },
  ) {
    request.log.info(
      { clientId: auth.clientId, clientPageRead: checked.info !== null, problem: checked.refused },
      'authorization refused: redirect_uri not published by the client',
    );
    return sendText(reply, 400, REDIRECT_REFUSALS[checked.refused]);
  }

  async function showConsent(
    request: FastifyRequest,
    reply: FastifyReply,
    auth: AuthorizationRequest,
    user: HostUser,
    status = 200,
    expired = false,
  ) {
    const checked = await clientCheck(auth);
    if (checked.refused !== null) return refuseRedirect(request, reply, auth, { info: checked.info, refused: checked.refused });
    const { info } = checked;
    const csrfToken = csrf.tokenFor(request, reply, user.id);
    if (ownProfileUrl(user, auth.me) === null) {
      request.log.info({ clientId: auth.clientId }, 'authorization refused: me is not the signed-in account');
      return sendPage(reply, 403, {
        title: 'Not your profile',
        body: html`${navigation({})}${notYourProfileBody({ request: auth, user, csrf: csrfToken })}`,
        formAction: formActionFor(auth),
      });
    }
    const notice = expired ? errorAlert('The form expired. Please decide again.') : undefined;
    return sendPage(reply, status, {
      title: 'Approve sign-in',
      body: html`${navigation({})}${consentBody({ request: auth, user, csrf: csrfToken, client: info, ...(notice === undefined ? {} : { notice }) })}`,
      formAction: formActionFor(auth),
    });
  }

  await app.register(async (front) => {
    front.setErrorHandler(createErrorHandler(AUTHORIZATION_ERRORS));

    front.get('/auth/', async (request, reply) => {
      const auth = await authorization.validate(request.query);
      const user = await activeUser(request);
      if (user === null) return reply.redirect(accounts.loginUrl(authorizationPath(auth)), 302);
      return showConsent(request, reply, auth, user);
    });

    front.post('/auth/consent/', async (request, reply) => {
      const auth = await authorization.validate(request.body);
      const user = await activeUser(request);
      if (user === null) return reply.redirect(accounts.loginUrl(authorizationPath(auth)), 303);
      if (!csrf.isValid(request, user.id, readParam(request.body, CSRF_FIELD))) {
        request.log.info('consent rejected: csrf token missing or expired');
        return showConsent(request, reply, auth, user, 403, true);
      }
      // the submitted form is checked again as a new request: a forged redirect_uri gets no redirect, not even a denial
      const checked = await clientCheck(auth);
      if (checked.refused !== null) return refuseRedirect(request, reply, auth, { info: checked.info, refused: checked.refused });
      const decision = readParam(request.body, 'decision');
      if (decision === 'deny') {
        request.log.info({ clientId: auth.clientId }, 'authorization denied');
        // RFC 9207: iss on error responses too
        return reply.redirect(appendQuery(auth.redirectUri, { error: 'access_denied', state: auth.state, iss: issuer }), 302);
      }
      if (decision !== 'approve') throw new InvalidRequestError('decision must be approve or deny');
      const me = ownProfileUrl(user, auth.me);
      if (me === null) return showConsent(request, reply, auth, user);
      const code = await authorization.issueCode(auth, user, me);
      request.log.info({ clientId: auth.clientId, userId: user.id, scope: auth.scope }, 'authorization code issued');
      return reply.redirect(appendQuery(auth.redirectUri, { code, state: auth.state, me, iss: issuer }), 302);
    });
  });
}
