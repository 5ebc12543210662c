/**
 * The posts in a site directory, seen through the post types' templates:
 * the file a URL stands for, whether a URL or file name is taken, and every
 * live post, newest first.
 * @module
 */
import type { MicropubEntry } from '../../../contracts/micropub-types.js';
import { parsePost, type PostDocument } from './front-matter.js';
import type { FilesHandlerLog } from './git.js';
import { exists, fileOf, listFiles, readInside, type FilePlace, type SiteDirectory } from './site-directory.js';
import { firstString, type PostTypeLayout, type TemplateValues } from './templates.js';

const READ_CONCURRENCY = 16;

/** An account's site: its directory and the public URL its posts appear under. */
export interface Site extends SiteDirectory {
  /** Public site URL without a trailing slash. */
  readonly url: string;
}

/** A post found by its URL. */
export interface FoundPost {
  readonly layout: PostTypeLayout;
  readonly values: TemplateValues;
  /** The file, relative to the site directory with `/` separators. */
  readonly relative: string;
  /** The file's absolute path (in its place or in the trash). */
  readonly file: string;
  readonly document: PostDocument;
  readonly url: string;
}

/** A live post as listed, with what it is sorted by. */
export interface ListedPost extends MicropubEntry {
  readonly sortKey: number;
  readonly relative: string;
}

export interface SitePosts {
  /** The post a URL on the site stands for, in its place or in the trash; null when there is none. */
  find(site: Site, url: string, where: FilePlace): Promise<FoundPost | null>;
  /** True when a new post at `url` and `relative` would meet an existing file, live or trashed. */
  isTaken(site: Site, url: string, relative: string): Promise<boolean>;
  /** Every live post of the site, newest first; files whose front matter cannot be read are skipped (logged). */
  listLive(site: Site): Promise<ListedPost[]>;
}

export function createSitePosts(layouts: ReadonlyMap<string, PostTypeLayout>, log?: FilesHandlerLog): SitePosts {
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
    if (target.origin !== base.origin || target.search !== '' || target.hash !== '' || target.username !== '' || target.password !== '')
      return [];
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

  return {
    async find(site, url, where) {
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
    },

    async isTaken(site, url, relative) {
      const paths = [relative, ...candidatesFor(site, url).map(({ layout, values }) => layout.filePath(values))];
      for (const candidate of new Set(paths)) {
        if ((await exists(fileOf(site, candidate, 'live'))) || (await exists(fileOf(site, candidate, 'trash')))) return true;
      }
      return false;
    },

    async listLive(site) {
      const roots = [...layouts.values()].map((layout) => layout.root);
      const files = (await listFiles(site, roots)).filter((relative) =>
        [...layouts.values()].some((layout) => layout.matchPath(relative) !== null),
      );
      const entries: ListedPost[] = [];
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
            entries.push({
              url: layout.url(site.url, values),
              type: [...document.type],
              properties: document.properties,
              sortKey: Number.isNaN(published) ? 0 : published,
              relative,
            });
          }),
        );
      }
      return entries.sort((a, b) => b.sortKey - a.sortKey || (a.relative < b.relative ? 1 : a.relative > b.relative ? -1 : 0));
    },
  };
}
