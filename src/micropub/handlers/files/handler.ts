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
 * @see docs/publishing-static-sites.md
 * @module
 */
import { randomBytes } from 'node:crypto';
import { constants as fsConstants } from 'node:fs';
import { link, lstat, mkdir, open, readdir, readFile, realpath, rename, rmdir, unlink, writeFile } from 'node:fs/promises';
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
import type { MicropubConfig, MicropubEntry, MicropubProperties, NewEntry, Page, PageRequest, PostType, UpdateOperations } from '../../../contracts/micropub-types.js';
import { systemClock, type Clock } from '../../../core/clock.js';
import { applyListParams, matchesFilter } from '../../../core/list-params.js';
import { applyUpdate, BUILT_IN_POST_TYPES, BUILT_IN_QUERIES } from '../entry-rules.js';
import { assertStorable, parsePost, renderPost, type PostDocument } from './front-matter.js';
import { commitSubject, createGitPublisher, type FilesHandlerLog, type GitRepositoryStatus } from './git.js';
import {
  assertUserDirTemplate,
  createLayouts,
  dateValues,
  detectPostType,
  isInside,
  MAX_SLUG_LENGTH,
  randomSlug,
  sanitizeSlug,
  userDirectory,
  userSegment,
  type PostTypeLayout,
  type TemplateValues,
} from './templates.js';

export type { FilesHandlerLog, GitRepositoryStatus };

/** The handler's own folder inside a site directory; git ignores it. */
const STATE_DIR = '.indiestack';
const MAX_WALK_DEPTH = 16;
const READ_CONCURRENCY = 16;

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

interface Site {
  /** Absolute site directory, as configured. */
  readonly dir: string;
  /** The same with symbolic links resolved: every file must lie below it. */
  readonly realDir: string;
  /** Public site URL without a trailing slash. */
  readonly url: string;
}

interface FoundEntry {
  readonly layout: PostTypeLayout;
  readonly values: TemplateValues;
  readonly relative: string;
  readonly file: string;
  readonly document: PostDocument;
  readonly url: string;
}

const isMissing = (error: unknown) => ['ENOENT', 'ENOTDIR', 'ELOOP'].includes((error as NodeJS.ErrnoException).code ?? '');
const firstString = (values: readonly unknown[] | undefined): string | undefined => values?.find((value): value is string => typeof value === 'string' && value.trim() !== '');

/** How much of a name or content the commit label is made from. */
const LABEL_SOURCE_CHARS = 2000;

/** What a commit message calls the entry: its name, the start of its content, the URL it responds to, or its slug. */
function labelOf(properties: MicropubProperties, slug: string): string {
  const content = properties.content?.[0];
  const fields = typeof content === 'object' && content !== null ? (content as Record<string, unknown>) : {};
  // the label needs 50 characters: only the start of the content is looked at, and tags are dropped with an
  // expression that cannot backtrack (`[^<>]`), so `<<<<…` costs one pass instead of quadratic time
  const contentText =
    typeof content === 'string' ? content : typeof fields.value === 'string' ? fields.value : typeof fields.html === 'string' ? fields.html.slice(0, LABEL_SOURCE_CHARS).replace(/<[^<>]*>/g, ' ') : '';
  const label =
    firstString(properties.name) ??
    firstString([contentText]) ??
    firstString(properties['like-of']) ??
    firstString(properties['repost-of']) ??
    firstString(properties['bookmark-of']) ??
    firstString(properties['in-reply-to']) ??
    slug;
  const oneLine = label.slice(0, LABEL_SOURCE_CHARS).replace(/\s+/g, ' ').trim();
  const chars = [...oneLine];
  if (chars.length <= 50) return oneLine;
  const cut = chars.slice(0, 49).join('');
  const space = cut.lastIndexOf(' ');
  return `${space > 30 ? cut.slice(0, space) : cut}…`;
}

