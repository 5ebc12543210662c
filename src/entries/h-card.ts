/**
 * The owner's h-card on entry pages: small as an entry's `p-author`, whole
 * (every stored h-card property) on the home page. Photos carry the name as
 * `alt`, so they are accessible and parse as `{ value, alt }`.
 * @module
 */
import type { ProfileRecord } from '../storage/repositories/profiles.js';
import { html, type SafeHtml } from '../web/html.js';
import { httpUrl } from './safe-url.js';

const HCARD_URL_PROPERTIES: ReadonlySet<string> = new Set(['url', 'uid', 'key', 'sound']);
const PROPERTY_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

export interface Owner {
  /** The account name, the first segment of its entries' paths. */
  readonly name: string;
  readonly profile: ProfileRecord;
  /** `{baseUrl}/{name}/`. */
  readonly homeUrl: string;
}

export function displayName(owner: Owner): string {
  return owner.profile.name ?? owner.name;
}

/** `p-author h-card`: photo, name linking to the profile URL (or the home page). */
export function renderAuthor(owner: Owner): SafeHtml {
  const name = displayName(owner);
  const photo = httpUrl(owner.profile.photoUrl);
  const url = httpUrl(owner.profile.url) ?? owner.homeUrl;
  const image = photo === null ? '' : html`<img class="u-photo avatar" src="${photo}" alt="${name}">`;
  return html`<span class="p-author h-card author">${image}<a class="p-name u-url" href="${url}">${name}</a></span>`;
}

/** The whole h-card of the home page: every stored property, with the home page as its `u-url` when none is set. */
export function renderProfileCard(owner: Owner): SafeHtml {
  const card = owner.profile.hCard;
  const name = displayName(owner);
  const photos = (card.photo ?? []).map((value) => httpUrl(value)).filter((value): value is string => value !== null);
  const rest: SafeHtml[] = [];
  for (const [property, values] of Object.entries(card)) {
    if (property === 'name' || property === 'photo' || property === 'note' || !PROPERTY_NAME.test(property)) continue;
    for (const value of values) {
      const url = HCARD_URL_PROPERTIES.has(property) || property === 'logo' ? httpUrl(value) : null;
      if (property === 'email') {
        const href = /^mailto:/i.test(value) ? value : `mailto:${value}`;
        rest.push(html`<li><a class="u-email" href="${href}">${value.replace(/^mailto:/i, '')}</a></li>`);
      } else if (property === 'logo' && url !== null) rest.push(html`<li><img class="u-logo" src="${url}" alt="Logo"></li>`);
      else if (url !== null)
        rest.push(html`<li><a class="u-${property}" href="${url}" rel="me">${url.replace(/^https?:\/\//, '').replace(/\/$/, '')}</a></li>`);
      else rest.push(html`<li><span class="p-${property}">${value}</span></li>`);
    }
  }
  const hasUrl = (card.url ?? []).some((value) => httpUrl(value) !== null);
  const home = hasUrl ? '' : html`<li><a class="u-url" href="${owner.homeUrl}">${owner.homeUrl.replace(/^https?:\/\//, '')}</a></li>`;
  return html`<div class="h-card profile">
${photos.map((photo) => html`<img class="u-photo avatar-large" src="${photo}" alt="${name}">`)}
<h1 class="p-name">${name}</h1>
${(card.note ?? []).map((note) => html`<p class="p-note">${note}</p>`)}
<ul class="card-links">${home}${rest}</ul>
</div>`;
}
