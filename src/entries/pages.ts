/**
 * The rules of the entry pages: whose page a path is, which entry a reader
 * may see (`core/visibility.ts`: published ones; a deleted one is gone;
 * drafts, private ones and another user's are not found, exactly like an
 * unknown path; unlisted ones only at their URL), and the page each answer
 * renders. The home page and the feeds show what the repository lists, which
 * is the same rule in SQL: its count and cursors never see an entry that is
 * not listed.
 * @module
 */
import type { HostUser } from '../contracts/accounts.js';
import { isEntryVisible } from '../core/visibility.js';
import type { ProfileService } from '../profile/service.js';
import type { WebmentionRecord } from '../storage/repositories/webmentions.js';
import { headMarkup } from './document.js';
import type { EntryCursor, EntryRow, EntrySource } from './entry-source.js';
import { FEED_SIZE } from './feeds.js';
import type { Owner } from './h-card.js';
import { renderProfileCard } from './h-card.js';
import { entryTitle, renderEntryArticle } from './h-entry.js';
import { renderFeed, renderPager, renderTombstone } from './home.js';
import { groupMentions, renderMentions } from './mentions.js';
import { encodeCursor, homePath, type EntryPath } from './paths.js';
import type { EntryTemplates, OwnerView } from './templates.js';
import { trimEndOf } from '../core/text.js';

/** Entries on one page of a home page. */
export const PAGE_SIZE = 20;
/** Most mentions read for one entry page (the newest); mentions.ts shows at most 50 of each kind of them. */
export const MAX_MENTIONS = 200;

/** A rendered page: what routes send. */
export interface RenderedPage {
  readonly status: 200 | 410;
  readonly title: string;
  readonly head: string;
  readonly body: string;
  readonly owner: OwnerView;
}

export type EntryAnswer =
  | { readonly kind: 'page'; readonly page: RenderedPage }
  | { readonly kind: 'redirect'; readonly location: string }
  | { readonly kind: 'not-found' };

export interface EntryPagesDeps {
  readonly entries: EntrySource;
  /** The active account of this name (exact spelling), or null. */
  readonly findUserByName: (name: string) => Promise<HostUser | null>;
  /** The account of this id, or null: whose an entry at a path without a user name is (the in-memory handler's). */
  readonly findUserById?: (id: string) => Promise<HostUser | null>;
  readonly profiles: Pick<ProfileService, 'get'>;
  /** The public mentions of a target URL, newest first (webmention/service.ts `listPublic`: what a visitor may see). */
  readonly mentions: (target: string) => Promise<readonly WebmentionRecord[]>;
  /** How many public mentions of a target there are by type; the headings and "and N more" say these when given (the page reads at most the newest few hundred). */
  readonly countMentions?: (target: string) => Promise<Record<string, number>>;
  readonly baseUrl: string;
  /** The S3 bucket's public URL when indiestack answers the sized copies of the photos in it (media/s3-variants.ts); null otherwise. */
  readonly photoBucketUrl?: string | null;
  readonly templates: EntryTemplates;
  readonly stylesheetVersion: string;
}

export type EntryPages = ReturnType<typeof createEntryPages>;

