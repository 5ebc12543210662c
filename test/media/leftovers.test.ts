/**
 * A process killed mid-upload runs no error handler: its `.partial` file and
 * its spool directory stay. They are removed at the next start once older
 * than any upload could still be running; younger ones (another instance's
 * upload in progress) and everything else stay.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LEFTOVER_AGE_MS, sweepUploadLeftovers } from '../../src/media/leftovers.js';
import { buildTestApp } from '../helpers/app.js';

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function makeFile(file: string, ageMs: number): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, 'x');
  const when = new Date(Date.now() - ageMs);
  utimesSync(file, when, when);
  return file;
}

function makeDir(dir: string, ageMs: number): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, '0'), 'spooled');
  const when = new Date(Date.now() - ageMs);
  utimesSync(dir, when, when);
  return dir;
}

function fixture() {
  const root = mkdtempSync(path.join(os.tmpdir(), 'indiestack-leftovers-'));
  roots.push(root);
  const media = path.join(root, 'media');
  const tmp = path.join(root, 'tmp');
  mkdirSync(tmp);
  const old = LEFTOVER_AGE_MS + 60_000;
  return {
    media,
    tmp,
    stalePartial: makeFile(path.join(media, 'indieweb', 'media', 'aaaaaaaaaaaaaaaaaaaa.png.k1.partial'), old),
    freshPartial: makeFile(path.join(media, 'indieweb', 'media', 'bbbbbbbbbbbbbbbbbbbb.png.k2.partial'), 60_000),
    oldStored: makeFile(path.join(media, 'indieweb', 'media', 'cccccccccccccccccccc.png'), old),
    staleSpool: makeDir(path.join(tmp, 'indiestack-upload-old'), old),
    freshSpool: makeDir(path.join(tmp, 'indiestack-upload-new'), 60_000),
    otherDir: makeDir(path.join(tmp, 'someone-else'), old),
  };
}

describe('upload leftovers', () => {
  it('removes old partial files and spool directories, keeps young ones, stored media and other directories', async () => {
    const f = fixture();
    const swept = await sweepUploadLeftovers({ mediaDir: f.media, tmpDir: f.tmp, now: new Date() });
    expect(swept).toEqual({ partialFiles: 1, spoolDirs: 1 });
    expect(existsSync(f.stalePartial)).toBe(false);
    expect(existsSync(f.staleSpool)).toBe(false);
    for (const kept of [f.freshPartial, f.oldStored, f.freshSpool, f.otherDir]) expect(existsSync(kept)).toBe(true);
  });

  it('a media directory that does not exist yet is nothing to sweep', async () => {
    const f = fixture();
    await expect(sweepUploadLeftovers({ mediaDir: path.join(f.media, 'missing'), tmpDir: f.tmp, now: new Date() })).resolves.toEqual({
      partialFiles: 0,
      spoolDirs: 1,
    });
  });

  it('the server sweeps its media directory when it starts', async () => {
    const f = fixture();
    const t = await buildTestApp({ env: { INDIEWEB_MEDIA_DIR: f.media } });
    try {
      await t.app.ready();
      for (let i = 0; i < 50 && existsSync(f.stalePartial); i++) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(existsSync(f.stalePartial)).toBe(false);
      expect(existsSync(f.freshPartial)).toBe(true);
      expect(existsSync(f.oldStored)).toBe(true);
    } finally {
      await t.close();
    }
  });
});
