/**
 * `indiestack backup DIR`: a consistent copy of everything a standalone
 * server keeps, taken while it runs. The SQLite database is copied first, in
 * one read transaction (`VACUUM INTO`), then the local media files and the
 * files handler's content directory, so every media row in the copy has its
 * file. Every file is hashed as it is written, and the manifest, written
 * last, lists them all: a directory without a manifest is an interrupted
 * backup, and restore refuses it.
 * @module
 */
import { existsSync } from 'node:fs';
import { chmod, mkdir, rm, writeFile, rename } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../../config/config.js';
import { BackupError } from '../../core/errors.js';
import { snapshotSqlite } from '../../storage/snapshot.js';
import { copyHashed, hashFile, isEmptyOrAbsent, walkTree } from './files.js';
import { BACKUP_FORMAT, BACKUP_FORMAT_VERSION, isGitHookPath, MANIFEST_FILE, PARTS, type Manifest, type ManifestFile } from './manifest.js';

export interface BackupOptions {
  readonly config: Config;
  /** Where the backup goes: a directory that does not exist yet or is empty. */
  readonly dir: string;
  readonly now: () => Date;
  /** The indiestack version, recorded in the manifest. */
  readonly version: string;
  /** Messages for the operator (what was left out and why). */
  readonly warn: (message: string) => void;
}

export interface BackupSummary {
  readonly manifest: Manifest;
  /** Files per part. */
  readonly mediaFiles: number;
  readonly siteFiles: number;
}

/** Partial upload files of the local storage: never part of a backup. */
const isPartialUpload = (relative: string) => relative.endsWith('.partial');

export async function createBackup(options: BackupOptions): Promise<BackupSummary> {
  const { config, warn } = options;
  const dir = path.resolve(options.dir);
  if (!(await isEmptyOrAbsent(dir))) throw new BackupError(`${dir} is not empty: give a new directory for each backup`);
  if (config.database.kind === 'sqlite' && (config.database.filename === ':memory:' || !existsSync(config.database.filename))) {
    throw new BackupError(
      `no database at ${config.database.filename}: run backup where \`indiestack serve\` runs, or give --data-dir or INDIEWEB_DATABASE_URL`,
    );
  }
  const createdDir = !existsSync(dir);
  // password hashes and token hashes are in it: readable by this user alone
  await mkdir(dir, { recursive: true, mode: 0o700 });
  try {
    const files: ManifestFile[] = [];
    const directories: string[] = [];

    let migrations: readonly string[] = [];
    if (config.database.kind === 'sqlite') {
      const target = path.join(dir, PARTS.database);
      try {
        migrations = snapshotSqlite(config.database.filename, target, { timeoutMs: Math.max(config.databaseTimeout, 5) * 1000 }).migrations;
      } catch (error) {
        throw new BackupError(`cannot copy the database ${config.database.filename}: ${(error as Error).message}`, { cause: error });
      }
      await chmod(target, 0o600);
      files.push({ path: PARTS.database, ...(await hashFile(target)), mode: 0o600 });
    } else {
      warn('the PostgreSQL database is not in this backup: back it up with pg_dump (docs/operations.md); this backup holds the files only');
    }

    const copyPart = async (part: string, source: string): Promise<number> => {
      let count = 0;
      let hooks = 0;
      await mkdir(path.join(dir, part));
      directories.push(part);
      for (const entry of await walkTree(source)) {
        const relative = `${part}/${entry.relative}`;
        // git runs its hooks: a backup never carries them, and a restore refuses them (manifest.ts)
        if (isGitHookPath(relative)) {
          // git's own *.sample files never run: left out without a word
          if (entry.kind !== 'directory' && !entry.relative.endsWith('.sample')) hooks += 1;
          continue;
        }
        if (entry.kind === 'directory') {
          await mkdir(path.join(dir, relative), { recursive: true });
          directories.push(relative);
        } else if (entry.kind === 'other')
          warn(`left out ${path.join(source, entry.relative)}: not a regular file (symbolic links are not followed)`);
        else if (!isPartialUpload(entry.relative)) {
          try {
            files.push({
              path: relative,
              ...(await copyHashed(path.join(source, entry.relative), path.join(dir, relative), entry.mode)),
              mode: entry.mode,
            });
            count += 1;
          } catch (error) {
            // deleted between listing and copying (a media delete while the server runs): it is gone from the data too
            if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
          }
        }
      }
      if (hooks > 0)
        warn(
          `left out ${hooks} git hook file${hooks === 1 ? '' : 's'} in ${source}: hooks are not backed up (a restore would refuse them)`,
        );
      return count;
    };

    let mediaFiles = 0;
    const media = config.media.storage.kind === 'local';
    if (media) mediaFiles = await copyPart(PARTS.media, config.media.dir);
    else warn('media are stored in S3 and are not in this backup: back up the bucket itself (docs/operations.md)');

    const sites = existsSync(config.files.contentDir);
    const siteFiles = sites ? await copyPart(PARTS.sites, config.files.contentDir) : 0;

    const manifest: Manifest = {
      format: BACKUP_FORMAT,
      version: BACKUP_FORMAT_VERSION,
      createdAt: options.now().toISOString(),
      indiestack: options.version,
      database: { dialect: config.database.kind, file: config.database.kind === 'sqlite' ? PARTS.database : null, migrations },
      media,
      sites,
      directories,
      files,
    };
    // written aside and renamed: a manifest is there whole or not at all
    const partial = path.join(dir, `${MANIFEST_FILE}.partial`);
    await writeFile(partial, `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
    await rename(partial, path.join(dir, MANIFEST_FILE));
    return { manifest, mediaFiles, siteFiles };
  } catch (error) {
    // nothing half-written: what this run put there goes again
    await rm(dir, { recursive: true, force: true }).catch(() => {});
    if (!createdDir) await mkdir(dir, { recursive: true }).catch(() => {});
    if (error instanceof BackupError) throw error;
    throw new BackupError(`backup failed: ${(error as Error).message}`, { cause: error });
  }
}
