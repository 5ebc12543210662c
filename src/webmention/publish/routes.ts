/**
 * `POST /indieweb/webmention/deploy`: the deploy signal a build pipeline
 * sends once the site is live. Authenticated with a bearer token of the
 * account whose site it is, with the scope `deploy`; releases that account's
 * webmentions waiting to be sent. Answers `200 {"released": N}`.
 * @module
 */
import type { FastifyInstance } from 'fastify';
import { BEARER_ERROR_ROWS, type BearerGuard } from '../../indieauth/bearer.js';
import { createErrorHandler } from '../../web/error-handler.js';
import { methodNotAllowed } from '../../web/method-not-allowed.js';
import { sendJson } from '../../web/reply.js';
import { WEBMENTION_ERRORS } from '../responses.js';
import type { PublishSender } from './sender.js';

export const DEPLOY_SCOPE = 'deploy';

export async function deployRoutes(app: FastifyInstance, deps: { bearer: BearerGuard; sender: PublishSender | null }): Promise<void> {
  app.setErrorHandler(createErrorHandler({ ...WEBMENTION_ERRORS, codes: { ...WEBMENTION_ERRORS.codes, ...BEARER_ERROR_ROWS } }));
  app.post('/webmention/deploy', async (request, reply) => {
    const auth = await deps.bearer.authenticate(request);
    deps.bearer.assertScope(auth, DEPLOY_SCOPE);
    // with sending off or immediate nothing waits: the signal is harmless, so a pipeline need not know the setting
    const released = deps.sender === null ? 0 : await deps.sender.deployed(auth.user.id);
    request.log.info({ userId: auth.user.id, released }, 'deploy signal');
    return sendJson(reply.header('cache-control', 'no-store'), 200, { released });
  });
  methodNotAllowed(app, '/webmention/deploy', ['POST']);
}
