/**
 * The admin plugin: the signed-in user's pages for profile, connected apps,
 * webmentions, media and (with the built-in accounts) the account. Every
 * page is behind sign-in and every POST carries a valid CSRF token: a
 * `preHandler` answers for the route (a redirect to sign in, or 403 "Form
 * expired") or decorates the request with the user ({@link sessionOf}), so
 * the pages never check either themselves. Server-rendered, no JavaScript,
 * readable on a phone.
 * @module
 */
import { dashboardPage, type HandlerInfo } from './dashboard-page.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SessionProofs } from '../accounts/fresh-proof.js';
import type { PasskeyService } from '../accounts/passkeys/service.js';
import type { UserService } from '../accounts/user-service.js';
import type { Accounts } from '../contracts/accounts.js';
import { readParam } from '../core/params.js';
import type { FailureThrottle } from '../core/throttle.js';
import type { TokenService } from '../indieauth/token-service.js';
import type { MediaConfig } from '../config/config.js';
import type { FormUpload } from '../media/form-upload.js';
import type { MediaLibrary } from '../media/library.js';
import type { DoctorService } from '../operations/doctor/service.js';
import type { ProfileService } from '../profile/service.js';
import type { Csrf } from '../web/csrf.js';
import { CSRF_FIELD } from '../web/csrf-token.js';
import type { ReadTokens } from '../webmention/api/read-tokens.js';
import type { ModerationService } from '../webmention/moderation-service.js';
import type { Webhooks } from '../webmention/webhooks.js';
import type { WebmentionService } from '../webmention/service.js';
import type { Outbound } from '../outbound/fetch.js';
import { createMicropubClient } from './write/micropub-client.js';
import type { UploadDeps } from './write/uploads.js';
import { writeArea, writeScriptRoute } from './write/write-area.js';
import { accountPage } from './account-page.js';
import { appsPage, type AppsPageDeps } from './apps-page.js';
import { createConfirmStep } from './confirm-page.js';
import { sendFormExpired } from './form-expired.js';
import { ADMIN } from './layout.js';
import { mediaPage } from './media-page.js';
import { passkeysPage } from './passkeys-page.js';
import { profilePage } from './profile-page.js';
import { setupPage } from './setup-page.js';
import { webmentionSettingsPage } from './webmention-settings-page.js';
import { webmentionsPage } from './webmentions-page.js';
import { webmentionsSentPage } from './webmentions-sent-page.js';
import { syndicationPage } from './syndication-page.js';
import type { SyndicationService } from '../syndication/service.js';
import type { PublishSender } from '../webmention/publish/sender.js';

export interface AdminDeps {
  readonly accounts: Accounts;
  /** The content handler that runs, for the dashboard (absent: the in-memory handler, its posts not served as pages). */
  readonly contentHandler?: HandlerInfo;
  /** The built-in accounts (the account page); null when the host brings its own. */
  readonly users: UserService | null;
  /** Passkeys of the built-in accounts (the Passkeys page); null when the host brings its own accounts. */
  readonly passkeys: PasskeyService | null;
  /** When the person of a session last proved who they are (built-in accounts); null with the host's accounts. */
  readonly proofs: SessionProofs | null;
  /** The account page's password change is guessed like a sign-in: the same throttle. */
  readonly signInThrottle: FailureThrottle;
  readonly csrf: Csrf;
  readonly baseUrl: string;
  readonly tokens: TokenService;
  /** What apps say about themselves (the Apps page shows their names). */
  readonly clientInfo: AppsPageDeps['clientInfo'];
  readonly profiles: ProfileService;
  readonly webmentions: WebmentionService;
  /** The read tokens of the webmention.io-compatible API. */
  readonly webmentionTokens: ReadTokens;
  readonly webmentionModeration: ModerationService;
  readonly webhooks: Webhooks;
  /** Webmentions sent on publish (the Sent webmentions page); absent: no such page. */
  readonly webmentionSending?: { readonly sender: PublishSender; readonly mode: 'off' | 'on' | 'deploy' };
  readonly media: MediaLibrary;
  /** Stores the file of the Media page's upload form. */
  readonly mediaUpload: FormUpload;
  /** What the upload form tells about the limits. */
  readonly mediaLimits: Pick<MediaConfig, 'maxUploadBytes' | 'allowedTypes'>;
  /** The Write area: files of its forms go through the upload pipeline with the media endpoint's limits. */
  readonly uploads: UploadDeps;
  /** The Write area looks at the pages a post cites through it. */
  readonly outbound: Outbound;
  /** The deployment checks of "Check my setup". */
  readonly doctor: DoctorService;
  /** Syndication targets and where posts went (the Syndication page). */
  readonly syndication: SyndicationService;
}

