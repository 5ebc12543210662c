/**
 * Helpers for a host's templates: an escaped h-card, and the `<link>` tags
 * that make a homepage an IndieWeb identity.
 * @module
 */
import { escapeHtml } from '../web/html.js';
import type { HCard } from '../storage/repositories/profiles.js';
import { EMAIL_PROPERTY, URL_PROPERTIES } from './h-card.js';
import { trimEndOf } from '../core/text.js';

export interface HCardProfile {
  readonly hCard: HCard;
}

/** Classes must be plain class names; anything else is dropped. */
function classList(extra: readonly string[]): string {
  return extra.filter((name) => /^[A-Za-z_-][A-Za-z0-9_-]*$/.test(name)).join(' ');
}

/**
 * The profile as escaped h-card HTML that parses back to the same data.
 * @example renderHCard(profile, { extraClasses: ['author'] })
 */
export function renderHCard(profile: HCardProfile, options: { extraClasses?: readonly string[] } = {}): string {
  const card = profile.hCard;
  const extra = classList(options.extraClasses ?? []);
  const lines: string[] = [];
  for (const [name, values] of Object.entries(card)) {
    for (const value of values) {
      const text = escapeHtml(value);
      if (name === 'photo' || name === 'logo') lines.push(`<img class="u-${name}" src="${text}" alt="">`);
      else if (name === EMAIL_PROPERTY) lines.push(`<a class="u-email" href="${text}">${escapeHtml(value.replace(/^mailto:/i, ''))}</a>`);
      else if (URL_PROPERTIES.has(name)) lines.push(`<a class="u-${name}" href="${text}">${text}</a>`);
      else if (name === 'note') lines.push(`<p class="p-note">${text}</p>`);
      else lines.push(`<span class="p-${name}">${text}</span>`);
    }
  }
  return `<div class="h-card${extra === '' ? '' : ` ${extra}`}">\n${lines.join('\n')}\n</div>`;
}

/** The endpoint links to paste into the `<head>` of one's homepage. */
export function linkTags(baseUrl: string): string {
  const base = trimEndOf(baseUrl, '/');
  return [
    `<link rel="indieauth-metadata" href="${escapeHtml(`${base}/.well-known/oauth-authorization-server`)}">`,
    `<link rel="authorization_endpoint" href="${escapeHtml(`${base}/indieweb/auth/`)}">`,
    `<link rel="token_endpoint" href="${escapeHtml(`${base}/indieweb/token/`)}">`,
    `<link rel="micropub" href="${escapeHtml(`${base}/indieweb/micropub/`)}">`,
    `<link rel="webmention" href="${escapeHtml(`${base}/indieweb/webmention/`)}">`,
  ].join('\n');
}
