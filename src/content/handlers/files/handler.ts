/**
 * The built-in `files` handler: every entry is one Markdown file in a static
 * site's source (Hugo, Eleventy, Jekyll, Astro…), properties in front matter
 * and `content` as the body, optionally committed and pushed with git.
 *
 * Layout: each account has its own site directory, `{contentDir}/{user}/` by
 * default (owned through `.indiestack/owner`, so two accounts can never share
 * one), holding the files at their path templates
 * (`content/notes/{yyyy}/{MM}/{slug}.md`). The entry's URL comes from the URL
 * template on the account's site URL (`{site}/notes/{yyyy}/{MM}/{slug}/`).
 * Deleted entries move to `.indiestack/trash/` (ignored by git), from where
 * undelete restores them.
 *
 * This module maps Micropub onto the parts beside it: `site-directory.ts`
 * (ownership, containment, atomic writes, trash), `site-posts.ts` (URL ↔
 * file), `templates.ts` and `config/files-template-rules.ts` (post types, slugs, paths and
 * URLs), `front-matter.ts` (properties ↔ file text) and `git.ts`.
 * @see docs/publishing-static-sites.md
 * @module
 */
import path from 'node:path';
import {
  DEFAULT_FILES_GIT_REMOTE,
  DEFAULT_FILES_PATH_TEMPLATE,
  DEFAULT_FILES_URL_TEMPLATE,
  DEFAULT_FILES_USER_DIR,
  type Config,
  type FilesFrontMatterFormat,
  type FilesGitMode,
  type FilesTemplates,
} from '../../../config/config.js';
import type { HostUser } from '../../../contracts/accounts.js';
import { HandlerValueError } from '../../../contracts/handler-errors.js';
import type { MicropubHandler } from '../../../contracts/micropub-handler.js';
import type {
  MicropubConfig,
  MicropubEntry,
  MicropubProperties,
  NewEntry,
  Page,
  PageRequest,
  PostType,
  UpdateOperations,
} from '../../../contracts/micropub-types.js';
import { systemClock, type Clock } from '../../../core/clock.js';
import { applyListParams, matchesFilter } from '../../../core/list-params.js';
import { applyUpdate, BUILT_IN_POST_TYPES, BUILT_IN_QUERIES } from '../entry-rules.js';
import { assertStorable, renderPost, type PostDocument } from './front-matter.js';
import { commitMessage, createGitPublisher, type FilesHandlerLog, type GitRepositoryStatus } from './git.js';
import { fileOf, moveToTrash, openSiteDirectory, restoreFromTrash, writeNew, writeReplace } from './site-directory.js';
import { createSitePosts, type Site } from './site-posts.js';
import {
  assertUserDirTemplate,
  createLayouts,
  dateValues,
  detectPostType,
  firstString,
  MAX_SLUG_LENGTH,
  randomSlug,
  sanitizeSlug,
  userDirectory,
  userSegment,
  type TemplateValues,
} from './templates.js';
import { trimEndOf } from '../../../core/text.js';

export type { FilesHandlerLog, GitRepositoryStatus };

export interface FilesHandlerOptions {
  /** indiestack's base URL; sites of accounts without a profile URL live under `{baseUrl}/sites/{user}`. */
  readonly baseUrl: string;
  /** Root of every account's site directory (absolute). */
  readonly contentDir: string;
  /** @defaultValue `{user}` */
  readonly userDir?: string;
  /** Site URL template (`{user}` allowed); unset or null: the account's first profile URL. */
  readonly siteUrl?: string | null;
  /** Format of new files; existing files keep theirs. @defaultValue `yaml` */
  readonly frontMatter?: FilesFrontMatterFormat;
  /** @defaultValue `content/{section}/{yyyy}/{MM}/{slug}.md` ↔ `{site}/{section}/{yyyy}/{MM}/{slug}/` */
  readonly defaultTemplates?: FilesTemplates;
  /** Per post type overrides of {@link FilesHandlerOptions.defaultTemplates}. */
  readonly templates?: Readonly<Record<string, FilesTemplates>>;
  /** @defaultValue `commit` */
  readonly git?: FilesGitMode;
  /** @defaultValue `origin` */
  readonly gitRemote?: string;
  /** The whole environment git runs with; unset means this process's environment. */
  readonly gitEnv?: Readonly<Record<string, string | undefined>>;
  readonly clock?: Clock;
  /** Receives failed commits and pushes (warn/error); the Fastify or pino logger fits. */
  readonly log?: FilesHandlerLog;
}

/** The files handler: the whole handler contract plus git status and a way to wait for background pushes. */
export interface FilesHandler extends MicropubHandler {
  listEntries(user: HostUser, page: PageRequest): Promise<Page<MicropubEntry>>;
  /** Repositories used so far: uncommitted files, a pending push and the last git error. */
  gitStatus(): readonly GitRepositoryStatus[];
  /** Resolves once every queued write and push has finished. */
  idle(): Promise<void>;
}

