/**
 * The answer to a URL no route matches: a styled page for a browser (it
 * asks for HTML), our JSON error for everything else
 * (`{"error":"not_found","error_description":"…"}`). Never the framework's
 * own wording.
 * @module
 */
import accepts from 'accepts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { html, sendPage } from './html.js';
import { layout } from './ui/layout.js';
import { sendJson } from './reply.js';

const DESCRIPTION = 'nothing is here: check the address';

/** True when the client ranks HTML above JSON (a browser); `*\/*` or no `Accept` header: JSON. */
function wantsHtml(request: FastifyRequest): boolean {
  return accepts(request.raw).type(['application/json', 'text/html']) === 'text/html';
}

/** A not-found handler for `setNotFoundHandler`. */
export function notFoundHandler(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (!wantsHtml(request)) return sendJson(reply, 404, { error: 'not_found', error_description: DESCRIPTION });
  return sendPage(reply, 404, {
    title: 'Not found',
    body: layout({
      heading: 'Not found',
      width: 'medium',
      content: html`<p class="lead">There is no page at this address. Check it for a typing mistake, or start again from the home page.</p>
<p><a href="/">The home page</a></p>`,
    }),
  });
}
