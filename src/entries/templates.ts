/**
 * The templates of the entry pages, and how a site replaces them: an object
 * with any of `document`, `entry`, `home`, `gone` and `stylesheet`; what it
 * leaves out stays built in. Standalone: `INDIEWEB_ENTRY_TEMPLATES` names a
 * module exporting that object; plugin mode: the `entryPages.templates`
 * option. Each function gets the data and the built-in markup of its parts
 * (already escaped, microformats included) and returns HTML: a replacement is
 * trusted code and escapes what it adds itself (`escapeHtml`).
 * @see docs/entry-pages.md
 * @module
 */
import type { ProfileRecord } from '../storage/repositories/profiles.js';
import { escapeHtml, html, type SafeHtml } from '../web/html.js';
import type { EntryRow } from './entry-source.js';
import type { EntryMentions } from './mentions.js';
import { ENTRY_STYLESHEET } from './style.js';

/** The owner of the pages, as templates see it. */
export interface OwnerView {
  /** The account name (first path segment). */
  readonly name: string;
  /** The profile's name, else the account name. */
  readonly displayName: string;
  readonly profile: ProfileRecord;
  readonly homeUrl: string;
  readonly atomUrl: string;
  readonly jsonFeedUrl: string;
}

export interface DocumentView {
  /** Plain text, for `<title>`. */
  readonly title: string;
  /** Markup for `<head>`: the stylesheet, feed alternates, webmention and IndieAuth endpoint links. */
  readonly head: string;
  /** Markup of the page's main content (from `entry`, `home` or `gone`). */
  readonly body: string;
  readonly owner: OwnerView;
}

export interface EntryPageView {
  readonly entry: EntryRow;
  readonly owner: OwnerView;
  readonly mentions: EntryMentions;
  /** The built-in markup: `article` is the whole h-entry with `responses` inside it. */
  readonly parts: { readonly article: string; readonly responses: string };
}

export interface HomePageView {
  readonly owner: OwnerView;
  /** This page of published entries, newest first. */
  readonly entries: readonly EntryRow[];
  /** Published entries in all. */
  readonly total: number;
  /** URLs of the newer and older page (rel=prev and rel=next), when there is one. */
  readonly newerUrl: string | null;
  readonly olderUrl: string | null;
  /** The built-in markup: the owner's `h-card`, the `h-feed` of this page, and the paging links. */
  readonly parts: { readonly card: string; readonly feed: string; readonly pager: string };
}

export interface GonePageView {
  readonly owner: OwnerView;
  /** The deleted entry's URL. */
  readonly url: string;
  readonly deletedAt: string;
  readonly parts: { readonly tombstone: string };
}

export interface EntryTemplates {
  /** The whole document around a page. */
  document(view: DocumentView): string;
  /** The main content of an entry's page. */
  entry(view: EntryPageView): string;
  /** The main content of a user's home page. */
  home(view: HomePageView): string;
  /** The main content of a deleted entry's page (answered 410). */
  gone(view: GonePageView): string;
  /** CSS served at the pages' stylesheet URL (no inline style is allowed). */
  readonly stylesheet: string;
}

/** The built-in document's header: the owner's name linking home, and the feeds. */
function siteHeader(owner: OwnerView): SafeHtml {
  const feeds = html`<nav aria-label="Feeds"><a href="${owner.atomUrl}">Atom</a><a href="${owner.jsonFeedUrl}">JSON Feed</a></nav>`;
  return html`<header class="site-header"><a href="${owner.homeUrl}">${owner.displayName}</a>${feeds}</header>`;
}

export const BUILT_IN_TEMPLATES: EntryTemplates = Object.freeze({
  document: (view: DocumentView) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>${escapeHtml(view.title)}</title>
${view.head}
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<div class="site">
${siteHeader(view.owner)}
<main id="main">
${view.body}
</main>
<footer class="site-footer">Published with indiestack.</footer>
</div>
</body>
</html>
`,
  entry: (view: EntryPageView) => view.parts.article,
  home: (view: HomePageView) => `${view.parts.card}\n${view.parts.feed}\n${view.parts.pager}`,
  gone: (view: GonePageView) => view.parts.tombstone,
  stylesheet: ENTRY_STYLESHEET,
});

const FUNCTIONS = ['document', 'entry', 'home', 'gone'] as const;

/**
 * A replacement merged over the built-in templates. Throws a TypeError
 * naming what is wrong: not an object, an unknown key, a function that is
 * not one, a stylesheet that is not text.
 */
export function resolveEntryTemplates(custom: unknown): EntryTemplates {
  if (custom === undefined || custom === null) return BUILT_IN_TEMPLATES;
  if (typeof custom !== 'object')
    throw new TypeError('entry templates must be an object with document, entry, home, gone and/or stylesheet');
  const record = custom as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!(FUNCTIONS as readonly string[]).includes(key) && key !== 'stylesheet')
      throw new TypeError(`entry templates: unknown key "${key}" (known: ${[...FUNCTIONS, 'stylesheet'].join(', ')})`);
  }
  for (const key of FUNCTIONS) {
    if (record[key] !== undefined && typeof record[key] !== 'function') throw new TypeError(`entry templates: "${key}" must be a function`);
  }
  if (record.stylesheet !== undefined && typeof record.stylesheet !== 'string')
    throw new TypeError('entry templates: "stylesheet" must be a string of CSS');
  const merged = { ...BUILT_IN_TEMPLATES };
  for (const key of FUNCTIONS) if (record[key] !== undefined) Object.assign(merged, { [key]: record[key] });
  if (record.stylesheet !== undefined) Object.assign(merged, { stylesheet: record.stylesheet });
  return Object.freeze(merged);
}