function assertTypes(type: readonly string[]): void {
  if (type.length === 0 || !type.every((name) => /^h-[a-z0-9-]{1,40}$/.test(name)))
    throw new HandlerValueError('entry type must be h-* names');
}

/** Creates the handler; throws when the templates or the user directory template are unusable. */
export function createFilesHandler(options: FilesHandlerOptions): FilesHandler {
  const contentDir = path.resolve(options.contentDir);
  const userDirTemplate = options.userDir ?? DEFAULT_FILES_USER_DIR;
  assertUserDirTemplate(userDirTemplate);
  const layouts = createLayouts(
    options.defaultTemplates ?? { path: DEFAULT_FILES_PATH_TEMPLATE, url: DEFAULT_FILES_URL_TEMPLATE },
    options.templates ?? {},
  );
  const format = options.frontMatter ?? 'yaml';
  const clock = options.clock ?? systemClock;
  const log = options.log;
  const posts = createSitePosts(layouts, log);
  const git = createGitPublisher({
    mode: options.git ?? 'commit',
    remote: options.gitRemote ?? DEFAULT_FILES_GIT_REMOTE,
    boundary: contentDir,
    ...(options.gitEnv === undefined ? {} : { env: options.gitEnv }),
    ...(log === undefined ? {} : { log }),
  });

  // one write at a time: slug choice, exclusive creation and git's index stay consistent
  let tail: Promise<unknown> = Promise.resolve();
  function exclusive<T>(task: () => Promise<T>): Promise<T> {
    const run = tail.then(task, task);
    tail = run.catch(() => undefined);
    return run;
  }
  function pushLater(): void {
    void exclusive(() => git.push()).catch((error: unknown) => log?.error({ err: error }, 'files handler: push failed'));
  }

  function siteUrlOf(user: HostUser): string {
    if (options.siteUrl !== undefined && options.siteUrl !== null)
      return trimEndOf(options.siteUrl.replaceAll('{user}', encodeURIComponent(userSegment(user))), '/');
    const me = user.me[0];
    if (me !== undefined) {
      try {
        const url = new URL(me);
        return `${url.origin}${trimEndOf(url.pathname, '/')}`;
      } catch {
        // an unparseable profile URL falls back to a site under indiestack's base URL
      }
    }
    return `${trimEndOf(options.baseUrl, '/')}/sites/${encodeURIComponent(userSegment(user))}`;
  }

  /** The account's site; null when it has none yet and `claim` is false. Throws when the directory belongs to another account. */
  async function siteOf(user: HostUser, claim: boolean): Promise<Site | null> {
    const directory = await openSiteDirectory(userDirectory(contentDir, userDirTemplate, user), user.id, claim);
    return directory === null ? null : { ...directory, url: siteUrlOf(user) };
  }

  async function commit(
    site: Site,
    files: readonly string[],
    verb: string,
    postType: string,
    properties: MicropubProperties,
    slug: string,
  ): Promise<void> {
    const committed = await git.commit(site.dir, files, commitMessage(verb, postType, properties, slug));
    if (committed) pushLater();
  }

  const toEntry = (url: string, document: Pick<PostDocument, 'type' | 'properties'>): MicropubEntry => ({
    url,
    type: [...document.type],
    properties: structuredClone(document.properties),
  });

  return {
    /** `create_entry`: writes one new file; the slug is `mp-slug`, else `name`, else a short id, with `-2`, `-3`… on collision. */
    async createEntry(entry: NewEntry, user: HostUser): Promise<MicropubEntry> {
      assertTypes(entry.type);
      const properties = Object.fromEntries(Object.entries(structuredClone(entry.properties)).filter(([name]) => name !== 'mp-slug'));
      const now = clock.now();
      if (properties.published === undefined) properties.published = [now.toISOString().replace(/\.\d{3}Z$/, 'Z')];
      assertStorable(properties, format);
      const postType = detectPostType(entry.type, properties);
      const layout = layouts.get(postType)!;
      const base =
        sanitizeSlug(firstString(entry.properties['mp-slug']) ?? '') || sanitizeSlug(firstString(properties.name) ?? '') || randomSlug();
      const dates = dateValues(firstString(properties.published), now);
      return exclusive(async () => {
        const site = (await siteOf(user, true))!;
        for (let attempt = 1; attempt <= 1000; attempt++) {
          const slug = attempt === 1 ? base : `${sanitizeSlug(base, MAX_SLUG_LENGTH - String(attempt).length - 1)}-${attempt}`;
          const values: TemplateValues = { ...dates, slug };
          const relative = layout.filePath(values);
          const url = layout.url(site.url, values);
          if (await posts.isTaken(site, url, relative)) continue;
          const file = fileOf(site, relative, 'live');
          const text = renderPost({ type: entry.type, postType, slug, properties, siteKeys: {} }, format);
          if (!(await writeNew(site, file, text))) continue;
          await commit(site, [file], 'Create', postType, properties, slug);
          return toEntry(url, { type: entry.type, properties });
        }
        throw new Error('files handler: no free slug after 1000 attempts');
      });
    },

    /** `get_entry`: the live file the URL maps to, or null. */
    async getEntry(url: string, user: HostUser): Promise<MicropubEntry | null> {
      const site = await siteOf(user, false);
      const found = site === null ? null : await posts.find(site, url, 'live');
      return found === null ? null : toEntry(found.url, found.document);
    },

    /** `update_entry`: rewrites the file in place; path and URL never change. */
    async updateEntry(url: string, operations: UpdateOperations, user: HostUser): Promise<MicropubEntry> {
      return exclusive(async () => {
        const site = await siteOf(user, false);
        const found = site === null ? null : await posts.find(site, url, 'live');
        if (site === null || found === null) throw new HandlerValueError('no such entry');
        // structuredClone: a value that is not JSON-shaped (a host calling the handler directly) reaches the front matter as it is
        const properties = applyUpdate(found.document.properties, operations, structuredClone);
        const fileFormat = found.document.format ?? format;
        assertStorable(properties, fileFormat);
        const text = renderPost(
          {
            type: found.document.type,
            postType: found.layout.type,
            slug: found.values.slug,
            properties,
            siteKeys: found.document.siteKeys,
          },
          fileFormat,
        );
        await writeReplace(site, found.file, text);
        await commit(site, [found.file], 'Update', found.layout.type, properties, found.values.slug);
        return toEntry(found.url, { type: found.document.type, properties });
      });
    },

    /** `delete_entry`: moves the file to the site's trash (the tombstone undelete restores). */
    async deleteEntry(url: string, user: HostUser): Promise<void> {
      await exclusive(async () => {
        const site = await siteOf(user, false);
        const found = site === null ? null : await posts.find(site, url, 'live');
        if (site === null || found === null) throw new HandlerValueError('no such entry');
        await moveToTrash(site, found.relative);
        await commit(site, [found.file], 'Delete', found.layout.type, found.document.properties, found.values.slug);
      });
    },

    /** `undelete_entry`: moves the tombstone back to its place. */
    async undeleteEntry(url: string, user: HostUser): Promise<MicropubEntry> {
      return exclusive(async () => {
        const site = await siteOf(user, false);
        const found = site === null ? null : await posts.find(site, url, 'trash');
        if (site === null || found === null) throw new HandlerValueError('no such deleted entry');
        const file = await restoreFromTrash(site, found.relative);
        await commit(site, [file], 'Undelete', found.layout.type, found.document.properties, found.values.slug);
        return toEntry(found.url, found.document);
      });
    },

    /** `get_config`: the built-in post types and queries, and the categories found in the account's files. */
    async getConfig(user: HostUser): Promise<MicropubConfig> {
      const site = await siteOf(user, false);
      const categories = new Set<string>();
      for (const entry of site === null ? [] : await posts.listLive(site)) {
        for (const category of entry.properties.category ?? []) if (typeof category === 'string') categories.add(category);
      }
      return {
        'syndicate-to': [],
        categories: [...categories].sort(),
        channels: [],
        'post-types': structuredClone(BUILT_IN_POST_TYPES) as PostType[],
        q: [...BUILT_IN_QUERIES],
      };
    },

    /** `list_entries`: the account's live files, newest first; filter, then offset, then limit. */
    async listEntries(user: HostUser, page: PageRequest): Promise<Page<MicropubEntry>> {
      const site = await siteOf(user, false);
      const entries = site === null ? [] : await posts.listLive(site);
      const items = entries.map(({ url, type, properties }) => ({
        url,
        type,
        // spec: items lacking a url property get one
        properties: properties.url === undefined ? { ...properties, url: [url] } : properties,
      }));
      const listed = applyListParams(
        items.map(({ type, properties }) => ({ type, properties })),
        page,
      );
      const total = items.filter((item) => matchesFilter({ type: item.type, properties: item.properties }, page.filter)).length;
      const urls = new Map(items.map((item) => [item.properties, item.url]));
      return {
        items: listed.map((item) => ({ url: urls.get(item.properties) ?? String(item.properties.url?.[0] ?? ''), ...item })),
        total,
      };
    },

    /** The site's host: a static site's posts live there, not on indiestack's host. */
    entryHosts(user: HostUser): readonly string[] {
      try {
        return [new URL(siteUrlOf(user)).host];
      } catch {
        return [];
      }
    },

    gitStatus: () => git.status(),

    async idle(): Promise<void> {
      // a write queues its push before it returns, so this runs after both
      await exclusive(async () => undefined);
    },
  };
}

/** The handler `INDIEWEB_MICROPUB_HANDLER=files` selects, from the `INDIEWEB_FILES_*` settings. */
export function createFilesHandlerFromConfig(config: Config, log?: FilesHandlerLog): FilesHandler {
  const files = config.files;
  return createFilesHandler({
    baseUrl: config.baseUrl,
    contentDir: files.contentDir,
    userDir: files.userDir,
    siteUrl: files.siteUrl,
    frontMatter: files.frontMatter,
    defaultTemplates: files.defaultTemplates,
    templates: files.templates,
    git: files.git,
    gitRemote: files.gitRemote,
    ...(log === undefined ? {} : { log }),
  });
}
