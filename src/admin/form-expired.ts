/**
 * The answer to an admin form whose CSRF token is missing, expired or not
 * this browser's: nothing was done.
 * @module
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { html } from '../web/html.js';
import { errorAlert } from '../web/ui/messages.js';
import { sendAdminPage } from './layout.js';

/** 403 "Form expired". */
export function sendFormExpired(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendAdminPage(request, reply, {
    title: 'Form expired',
    content: errorAlert(html`The form expired or did not come from this site. Go back, reload the page and try again.`),
    status: 403,
  });
}
