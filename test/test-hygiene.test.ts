/**
 * Issue 30 item 11: `npm test` left PNGs in the clone's ./data/media (the
 * test servers' default data directory is ./data), which then ended up in
 * the user's backups. The test servers now write under temporary
 * directories of their own, removed when they close.
 */
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildTestApp } from './helpers/app.js';
import { mountedApp } from './helpers/micropub.js';

const CLONE = fileURLToPath(new URL('..', import.meta.url));
const inside = (dir: string, parent: string) => !path.relative(parent, dir).startsWith('..');

describe('test servers write only under temporary directories (issue 30 item 11)', () => {
  it.each([
    ['buildTestApp', () => buildTestApp()],
    ['mountedApp', () => mountedApp()],
  ] as const)(
    '%s: its data and media directories are under the temp directory, not the clone, and are gone once it closes',
    async (_name, start) => {
      const t = await start();
      const { dataDir, media } = t.app.indieweb.config;
      expect(inside(path.resolve(dataDir), os.tmpdir())).toBe(true);
      expect(inside(path.resolve(dataDir), CLONE)).toBe(false);
      expect(inside(path.resolve(media.dir), path.resolve(dataDir))).toBe(true);
      await t.close();
      expect(existsSync(dataDir)).toBe(false);
    },
  );
});
