/**
 * The manifest of a backup directory: what it holds, from which version and
 * schema, and the size and SHA-256 of every file. `backup` writes it last,
 * so a directory without one is an interrupted backup; `restore` trusts
 * nothing in it before {@link parseManifest} has checked its shape and paths.
 * @module
 */
import path from 'node:path';
import { BackupError } from '../../core/errors.js';

export const MANIFEST_FILE = 'manifest.json';
export const BACKUP_FORMAT = 'indiestack-backup';
/** Raised when the layout changes; a backup of a higher version is refused. */
export const BACKUP_FORMAT_VERSION = 1;

/** The parts of a backup and the folder (or file) each one lives in. */
export const PARTS = { database: 'database.sqlite', media: 'media', sites: 'sites' } as const;

export interface ManifestFile {
  /** Relative to the backup directory, `/`-separated. */
  readonly path: string;
  readonly bytes: number;
  /** Hex. */
  readonly sha256: string;
  /** Permission bits (executable git hooks stay executable). */
  readonly mode: number;
}

export interface Manifest {
  readonly format: typeof BACKUP_FORMAT;
  readonly version: number;
  /** ISO 8601 UTC. */
  readonly createdAt: string;
  /** The indiestack version that wrote it. */
  readonly indiestack: string;
  readonly database: {
    readonly dialect: 'sqlite' | 'postgres';
    /** Null for PostgreSQL: its database is backed up with pg_dump (docs/operations.md). */
    readonly file: string | null;
    /** Migrations the copied schema has run. */
    readonly migrations: readonly string[];
  };
  /** Which of the optional parts are in it. */
  readonly media: boolean;
  readonly sites: boolean;
  /** Every directory, so empty ones (a git repository has some) come back too. */
  readonly directories: readonly string[];
  readonly files: readonly ManifestFile[];
}

/** A relative, `/`-separated path inside one of the parts; never `..`, absolute or odd. */
export function isSafeBackupPath(relative: string): boolean {
  if (relative.length === 0 || relative.length > 4096 || /[\u0000-\u001f\\]/.test(relative)) return false;
  if (relative.startsWith('/') || path.posix.normalize(relative) !== relative) return false;
  if (relative.split('/').some((segment) => segment === '' || segment === '.' || segment === '..')) return false;
  const top = relative.split('/')[0];
  return relative === PARTS.database || top === PARTS.media || top === PARTS.sites;
}

/**
 * Whether a path lies inside the hooks of a git repository (`.git/hooks/…`,
 * or a submodule's `.git/modules/x/hooks/…`): git runs what is there as the
 * user who commits, so a backup never writes such files and a restore refuses
 * a manifest that lists one. Compared without case (case-insensitive disks).
 */
export function isGitHookPath(relative: string): boolean {
  const segments = relative.toLowerCase().split('/');
  const repository = segments.indexOf('.git');
  if (repository === -1) return false;
  return segments.slice(repository + 1, -1).includes('hooks');
}

const invalid = (why: string) => new BackupError(`${MANIFEST_FILE} is not a valid indiestack backup manifest: ${why}`);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Checks the text of a manifest; throws {@link BackupError} saying what is wrong. */
export function parseManifest(text: string): Manifest {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalid('not JSON');
  }
  if (!isRecord(value) || value['format'] !== BACKUP_FORMAT) throw invalid(`no "format": "${BACKUP_FORMAT}"`);
  const version = value['version'];
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) throw invalid('no format version');
  if (version > BACKUP_FORMAT_VERSION) {
    throw new BackupError(
      `the backup has format version ${version}, newer than this indiestack understands (${BACKUP_FORMAT_VERSION}): restore it with the version that wrote it (${String(value['indiestack'])}) or newer`,
    );
  }
  const database = value['database'];
  if (!isRecord(database) || (database['dialect'] !== 'sqlite' && database['dialect'] !== 'postgres')) throw invalid('no database dialect');
  const migrations = database['migrations'];
  if (!Array.isArray(migrations) || !migrations.every((name) => typeof name === 'string')) throw invalid('no list of migrations');
  const databaseFile = database['file'];
  if (database['dialect'] === 'sqlite' ? databaseFile !== PARTS.database : databaseFile !== null)
    throw invalid('the database file does not match its dialect');
  const directories = value['directories'];
  if (!Array.isArray(directories) || !directories.every((entry) => typeof entry === 'string' && isSafeBackupPath(entry)))
    throw invalid('a directory path is not a plain path inside the backup');
  const hookDirectory = (directories as string[]).find(isGitHookPath);
  if (hookDirectory !== undefined)
    throw new BackupError(
      `the backup holds a git hook (${hookDirectory}): hooks are never restored, since git would run them; take it out of the backup and ${MANIFEST_FILE} to restore the rest`,
    );
  const files = value['files'];
  if (!Array.isArray(files)) throw invalid('no list of files');
  const seen = new Set<string>();
  for (const file of files) {
    if (!isRecord(file) || typeof file['path'] !== 'string' || !isSafeBackupPath(file['path']))
      throw invalid('a file path is not a plain path inside the backup');
    if (isGitHookPath(file['path'])) {
      throw new BackupError(
        `the backup holds a git hook (${file['path']}): hooks are never restored, since git would run them; take it out of the backup and ${MANIFEST_FILE} to restore the rest`,
      );
    }
    if (seen.has(file['path'])) throw invalid(`${file['path']} is listed twice`);
    seen.add(file['path']);
    if (typeof file['bytes'] !== 'number' || !Number.isSafeInteger(file['bytes']) || file['bytes'] < 0)
      throw invalid(`${file['path']} has no size`);
    if (typeof file['sha256'] !== 'string' || !/^[0-9a-f]{64}$/.test(file['sha256'])) throw invalid(`${file['path']} has no SHA-256`);
    if (typeof file['mode'] !== 'number' || !Number.isInteger(file['mode']) || file['mode'] < 0 || file['mode'] > 0o777)
      throw invalid(`${file['path']} has no mode`);
  }
  if (databaseFile !== null && !seen.has(PARTS.database)) throw invalid(`${PARTS.database} is not listed`);
  return {
    format: BACKUP_FORMAT,
    version,
    createdAt: String(value['createdAt']),
    indiestack: String(value['indiestack']),
    database: { dialect: database['dialect'], file: databaseFile as string | null, migrations: migrations as string[] },
    media: value['media'] === true,
    sites: value['sites'] === true,
    directories: directories as string[],
    files: files as ManifestFile[],
  };
}
