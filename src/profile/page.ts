/**
 * The public profile page's content: the h-card laid out for people (the
 * photo, the name as the heading, the note, the links) and still parsing
 * back to exactly the stored data.
 * @module
 */
import type { HCard } from '../storage/repositories/profiles.js';
import { html, type SafeHtml } from '../web/html.js';
import { EMAIL_PROPERTY, URL_PROPERTIES } from './h-card.js';

/** Properties the layout places itself; every other one is listed under the note. */
const PLACED: ReadonlySet<string> = new Set(['name', 'photo', 'note', 'url', EMAIL_PROPERTY]);

/** Readable names of the usual other properties; anything else is shown by its own name. */
const LABELS: Readonly<Record<string, string>> = {
  nickname: 'Nickname',
  org: 'Organisation',
  'job-title': 'Job',
  role: 'Role',
  locality: 'Place',
  region: 'Region',
  'country-name': 'Country',
  pronouns: 'Pronouns',
  pronoun: 'Pronouns',
  tel: 'Phone',
  logo: 'Logo',
  uid: 'Identifier',
  key: 'Key',
  sound: 'Name said aloud',
};

function otherProperty(name: string, value: string): SafeHtml {
  const label = LABELS[name] ?? name;
  const shown = URL_PROPERTIES.has(name)
    ? html`<a class="u-${name}" href="${value}">${value}</a>`
    : html`<span class="p-${name}">${value}</span>`;
  return html`<li><span class="muted">${label}:</span> ${shown}</li>`;
}

/** The h-card of `accountName`'s profile page (the heading falls back to the account name). */
export function profileCard(card: HCard, accountName: string): SafeHtml {
  const [name, ...moreNames] = card.name ?? [];
  const photos = (card.photo ?? []).map(
    (photo, index) => html`<img class="u-photo" src="${photo}" alt="" width="128" height="128"${index === 0 ? '' : html` loading="lazy"`}>`,
  );
  const heading = name === undefined ? html`<h1>${accountName}</h1>` : html`<h1 class="p-name">${name}</h1>`;
  const notes = (card.note ?? []).map((note) => html`<p class="p-note">${note}</p>`);
  const links = [
    ...(card.url ?? []).map(
      (url) => html`<li><a class="u-url" rel="me" href="${url}">${url.replace(/^https?:\/\//, '').replace(/\/$/, '')}</a></li>`,
    ),
    ...(card[EMAIL_PROPERTY] ?? []).map((email) => html`<li><a class="u-email" href="${email}">${email.replace(/^mailto:/i, '')}</a></li>`),
  ];
  const others = Object.entries(card)
    .filter(([property]) => !PLACED.has(property))
    .flatMap(([property, values]) => values.map((value) => otherProperty(property, value)));
  return html`<article class="h-card profile-card">${photos.length === 0 ? '' : html`<div class="photos">${photos}</div>`}<div>
${heading}${moreNames.map((more) => html`<p class="p-name">${more}</p>`)}
${notes}
${links.length === 0 ? '' : html`<ul class="links" aria-label="Links">${links}</ul>`}
${others.length === 0 ? '' : html`<ul class="details" aria-label="More about ${name ?? accountName}">${others}</ul>`}
</div></article>`;
}