export async function adminPlugin(app: FastifyInstance, deps: AdminDeps): Promise<void> {
  const { baseUrl, users } = deps;

  // the Write area publishes through the Micropub endpoint of this same plugin (app.prefix is its /indieweb)
  const micropub = createMicropubClient({ app, tokens: deps.tokens, baseUrl, endpointPath: `${app.prefix}/micropub/` });
  writeScriptRoute(app);

  await app.register(
    async (pages) => {
      guardAdminPages(pages, {
        accounts: deps.accounts,
        csrf: deps.csrf,
        hasAccountPage: users !== null,
        countHeld: (userId) => deps.webmentionModeration.countHeld(userId),
      });
      dashboardPage(pages, {
        micropub,
        webmentions: deps.webmentions,
        handler: deps.contentHandler ?? { kind: 'memory', setting: null, pages: false },
        baseUrl,
      });
      profilePage(pages, { profiles: deps.profiles, baseUrl });
      appsPage(pages, { tokens: deps.tokens, clientInfo: deps.clientInfo, baseUrl });
      webmentionsPage(pages, { webmentions: deps.webmentions, moderation: deps.webmentionModeration, baseUrl });
      if (deps.webmentionSending !== undefined) webmentionsSentPage(pages, deps.webmentionSending);
      webmentionSettingsPage(pages, {
        readTokens: deps.webmentionTokens,
        moderation: deps.webmentionModeration,
        webhooks: deps.webhooks,
        baseUrl,
      });
      mediaPage(pages, { media: deps.media, upload: deps.mediaUpload, limits: deps.mediaLimits, csrf: deps.csrf, baseUrl });
      writeArea(pages, { micropub, csrf: deps.csrf, uploads: deps.uploads, outbound: deps.outbound, baseUrl });
      setupPage(pages, { doctor: deps.doctor, baseUrl });
      syndicationPage(pages, { syndication: deps.syndication, baseUrl });
      if (users !== null && deps.passkeys !== null && deps.proofs !== null) {
        // session freshness: account changes need a proof of the last 5 minutes (issue 28 F6)
        const confirm = createConfirmStep({
          users,
          passkeys: deps.passkeys,
          proofs: deps.proofs,
          signInThrottle: deps.signInThrottle,
          baseUrl,
        });
        confirm.routes(pages);
        accountPage(pages, { users, passkeys: deps.passkeys, proofs: deps.proofs, confirm, signInThrottle: deps.signInThrottle, baseUrl });
        passkeysPage(pages, { users, passkeys: deps.passkeys, confirm, baseUrl });
      }
    },
    { prefix: '/admin' },
  );
}

/** Adds the guard to every route of `app` (an encapsulated scope holding only admin pages). */
function guardAdminPages(
  app: FastifyInstance,
  deps: { accounts: Accounts; csrf: Csrf; hasAccountPage: boolean; countHeld: (userId: string) => Promise<number> },
): void {
  const { accounts, csrf, hasAccountPage } = deps;
  app.decorateRequest('adminSession', null);
  app.addHook('preHandler', async (request, reply) => {
    const user = await accounts.currentUser(request);
    if (user === null || !user.isActive) {
      // a form posted after the session ended comes back to the admin home, not to the POST's URL
      const path = request.method === 'GET' ? request.url : `${ADMIN}/`;
      await reply.redirect(accounts.loginUrl(path), 303);
      return reply;
    }
    // the navigation shows how many mentions wait for approval; a page that only redirects does not need it
    const heldMentions = request.method === 'GET' ? await deps.countHeld(user.id) : 0;
    request.adminSession = { user, csrf: csrf.tokenFor(request, reply, user.id), hasAccountPage, heldMentions };
    // a multipart form (a Write form with a file) is streamed by its route, which checks the token before storing the file
    if (request.method === 'POST' && takesMultipartForm(request)) return undefined;
    if (request.method === 'POST' && !csrf.isValid(request, user.id, readParam(request.body, CSRF_FIELD))) {
      request.log.info('admin form rejected: csrf token missing or expired');
      await sendFormExpired(request, reply);
      return reply;
    }
    return undefined;
  });
}

/** A multipart POST to a route that reads such forms itself (`config.csrfInMultipart`). */
function takesMultipartForm(request: FastifyRequest): boolean {
  const config = request.routeOptions.config as { csrfInMultipart?: unknown };
  return config.csrfInMultipart === true && (request.headers['content-type'] ?? '').toLowerCase().startsWith('multipart/form-data');
}