export function createEntryPages(deps: EntryPagesDeps) {
  const { entries, templates } = deps;
  const base = trimEndOf(deps.baseUrl, '/');
  // spelt as URLs parse (host in lower case, no default port), as the photo URLs are compared
  const bucketUrl = deps.photoBucketUrl ?? null;
  const bucket = bucketUrl === null ? null : { bucketUrl: trimEndOf(new URL(`${trimEndOf(bucketUrl, '/')}/`).href, '/'), baseUrl: base };

  async function ownerNamed(name: string): Promise<{ user: HostUser; view: OwnerView } | null> {
    const user = await deps.findUserByName(name);
    if (user === null || user.name !== name) return null;
    return ownerOf(user);
  }

  /** An active account as the pages show it, or null. */
  async function ownerOf(user: HostUser | null): Promise<{ user: HostUser; view: OwnerView } | null> {
    if (user === null || !user.isActive) return null;
    const profile = await deps.profiles.get(user);
    const homeUrl = `${base}${homePath(user.name)}`;
    return {
      user,
      view: {
        name: user.name,
        displayName: profile.name ?? user.name,
        profile,
        homeUrl,
        atomUrl: `${homeUrl}feed.atom`,
        jsonFeedUrl: `${homeUrl}feed.json`,
      },
    };
  }

  const asOwner = (view: OwnerView): Owner => ({ name: view.name, profile: view.profile, homeUrl: view.homeUrl });
  const cursorOf = (row: EntryRow): string => encodeCursor({ published: row.published, id: row.id });

  return {
    ownerNamed,

    /** The entry at an exact path: its page, the tombstone (410), a redirect to the canonical spelling, or not found. */
    async entry(path: EntryPath): Promise<EntryAnswer> {
      // a dated path names its user; a flat one (the in-memory handler's) is its entry's owner's
      let owner = path.user === null ? null : await ownerNamed(path.user);
      if (owner === null && path.user !== null) return { kind: 'not-found' };
      const row = await entries.findByPath(path.path);
      if (row === null || row.path !== path.path) return { kind: 'not-found' };
      if (path.user === null) owner = await ownerOf((await deps.findUserById?.(row.userId)) ?? null);
      // the exact path, of this user: never another user's entry, whatever the repository matched
      if (owner === null || row.userId !== owner.user.id || !isEntryVisible(row)) return { kind: 'not-found' };
      // the one spelling: a dated path ends in a slash, a flat one does not
      if (path.slash !== path.path.endsWith('/')) return { kind: 'redirect', location: row.url };
      const head = (canonical: string) => headMarkup(owner.view, { baseUrl: base, stylesheetVersion: deps.stylesheetVersion, canonical });
      if (row.deletedAt !== null) {
        const tombstone = renderTombstone(row.url, row.deletedAt, asOwner(owner.view)).value;
        const body = templates.gone({ owner: owner.view, url: row.url, deletedAt: row.deletedAt, parts: { tombstone } });
        return { kind: 'page', page: { status: 410, title: 'Deleted post', head: head(row.url), body, owner: owner.view } };
      }
      const [records, counts] = await Promise.all([deps.mentions(row.url), deps.countMentions?.(row.url)]);
      const mentions = groupMentions(records, counts);
      const responses = renderMentions(
        mentions,
        `${base}/indieweb/webmention/?target=${encodeURIComponent(row.url)}`,
        new URL(base).origin,
      );
      const article = renderEntryArticle(row, asOwner(owner.view), responses, bucket).value;
      const body = templates.entry({ entry: row, owner: owner.view, mentions, parts: { article, responses: responses.value } });
      return {
        kind: 'page',
        page: { status: 200, title: `${entryTitle(row)} · ${owner.view.displayName}`, head: head(row.url), body, owner: owner.view },
      };
    },

    /** A page of the home page: after none (the newest), `before` (older) or `after` (newer) a cursor; null when nobody has this name. */
    async home(name: string, page: { before?: EntryCursor; after?: EntryCursor }): Promise<RenderedPage | null> {
      const owner = await ownerNamed(name);
      if (owner === null) return null;
      const userId = owner.user.id;
      let shown: EntryRow[];
      let hasNewer: boolean;
      let hasOlder: boolean;
      if (page.after !== undefined) {
        const rows = await entries.listPublishedAfter(userId, { limit: PAGE_SIZE + 1, after: page.after });
        hasNewer = rows.length > PAGE_SIZE;
        shown = hasNewer ? rows.slice(1) : rows;
        hasOlder = true;
      } else {
        const rows = await entries.listPublished(userId, {
          limit: PAGE_SIZE + 1,
          ...(page.before === undefined ? {} : { before: page.before }),
        });
        hasOlder = rows.length > PAGE_SIZE;
        shown = hasOlder ? rows.slice(0, PAGE_SIZE) : rows;
        hasNewer = page.before !== undefined;
      }
      const first = shown[0];
      const last = shown[shown.length - 1];
      const homeUrl = owner.view.homeUrl;
      const newerUrl = !hasNewer ? null : first === undefined ? homeUrl : `${homeUrl}?after=${cursorOf(first)}`;
      const olderUrl = !hasOlder || last === undefined ? null : `${homeUrl}?before=${cursorOf(last)}`;
      // the source lists only listed entries (the rule in SQL), so the count and the cursors never see another kind
      const total = await entries.countPublished(userId);
      const view = asOwner(owner.view);
      const parts = {
        card: renderProfileCard(view).value,
        feed: renderFeed(view, shown, total, bucket).value,
        pager: renderPager(newerUrl, olderUrl).value,
      };
      const body = templates.home({ owner: owner.view, entries: shown, total, newerUrl, olderUrl, parts });
      const head = headMarkup(owner.view, {
        baseUrl: base,
        stylesheetVersion: deps.stylesheetVersion,
        canonical: page.before === undefined && page.after === undefined ? homeUrl : undefined,
        prev: newerUrl,
        next: olderUrl,
      });
      return { status: 200, title: owner.view.displayName, head, body, owner: owner.view };
    },

    /** The newest listed entries for the feeds (the source lists nothing else), with their owner; null when nobody has this name. */
    async feed(name: string): Promise<{ owner: OwnerView; entries: EntryRow[] } | null> {
      const owner = await ownerNamed(name);
      if (owner === null) return null;
      return { owner: owner.view, entries: await entries.listPublished(owner.user.id, { limit: FEED_SIZE }) };
    },
  };
}
