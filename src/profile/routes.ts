/**
 * `GET /indieweb/profile/NAME/`: the public h-card page (with the endpoint
 * links in its head), or JSON on request.
 * @module
 */
import type { FastifyInstance } from 'fastify';
import type { UserService } from '../accounts/user-service.js';
import { html, SafeHtml, sendPage } from '../web/html.js';
import { layout } from '../web/ui/layout.js';
import { metadataUrl } from '../indieauth/metadata.js';
import { prefersJson } from '../web/negotiation.js';
import type { ProfileService } from './service.js';
import { profileCard } from './page.js';
import { linkTags } from './template-helpers.js';
import { sendText } from '../web/reply.js';

export interface ProfileRoutesDeps {
  readonly users: UserService;
  readonly profiles: ProfileService;
  readonly baseUrl: string;
  /** The user's posts are served at `BASE_URL/NAME/` (docs/entry-pages.md): the profile links its home and feeds. */
  readonly entryPages?: boolean;
}

/** Where the user's posts are: their home (h-card and h-feed) and its feeds. */
function entryHomeLinks(baseUrl: string, name: string): SafeHtml {
  const home = `${baseUrl}/${encodeURIComponent(name)}/`;
  const atom = html`<a href="${home}feed.atom" type="application/atom+xml">Atom</a>`;
  const jsonFeed = html`<a href="${home}feed.json" type="application/feed+json">JSON Feed</a>`;
  return html`<p class="entry-home">Posts: <a href="${home}">${home}</a> · feeds: ${atom}, ${jsonFeed}</p>`;
}

export async function profileRoutes(app: FastifyInstance, deps: ProfileRoutesDeps): Promise<void> {
  const { users, profiles, baseUrl } = deps;

  app.get<{ Params: { name: string } }>('/profile/:name/', async (request, reply) => {
    const account = await users.findByName(request.params.name);
    if (account === null || !account.isActive) return sendText(reply, 404, 'not found');
    const profile = await profiles.get({ id: account.id, name: account.name, me: account.me, isActive: account.isActive });
    reply.header('link', `<${metadataUrl(baseUrl)}>; rel="indieauth-metadata"`);
    if (prefersJson(request)) {
      return reply.send({
        name: account.name,
        me: account.me,
        h_card: profile.hCard,
        profile: { name: profile.name, photo_url: profile.photoUrl, url: profile.url },
      });
    }
    return sendPage(reply, 200, {
      title: profile.name ?? account.name,
      head: new SafeHtml(linkTags(baseUrl)),
      body: layout({
        content:
          deps.entryPages === true
            ? html`${profileCard(profile.hCard, account.name)}${entryHomeLinks(baseUrl, account.name)}`
            : profileCard(profile.hCard, account.name),
        className: 'profile-page',
      }),
    });
  });
}
