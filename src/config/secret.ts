import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { randomToken } from '../core/crypto.js';

export const SECRET_FILE_NAME = 'secret';

/**
 * The configured secret, or the one kept in the data directory, created on
 * first use (mode 0600). Several instances must share one: set INDIEWEB_SECRET.
 */
export function resolveSecret(configured: string | null, dataDir: string): string {
  if (configured !== null) return configured;
  const file = path.join(dataDir, SECRET_FILE_NAME);
  try {
    return readFileSync(file, 'utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(dataDir, { recursive: true });
  try {
    writeFileSync(file, `${randomToken(48)}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    // another process created it first: use theirs
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return readFileSync(file, 'utf8').trim();
}