function assertTypes(type: readonly string[]): void {
  if (type.length === 0 || !type.every((name) => /^h-[a-z0-9-]{1,40}$/.test(name))) throw new HandlerValueError('entry type must be h-* names');
}

/** Creates the handler; throws when the templates or the user directory template are unusable. */
export function createFilesHandler(options: FilesHandlerOptions): FilesHandler {
  const contentDir = path.resolve(options.contentDir);
  const userDirTemplate = options.userDir ?? DEFAULT_FILES_USER_DIR;
  assertUserDirTemplate(userDirTemplate);
  const layouts = createLayouts(options.defaultTemplates ?? { path: DEFAULT_FILES_PATH_TEMPLATE, url: DEFAULT_FILES_URL_TEMPLATE }, options.templates ?? {});
  const format = options.frontMatter ?? 'yaml';
  const clock = options.clock ?? systemClock;
  const log = options.log;
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
    if (options.siteUrl !== undefined && options.siteUrl !== null) return options.siteUrl.replaceAll('{user}', encodeURIComponent(userSegment(user))).replace(/\/+$/, '');
    const me = user.me[0];
    if (me !== undefined) {
      try {
        const url = new URL(me);
        return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
      } catch {
        // an unparseable profile URL falls back to a site under indiestack's base URL
      }
    }
    return `${options.baseUrl.replace(/\/+$/, '')}/sites/${encodeURIComponent(userSegment(user))}`;
  }

  /** The account's site; null when it has none yet and `claim` is false. Throws when the directory belongs to another account. */
  async function siteOf(user: HostUser, claim: boolean): Promise<Site | null> {
    const dir = userDirectory(contentDir, userDirTemplate, user);
    const ownerFile = path.join(dir, STATE_DIR, 'owner');
    let owner = await readFile(ownerFile, 'utf8').catch((error: unknown) => {
      if (isMissing(error)) return null;
      throw error;
    });
    if (owner === null && claim) {
      await mkdir(path.join(dir, STATE_DIR), { recursive: true });
      await writeFile(path.join(dir, STATE_DIR, '.gitignore'), '*\n', { flag: 'w' });
      try {
        await writeFile(ownerFile, `${user.id}\n`, { flag: 'wx' });
        owner = `${user.id}\n`;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        owner = await readFile(ownerFile, 'utf8');
      }
    }
    // security: two accounts whose names map to one directory never see each other's posts
    if (owner !== null && owner.trim() !== user.id) throw new Error(`files handler: ${dir} belongs to another account`);
    let realDir: string;
    try {
      realDir = await realpath(dir);
    } catch (error) {
      if (isMissing(error) && !claim) return null;
      throw error;
    }
    return { dir, realDir, url: siteUrlOf(user) };
  }

  const fileOf = (site: Site, relative: string, where: 'live' | 'trash') => path.join(site.dir, ...(where === 'trash' ? [STATE_DIR, 'trash'] : []), ...relative.split('/'));

  /** True when the existing part of `dir` resolves inside the site (a symbolic link inside the site cannot lead out of it). */
  async function staysInside(site: Site, dir: string): Promise<boolean> {
    for (let current = dir; ; current = path.dirname(current)) {
      try {
        return isInside(await realpath(current), site.realDir);
      } catch (error) {
        if (!isMissing(error) || current === path.dirname(current)) throw error;
      }
    }
  }

  async function prepareDirectory(site: Site, file: string): Promise<void> {
    const dir = path.dirname(file);
    if (!(await staysInside(site, dir))) throw new Error(`files handler: ${dir} leads out of the site directory`);
    await mkdir(dir, { recursive: true });
    if (!(await staysInside(site, dir))) throw new Error(`files handler: ${dir} leads out of the site directory`);
  }

  /** The file's text, or null when it is missing, a symbolic link, or outside the site. */
  async function readInside(site: Site, file: string): Promise<string | null> {
    try {
      if (!isInside(await realpath(path.dirname(file)), site.realDir)) return null;
      const handle = await open(file, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW);
      try {
        return await handle.readFile('utf8');
      } finally {
        await handle.close();
      }
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  async function exists(file: string): Promise<boolean> {
    try {
      await lstat(file);
      return true;
    } catch (error) {
      if (isMissing(error)) return false;
      throw error;
    }
  }

  /** Writes to a temporary file in the site's state folder (same file system), flushed to disk. */
  async function writeTemporary(site: Site, text: string): Promise<string> {
    const dir = path.join(site.dir, STATE_DIR, 'tmp');
    await mkdir(dir, { recursive: true });
    const temporary = path.join(dir, `${randomBytes(8).toString('hex')}.tmp`);
    const handle = await open(temporary, 'wx');
    try {
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    return temporary;
  }

  /** Atomically creates `file`; false when it already exists. */
  async function writeNew(site: Site, file: string, text: string): Promise<boolean> {
    await prepareDirectory(site, file);
    const temporary = await writeTemporary(site, text);
    try {
      // link() fails when the name exists, so two writers can never both claim one slug
      await link(temporary, file);
      return true;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') return false;
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP') throw error;
      // file systems without hard links: the write queue keeps this check and rename together
      if (await exists(file)) return false;
      await rename(temporary, file);
      return true;
    } finally {
      await unlink(temporary).catch(() => undefined);
    }
  }

  /** Atomically replaces `file`: a crash leaves the old or the new text, never half of one. */
  async function writeReplace(site: Site, file: string, text: string): Promise<void> {
    await prepareDirectory(site, file);
    const temporary = await writeTemporary(site, text);
    try {
      await rename(temporary, file);
    } catch (error) {
      await unlink(temporary).catch(() => undefined);
      throw error;
    }
  }

  /** Removes directories left empty by a delete, up to the site directory. */
  async function pruneEmpty(site: Site, dir: string): Promise<void> {
    for (let current = dir; current !== site.dir && isInside(current, site.dir); current = path.dirname(current)) {
      try {
        await rmdir(current);
      } catch {
        return;
      }
    }
  }

  /** The layouts (and values) a URL on the site can stand for. */
  function candidatesFor(site: Site, url: string): { layout: PostTypeLayout; values: TemplateValues }[] {
    let target: URL;
    let base: URL;
    try {
      base = new URL(`${site.url}/`);
      target = new URL(url, base);
    } catch {
      return [];
    }
    if (target.origin !== base.origin || target.search !== '' || target.hash !== '' || target.username !== '' || target.password !== '') return [];
    const sitePath = base.pathname.replace(/\/$/, '');
    if (!target.pathname.startsWith(`${sitePath}/`)) return [];
    const rest = target.pathname.slice(sitePath.length);
    const found: { layout: PostTypeLayout; values: TemplateValues }[] = [];
    for (const layout of layouts.values()) {
      const values = layout.matchUrl(rest);
      if (values !== null) found.push({ layout, values });
    }
    return found;
  }

  /** The post type a file is, when several templates share a path: the one recorded in it, else the first that matches. */
  function typeOfFile(relative: string, document: PostDocument): PostTypeLayout | null {
    const matching = [...layouts.values()].filter((layout) => layout.matchPath(relative) !== null);
    return matching.find((layout) => layout.type === document.postType) ?? matching[0] ?? null;
  }

  async function findEntry(site: Site, url: string, where: 'live' | 'trash'): Promise<FoundEntry | null> {
    for (const { layout, values } of candidatesFor(site, url)) {
      const relative = layout.filePath(values);
      const file = fileOf(site, relative, where);
      const text = await readInside(site, file);
      if (text === null) continue;
      const document = parsePost(text);
      if (typeOfFile(relative, document)?.type !== layout.type) continue;
      return { layout, values, relative, file, document, url: layout.url(site.url, values) };
    }
    return null;
  }

  async function isTaken(site: Site, url: string, relative: string): Promise<boolean> {
    const paths = [relative, ...candidatesFor(site, url).map(({ layout, values }) => layout.filePath(values))];
    for (const candidate of new Set(paths)) {
      if ((await exists(fileOf(site, candidate, 'live'))) || (await exists(fileOf(site, candidate, 'trash')))) return true;
    }
    return false;
  }

  /** Relative paths of every regular file below the templates' roots (hidden names, symbolic links and node_modules skipped). */
  async function walk(site: Site): Promise<string[]> {
    const roots = [...new Set([...layouts.values()].map((layout) => layout.root))].sort();
    const distinct = roots.filter((root) => !roots.some((other) => other !== root && (other === '' || root.startsWith(`${other}/`))));
    const files: string[] = [];
    const pending = distinct.map((root) => ({ relative: root, depth: 0 }));
    for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
      const entries = await readdir(path.join(site.dir, ...next.relative.split('/').filter(Boolean)), { withFileTypes: true }).catch(() => []);
      for (const entry of entries) {
        if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
        const relative = next.relative === '' ? entry.name : `${next.relative}/${entry.name}`;
        if (entry.isDirectory() && next.depth < MAX_WALK_DEPTH) pending.push({ relative, depth: next.depth + 1 });
        else if (entry.isFile()) files.push(relative);
      }
    }
    return files;
  }

  /** Every live entry of the site, newest first. */
  async function liveEntries(site: Site): Promise<(MicropubEntry & { readonly sortKey: number; readonly relative: string })[]> {
    const files = (await walk(site)).filter((relative) => [...layouts.values()].some((layout) => layout.matchPath(relative) !== null));
    const entries: (MicropubEntry & { readonly sortKey: number; readonly relative: string })[] = [];
    for (let start = 0; start < files.length; start += READ_CONCURRENCY) {
      await Promise.all(
        files.slice(start, start + READ_CONCURRENCY).map(async (relative) => {
          const text = await readInside(site, fileOf(site, relative, 'live'));
          if (text === null) return;
          let document: PostDocument;
          try {
            document = parsePost(text);
          } catch (error) {
            log?.warn({ err: error, file: relative }, 'files handler: skipping a file whose front matter cannot be read');
            return;
          }
          const layout = typeOfFile(relative, document);
          const values = layout?.matchPath(relative);
          if (layout === null || values === null || values === undefined) return;
          const published = Date.parse(firstString(document.properties.published) ?? '');
          entries.push({ url: layout.url(site.url, values), type: [...document.type], properties: document.properties, sortKey: Number.isNaN(published) ? 0 : published, relative });
        }),
      );
    }
    return entries.sort((a, b) => b.sortKey - a.sortKey || (a.relative < b.relative ? 1 : a.relative > b.relative ? -1 : 0));
  }

  async function commit(site: Site, files: readonly string[], verb: string, postType: string, properties: MicropubProperties, slug: string): Promise<void> {
    const committed = await git.commit(site.dir, files, commitSubject(`${verb} ${postType} "${labelOf(properties, slug)}"`));
    if (committed) pushLater();
  }

  const toEntry = (url: string, document: Pick<PostDocument, 'type' | 'properties'>): MicropubEntry => ({ url, type: [...document.type], properties: structuredClone(document.properties) });

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
      const base = sanitizeSlug(firstString(entry.properties['mp-slug']) ?? '') || sanitizeSlug(firstString(properties.name) ?? '') || randomSlug();
      const dates = dateValues(firstString(properties.published), now);
      return exclusive(async () => {
        const site = (await siteOf(user, true))!;
        for (let attempt = 1; attempt <= 1000; attempt++) {
          const slug = attempt === 1 ? base : `${sanitizeSlug(base, MAX_SLUG_LENGTH - String(attempt).length - 1)}-${attempt}`;
          const values: TemplateValues = { ...dates, slug };
          const relative = layout.filePath(values);
          const url = layout.url(site.url, values);
          if (await isTaken(site, url, relative)) continue;
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
      const found = site === null ? null : await findEntry(site, url, 'live');
      return found === null ? null : toEntry(found.url, found.document);
    },

    /** `update_entry`: rewrites the file in place; path and URL never change. */
    async updateEntry(url: string, operations: UpdateOperations, user: HostUser): Promise<MicropubEntry> {
      return exclusive(async () => {
        const site = await siteOf(user, false);
        const found = site === null ? null : await findEntry(site, url, 'live');
        if (site === null || found === null) throw new HandlerValueError('no such entry');
        // structuredClone: a value that is not JSON-shaped (a host calling the handler directly) reaches the front matter as it is
        const properties = applyUpdate(found.document.properties, operations, structuredClone);
        const fileFormat = found.document.format ?? format;
        assertStorable(properties, fileFormat);
        const text = renderPost({ type: found.document.type, postType: found.layout.type, slug: found.values.slug, properties, siteKeys: found.document.siteKeys }, fileFormat);
        await writeReplace(site, found.file, text);
        await commit(site, [found.file], 'Update', found.layout.type, properties, found.values.slug);
        return toEntry(found.url, { type: found.document.type, properties });
      });
    },

    /** `delete_entry`: moves the file to the site's trash (the tombstone undelete restores). */
    async deleteEntry(url: string, user: HostUser): Promise<void> {
      await exclusive(async () => {
        const site = await siteOf(user, false);
        const found = site === null ? null : await findEntry(site, url, 'live');
        if (site === null || found === null) throw new HandlerValueError('no such entry');
        const tombstone = fileOf(site, found.relative, 'trash');
        await prepareDirectory(site, tombstone);
        await rename(found.file, tombstone);
        await pruneEmpty(site, path.dirname(found.file));
        await commit(site, [found.file], 'Delete', found.layout.type, found.document.properties, found.values.slug);
      });
    },

    /** `undelete_entry`: moves the tombstone back to its place. */
    async undeleteEntry(url: string, user: HostUser): Promise<MicropubEntry> {
      return exclusive(async () => {
        const site = await siteOf(user, false);
        const found = site === null ? null : await findEntry(site, url, 'trash');
        if (site === null || found === null) throw new HandlerValueError('no such deleted entry');
        const file = fileOf(site, found.relative, 'live');
        await prepareDirectory(site, file);
        try {
          await link(found.file, file);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new HandlerValueError('another file took the entry’s place', { cause: error });
          throw error;
        }
        await unlink(found.file);
        await pruneEmpty(site, path.dirname(found.file));
        await commit(site, [file], 'Undelete', found.layout.type, found.document.properties, found.values.slug);
        return toEntry(found.url, found.document);
      });
    },

    /** `get_config`: the built-in post types and queries, and the categories found in the account's files. */
    async getConfig(user: HostUser): Promise<MicropubConfig> {
      const site = await siteOf(user, false);
      const categories = new Set<string>();
      for (const entry of site === null ? [] : await liveEntries(site)) {
        for (const category of entry.properties.category ?? []) if (typeof category === 'string') categories.add(category);
      }
      return { 'syndicate-to': [], categories: [...categories].sort(), channels: [], 'post-types': structuredClone(BUILT_IN_POST_TYPES) as PostType[], q: [...BUILT_IN_QUERIES] };
    },

    /** `list_entries`: the account's live files, newest first; filter, then offset, then limit. */
    async listEntries(user: HostUser, page: PageRequest): Promise<Page<MicropubEntry>> {
      const site = await siteOf(user, false);
      const entries = site === null ? [] : await liveEntries(site);
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
      return { items: listed.map((item) => ({ url: urls.get(item.properties) ?? String(item.properties.url?.[0] ?? ''), ...item })), total };
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
