/**
 * `GET /indieweb/profile/NAME/`: the public h-card page (with the endpoint
 * links in its head), or JSON on request.
 * @module
 */
import type { FastifyInstance } from 'fastify';
import { html, SafeHtml, sendPage } from '../web/html.js';
import { metadataUrl } from '../indieauth/metadata.js';
import { prefersJson } from '../web/negotiation.js';
import { linkTags, renderHCard } from './template-helpers.js';
import { sendText } from '../web/reply.js';

export async function profileRoutes(app: FastifyInstance): Promise<void> {
  const ctx = app.indieweb;
  const users = ctx.users;
  if (users === null) return;

  app.get<{ Params: { name: string } }>('/profile/:name/', async (request, reply) => {
    const account = await users.findByName(request.params.name);
    if (account === null || !account.isActive) return sendText(reply, 404, 'not found');
    const profile = await ctx.profiles.get({ id: account.id, name: account.name, me: account.me, isActive: account.isActive });
    reply.header('link', `<${metadataUrl(ctx.config.baseUrl)}>; rel="indieauth-metadata"`);
    if (prefersJson(request)) {
      return reply.send({ name: account.name, me: account.me, h_card: profile.hCard, profile: { name: profile.name, photo_url: profile.photoUrl, url: profile.url } });
    }
    return sendPage(reply, 200, {
      title: profile.name ?? account.name,
      head: new SafeHtml(linkTags(ctx.config.baseUrl)),
      body: html`<main>${new SafeHtml(renderHCard(profile))}</main>`,
    });
  });
}
