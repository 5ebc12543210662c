/**
 * Entries as IndieWeb pages: the entries of the database handler served at
 * their own URLs (`/{user}/{yyyy}/{MM}/{slug}/`; the in-memory handler's at
 * `/indieweb/entries/{slug}`), each user's home page with
 * the h-card and an h-feed, Atom and JSON Feed, tombstones for deleted
 * entries, and the verified webmentions under each entry.
 * @see docs/entry-pages.md
 * @module
 */
import type { FastifyInstance } from 'fastify';
import type { HostUser } from '../contracts/accounts.js';
import type { ProfileService } from '../profile/service.js';
import type { WebmentionRecord } from '../storage/repositories/webmentions.js';
import { stylesheetHash } from './document.js';
import type { EntrySource } from './entry-source.js';
import { createEntryPages, MAX_MENTIONS, type EntryPages } from './pages.js';
import { entryRoutes } from './routes.js';
import type { EntryTemplates } from './templates.js';

export interface EntriesFeature {
  /** Null when the pages are off. */
  readonly pages: EntryPages | null;
  /** Routes at the root of the site; registers nothing when the pages are off. */
  readonly routes: (app: FastifyInstance) => Promise<void>;
}

export function createEntries(deps: {
  readonly enabled: boolean;
  readonly entries: EntrySource;
  readonly findUserByName: (name: string) => Promise<HostUser | null>;
  /** Whose an entry of the in-memory handler is (its path names no user). */
  readonly findUserById?: (id: string) => Promise<HostUser | null>;
  readonly profiles: Pick<ProfileService, 'get'>;
  /** The verified webmentions of a target, as the webmention service lists them. */
  readonly listMentions: (filter: { status: 'verified'; target: string; limit: number }) => Promise<{ items: readonly WebmentionRecord[] }>;
  /** How many of them there are by type (webmention service `countPublic`); without it the page counts what it read. */
  readonly countMentions?: (target: string) => Promise<Record<string, number>>;
  readonly baseUrl: string;
  /** The S3 bucket whose photos' sized copies indiestack answers (`MediaFeature.photoBucketUrl`), or null. */
  readonly photoBucketUrl?: string | null;
  readonly templates: EntryTemplates;
}): EntriesFeature {
  if (!deps.enabled) return { pages: null, routes: async () => {} };
  const pages = createEntryPages({
    entries: deps.entries,
    findUserByName: deps.findUserByName,
    ...(deps.findUserById === undefined ? {} : { findUserById: deps.findUserById }),
    profiles: deps.profiles,
    mentions: async (target) => (await deps.listMentions({ status: 'verified', target, limit: MAX_MENTIONS })).items,
    ...(deps.countMentions === undefined ? {} : { countMentions: deps.countMentions }),
    baseUrl: deps.baseUrl,
    photoBucketUrl: deps.photoBucketUrl ?? null,
    templates: deps.templates,
    stylesheetVersion: stylesheetHash(deps.templates.stylesheet),
  });
  return {
    pages,
    routes: (app) =>
      entryRoutes(app, {
        pages,
        templates: deps.templates,
        baseUrl: deps.baseUrl,
        ...(deps.entries.pathPrefix === undefined ? {} : { flatEntryPrefix: deps.entries.pathPrefix }),
      }),
  };
}
