/**
 * The frame of every admin page: navigation with sign-out, the heading, the
 * notice of what was just done (`?done=`), and the redirect back after a form.
 * @module
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { readParam } from '../core/params.js';
import { html, sendPage, type SafeHtml } from '../web/html.js';
import { buttonForm } from '../web/ui/csrf-form.js';
import { layout, navigation, type LayoutWidth, type NavLink } from '../web/ui/layout.js';
import { notice } from '../web/ui/messages.js';
import { sessionOf } from './session.js';

export const ADMIN = '/indieweb/admin';

/** What `?done=` may say after a form; anything else shows nothing. */
const NOTICES: Readonly<Record<string, string>> = {
  saved: 'Profile saved.',
  revoked: 'Access revoked.',
  reprocessed: 'Webmention checked again.',
  spam: 'Webmention marked as spam.',
  deleted: 'Deleted.',
  uploaded: 'Uploaded: the file is first in the list below.',
  password: 'Password changed. Other sessions were signed out.',
  token: 'New API token made. The old one no longer works.',
  approved: 'Webmention approved.',
  allowed: 'Webmention approved; its domain is allowed from now on.',
  rejected: 'Webmention rejected.',
  'rule-added': 'Rule added.',
  'rule-removed': 'Rule removed.',
  webhook: 'Webhook saved.',
  sent: 'Delivery queued.',
  'passkey-added': 'Passkey added.',
  'passkey-removed': 'Passkey removed.',
  'passwordless-on': 'Your password no longer signs you in: only your passkeys do.',
  'passwordless-off': 'Your password signs you in again.',
  published: 'Published.',
  'draft-saved': 'Draft saved: it is not published.',
  updated: 'Changes saved.',
  unchanged: 'Nothing was changed: the form was the same as the post.',
  'post-deleted': 'Post deleted.',
  restored: 'Post restored.',
  'target-added': 'Target added: the service accepted the credentials.',
  'target-removed': 'Target removed. Copies already made stay where they are.',
  'syndication-retried': 'Queued again.',
};
export type Done = keyof typeof NOTICES;

const PAGES: readonly NavLink[] = [
  { href: `${ADMIN}/write/`, label: 'Write' },
  { href: `${ADMIN}/posts/`, label: 'Posts' },
  { href: `${ADMIN}/profile/`, label: 'Profile' },
  { href: `${ADMIN}/apps/`, label: 'Apps' },
  { href: `${ADMIN}/webmentions/`, label: 'Webmentions' },
  { href: `${ADMIN}/media/`, label: 'Media' },
  { href: `${ADMIN}/syndication/`, label: 'Syndication' },
  { href: `${ADMIN}/setup/`, label: 'Check my setup' },
];
const ACCOUNT: NavLink = { href: `${ADMIN}/account/`, label: 'Account' };
const PASSKEYS: NavLink = { href: `${ADMIN}/passkeys/`, label: 'Passkeys' };

export interface AdminPage {
  readonly title: string;
  readonly content: SafeHtml;
  /** @defaultValue 200 */
  readonly status?: number;
  /** Our scripts the page loads, and what they may fetch (see `PageOptions`). */
  readonly scripts?: readonly string[];
  readonly connect?: readonly string[];
  /** @defaultValue 'wide' (see `layout`) */
  readonly width?: LayoutWidth;
}

export function sendAdminPage(request: FastifyRequest, reply: FastifyReply, page: AdminPage): FastifyReply {
  const session = sessionOf(request);
  const done = readParam(request.query, 'done');
  const message = done !== undefined && Object.hasOwn(NOTICES, done) ? NOTICES[done] : undefined;
  const pages = PAGES.map((link) =>
    link.href === `${ADMIN}/webmentions/` && session.heldMentions > 0
      ? { href: `${ADMIN}/webmentions/?approval=held`, label: `Webmentions (${session.heldMentions} waiting)` }
      : link,
  );
  const links = session.hasAccountPage ? [...pages, PASSKEYS, ACCOUNT] : pages;
  const path = request.url.split('?')[0] ?? '';
  const nav = navigation({
    links,
    current:
      links.find((link) => link.href.split('?')[0] === path)?.href ??
      links.find((link) => path.startsWith(link.href.split('?')[0]!.replace(/\/$/, '')))?.href,
    end: buttonForm({ action: '/indieweb/logout/', csrf: session.csrf, label: 'Sign out' }),
  });
  return sendPage(reply, page.status ?? 200, {
    title: page.title,
    ...(page.scripts === undefined ? {} : { scripts: page.scripts }),
    ...(page.connect === undefined ? {} : { connect: page.connect }),
    body: layout({
      nav,
      heading: page.title,
      message: message === undefined ? '' : notice(message),
      content: page.content,
      ...(page.width === undefined ? {} : { width: page.width }),
    }),
  });
}

/** 303 to an admin page (`path` below /indieweb/admin) telling what was done. */
export function redirectDone(reply: FastifyReply, baseUrl: string, path: string, done: Done): FastifyReply {
  return reply.redirect(`${baseUrl}${ADMIN}${path}?done=${done}`, 303);
}
