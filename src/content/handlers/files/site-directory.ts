/**
 * An account's site directory on disk, as the files handler uses it: who
 * owns it (`.indiestack/owner`, so two accounts can never share one), reads
 * and writes that never leave it through a symbolic link, atomic creation and
 * replacement (a crash leaves the old or the new text, never half of one),
 * the trash deleted files wait in, and the walk that lists its files.
 * Nothing here knows about Micropub; paths inside the site are `/`-separated
 * and relative.
 * @module
 */
import { randomBytes } from 'node:crypto';
import { constants as fsConstants } from 'node:fs';
import { link, lstat, mkdir, open, readdir, readFile, realpath, rename, rmdir, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { HandlerValueError } from '../../../contracts/handler-errors.js';

/** The handler's own folder inside a site directory; git ignores it. */
export const STATE_DIR = '.indiestack';
const MAX_WALK_DEPTH = 16;

/** A site directory that exists and belongs to one account. */
export interface SiteDirectory {
  /** Absolute site directory, as configured. */
  readonly dir: string;
  /** The same with symbolic links resolved: every file must lie below it. */
  readonly realDir: string;
}

/** Where a post file lies: in its place, or in the site's trash. */
export type FilePlace = 'live' | 'trash';

const isMissing = (error: unknown) => ['ENOENT', 'ENOTDIR', 'ELOOP'].includes((error as NodeJS.ErrnoException).code ?? '');

/** True when `child` is `parent` or lies below it (both absolute, already resolved). */
export function isInside(child: string, parent: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith(`..${path.sep}`) && relative !== '..' && !path.isAbsolute(relative));
}

/**
 * The site directory `dir` for the account `ownerId`; null when it does not
 * exist yet and `claim` is false. With `claim` it is created and claimed.
 * Throws when the directory belongs to another account.
 */
export async function openSiteDirectory(dir: string, ownerId: string, claim: boolean): Promise<SiteDirectory | null> {
  const ownerFile = path.join(dir, STATE_DIR, 'owner');
  let owner = await readFile(ownerFile, 'utf8').catch((error: unknown) => {
    if (isMissing(error)) return null;
    throw error;
  });
  if (owner === null && claim) {
    await mkdir(path.join(dir, STATE_DIR), { recursive: true });
    await writeFile(path.join(dir, STATE_DIR, '.gitignore'), '*\n', { flag: 'w' });
    try {
      await writeFile(ownerFile, `${ownerId}\n`, { flag: 'wx' });
      owner = `${ownerId}\n`;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      owner = await readFile(ownerFile, 'utf8');
    }
  }
  // security: two accounts whose names map to one directory never see each other's posts
  if (owner !== null && owner.trim() !== ownerId) throw new Error(`files handler: ${dir} belongs to another account`);
  let realDir: string;
  try {
    realDir = await realpath(dir);
  } catch (error) {
    if (isMissing(error) && !claim) return null;
    throw error;
  }
  return { dir, realDir };
}

/** The absolute path of a file of the site, in its place or in the trash. */
export function fileOf(site: SiteDirectory, relative: string, where: FilePlace): string {
  return path.join(site.dir, ...(where === 'trash' ? [STATE_DIR, 'trash'] : []), ...relative.split('/'));
}

/** True when the existing part of `dir` resolves inside the site (a symbolic link inside the site cannot lead out of it). */
async function staysInside(site: SiteDirectory, dir: string): Promise<boolean> {
  for (let current = dir; ; current = path.dirname(current)) {
    try {
      return isInside(await realpath(current), site.realDir);
    } catch (error) {
      if (!isMissing(error) || current === path.dirname(current)) throw error;
    }
  }
}

async function prepareDirectory(site: SiteDirectory, file: string): Promise<void> {
  const dir = path.dirname(file);
  if (!(await staysInside(site, dir))) throw new Error(`files handler: ${dir} leads out of the site directory`);
  await mkdir(dir, { recursive: true });
  if (!(await staysInside(site, dir))) throw new Error(`files handler: ${dir} leads out of the site directory`);
}

/** The file's text, or null when it is missing, a symbolic link, or outside the site. */
export async function readInside(site: SiteDirectory, file: string): Promise<string | null> {
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

/** True when something (a file, a directory, a symbolic link) has this name. */
export async function exists(file: string): Promise<boolean> {
  try {
    await lstat(file);
    return true;
  } catch (error) {
    if (isMissing(error)) return false;
    throw error;
  }
}

/** Writes to a temporary file in the site's state folder (same file system), flushed to disk. */
async function writeTemporary(site: SiteDirectory, text: string): Promise<string> {
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
export async function writeNew(site: SiteDirectory, file: string, text: string): Promise<boolean> {
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
    // file systems without hard links: the handler's write queue keeps this check and rename together
    if (await exists(file)) return false;
    await rename(temporary, file);
    return true;
  } finally {
    await unlink(temporary).catch(() => undefined);
  }
}

/** Atomically replaces `file`: a crash leaves the old or the new text, never half of one. */
export async function writeReplace(site: SiteDirectory, file: string, text: string): Promise<void> {
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
async function pruneEmpty(site: SiteDirectory, dir: string): Promise<void> {
  for (let current = dir; current !== site.dir && isInside(current, site.dir); current = path.dirname(current)) {
    try {
      await rmdir(current);
    } catch {
      return;
    }
  }
}

/** Moves a file to the trash (the tombstone undelete restores); returns the path it had. */
export async function moveToTrash(site: SiteDirectory, relative: string): Promise<string> {
  const file = fileOf(site, relative, 'live');
  const tombstone = fileOf(site, relative, 'trash');
  await prepareDirectory(site, tombstone);
  await rename(file, tombstone);
  await pruneEmpty(site, path.dirname(file));
  return file;
}

/**
 * Moves a file from the trash back to its place; returns that path. Throws
 * {@link HandlerValueError} when another file has taken the place meanwhile.
 */
export async function restoreFromTrash(site: SiteDirectory, relative: string): Promise<string> {
  const tombstone = fileOf(site, relative, 'trash');
  const file = fileOf(site, relative, 'live');
  await prepareDirectory(site, file);
  try {
    await link(tombstone, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST')
      throw new HandlerValueError('another file took the entry’s place', { cause: error });
    throw error;
  }
  await unlink(tombstone);
  await pruneEmpty(site, path.dirname(tombstone));
  return file;
}

/** Relative paths of every regular file below `roots` (hidden names, symbolic links and node_modules skipped). */
export async function listFiles(site: SiteDirectory, roots: readonly string[]): Promise<string[]> {
  const sorted = [...new Set(roots)].sort();
  const distinct = sorted.filter((root) => !sorted.some((other) => other !== root && (other === '' || root.startsWith(`${other}/`))));
  const files: string[] = [];
  const pending = distinct.map((root) => ({ relative: root, depth: 0 }));
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const entries = await readdir(path.join(site.dir, ...next.relative.split('/').filter(Boolean)), { withFileTypes: true }).catch(
      () => [],
    );
    for (const entry of entries) {
      if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
      const relative = next.relative === '' ? entry.name : `${next.relative}/${entry.name}`;
      if (entry.isDirectory() && next.depth < MAX_WALK_DEPTH) pending.push({ relative, depth: next.depth + 1 });
      else if (entry.isFile()) files.push(relative);
    }
  }
  return files;
}
