/**
 * `indiestack restore DIR`: puts a backup back into an empty data directory
 * (and an empty media and content directory when those live elsewhere).
 * Everything is checked before anything is written — the manifest, every
 * file's size and SHA-256, that the schema is not newer than this version
 * knows — and a restore that fails half-way removes what it wrote.
 * @module
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../../config/config.js';
import { BackupError } from '../../core/errors.js';
import { MIGRATIONS } from '../../storage/migrations/index.js';
import { sqliteIntegrityProblem } from '../../storage/snapshot.js';
import { copyHashed, hashFile, isEmptyOrAbsent } from './files.js';
import { MANIFEST_FILE, PARTS, parseManifest, type Manifest } from './manifest.js';
import { openBackupFile } from './source-files.js';

export interface RestoreOptions {
  readonly config: Config;
  /** The backup directory. */
  readonly dir: string;
}

export interface RestoreSummary {
  readonly manifest: Manifest;
  readonly files: number;
}

/** Reads and checks a backup without writing anything; throws {@link BackupError} naming the first problem. */
export async function verifyBackup(dir: string): Promise<Manifest> {
  const root = path.resolve(dir);
  let text: string;
  try {
    text = await readFile(path.join(root, MANIFEST_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      throw new BackupError(`${root} holds no ${MANIFEST_FILE}: not a backup, or one that did not finish`);
    throw new BackupError(`cannot read ${path.join(root, MANIFEST_FILE)}: ${(error as Error).message}`);
  }
  const manifest = parseManifest(text);
  const known = new Set(Object.keys(MIGRATIONS));
  const newer = manifest.database.migrations.filter((name) => !known.has(name));
  if (newer.length > 0) {
    throw new BackupError(
      `the backup's database has a newer schema than this indiestack knows (migration ${newer.join(', ')}); restore it with indiestack ${manifest.indiestack} or newer`,
    );
  }
  for (const file of manifest.files) {
    // regular files only: a link, pipe or device is refused before a byte is read through it
    const handle = await openBackupFile(root, file.path);
    let found;
    try {
      found = await hashFile(handle);
    } catch (error) {
      throw new BackupError(`${file.path} cannot be read from the backup (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`);
    } finally {
      await handle.close();
    }
    if (found.bytes !== file.bytes || found.sha256 !== file.sha256)
      throw new BackupError(`${file.path} does not match its checksum in ${MANIFEST_FILE}: the backup is damaged`);
  }
  if (manifest.database.file !== null) {
    const problem = sqliteIntegrityProblem(path.join(root, manifest.database.file));
    if (problem !== null) throw new BackupError(`the backup's database fails SQLite's integrity check: ${problem}`);
  }
  return manifest;
}

/** Where each part of a backup goes under the given settings. */
function targetsOf(config: Config, manifest: Manifest): { part: string; dir: string }[] {
  const targets = [{ part: '', dir: config.dataDir }];
  if (manifest.media) targets.push({ part: PARTS.media, dir: config.media.dir });
  if (manifest.sites) targets.push({ part: PARTS.sites, dir: config.files.contentDir });
  return targets;
}

export async function restoreBackup(options: RestoreOptions): Promise<RestoreSummary> {
  const { config } = options;
  const root = path.resolve(options.dir);
  const manifest = await verifyBackup(root);

  if (manifest.database.file !== null && config.database.kind !== 'sqlite') {
    throw new BackupError(
      'the backup holds a SQLite database but INDIEWEB_DATABASE_URL names PostgreSQL: restore into a SQLite data directory (docs/operations.md)',
    );
  }
  if (manifest.media && config.media.storage.kind !== 'local') {
    throw new BackupError(
      'the backup holds local media but INDIEWEB_MEDIA_STORAGE is s3: restore with local storage, then copy the files into the bucket',
    );
  }
  const databaseFile = manifest.database.file === null || config.database.kind !== 'sqlite' ? null : config.database.filename;
  if (databaseFile === ':memory:') throw new BackupError('INDIEWEB_DATABASE_URL is :memory:: give a database file to restore into');

  // refuse before writing anything: a restore never mixes a backup with data that is already there
  const targets = targetsOf(config, manifest);
  for (const { dir } of targets) {
    if (!(await isEmptyOrAbsent(dir)))
      throw new BackupError(`${dir} is not empty: restore only into an empty data directory (give a new one with --data-dir)`);
  }
  if (databaseFile !== null && existsSync(databaseFile))
    throw new BackupError(`${databaseFile} exists: restore only where there is no database yet`);

  const created = targets.map(({ dir }) => ({ dir, existed: existsSync(dir) }));
  try {
    for (const { dir } of targets) await mkdir(dir, { recursive: true });
    const destination = (relative: string): string => {
      if (relative === PARTS.database && databaseFile !== null) return databaseFile;
      const [part, ...rest] = relative.split('/');
      const target = targets.find((candidate) => candidate.part === part);
      if (target === undefined) throw new BackupError(`${relative}: no place to restore it to`);
      return path.join(target.dir, ...rest);
    };
    for (const directory of manifest.directories) {
      if (directory.includes('/')) await mkdir(destination(directory), { recursive: true });
    }
    for (const file of manifest.files) {
      const to = destination(file.path);
      await mkdir(path.dirname(to), { recursive: true });
      const source = await openBackupFile(root, file.path);
      let copied;
      try {
        copied = await copyHashed(source, to, file.mode);
      } finally {
        await source.close();
      }
      // changed since it was checked: refuse the whole restore
      if (copied.sha256 !== file.sha256 || copied.bytes !== file.bytes) throw new BackupError(`${file.path} changed while it was restored`);
    }
    return { manifest, files: manifest.files.length };
  } catch (error) {
    for (const { dir, existed } of created) {
      if (existed) {
        for (const name of await readdir(dir).catch(() => [] as string[])) await rm(path.join(dir, name), { recursive: true, force: true });
      } else await rm(dir, { recursive: true, force: true });
    }
    if (databaseFile !== null) await rm(databaseFile, { force: true });
    if (error instanceof BackupError) throw error;
    throw new BackupError(`restore failed, nothing was kept: ${(error as Error).message}`, { cause: error });
  }
}
