/**
 * `indiestack backup` and `restore` with real processes: a server that keeps
 * receiving posts, uploads, tokens and webmentions while it is backed up;
 * the backup restored into a new data directory; a second server started on
 * it that accepts the same tokens and serves the same entries, media and
 * webmentions. Then what restore must refuse.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
  mkdirSync,
  existsSync,
  readdirSync,
  renameSync,
  symlinkSync,
  statSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { filePart, multipart, randomPng } from '../helpers/media.js';
import { killServe, startServe, waitFor, type ServeProcess } from '../helpers/serve.js';
import { startSourceServer, type SourceServer } from '../helpers/webmention.js';

const ENV = { INDIEWEB_MICROPUB_HANDLER: 'files', INDIEWEB_FILES_GIT: 'off', INDIEWEB_ALLOW_PRIVATE_NETWORKS: 'true' };
const SCOPE = 'create update media';

interface Post {
  readonly url: string;
  readonly content: string;
}
interface Upload {
  readonly path: string;
  readonly bytes: Buffer;
}
interface Mention {
  readonly statusPath: string;
  readonly source: string;
}

/** What the busy server acknowledged, each with the time its answer came. */
interface Acknowledged<T> {
  readonly value: T;
  readonly at: number;
}

const temporaryDirs: string[] = [];
function temporaryDir(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), `indiestack-${prefix}-`));
  temporaryDirs.push(dir);
  return dir;
}

async function issueToken(cwd: string): Promise<string> {
  const issued = await runCli(['token', 'issue', '--user', 'alice', '--client-id', 'https://app.example/', '--scope', SCOPE], { cwd });
  if (issued.code !== 0) throw new Error(`token issue failed: ${issued.stderr}`);
  return issued.stdout.trim();
}

async function createPost(base: string, token: string, content: string): Promise<Post> {
  const response = await fetch(`${base}/indieweb/micropub/`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: new URLSearchParams({ h: 'entry', content }),
  });
  if (response.status !== 201) throw new Error(`create answered ${response.status}: ${await response.text()}`);
  return { url: response.headers.get('location')!, content };
}

async function upload(base: string, token: string): Promise<Upload> {
  const bytes = randomPng(4096);
  const body = multipart([filePart(bytes)]);
  const response = await fetch(`${base}/indieweb/media/`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': body.contentType },
    body: body.body,
  });
  if (response.status !== 201) throw new Error(`upload answered ${response.status}: ${await response.text()}`);
  return { path: new URL(response.headers.get('location')!).pathname, bytes };
}

async function sendMention(base: string, sources: SourceServer, target: string, n: string): Promise<Mention> {
  const sourcePath = `/mention-${n}`;
  sources.set(
    sourcePath,
    `<!DOCTYPE html><div class="h-entry"><p class="e-content">Mention ${n} of <a href="${target}">this post</a></p></div>`,
  );
  const source = sources.url(sourcePath);
  const response = await fetch(`${base}/indieweb/webmention/`, { method: 'POST', body: new URLSearchParams({ source, target }) });
  if (response.status !== 201) throw new Error(`webmention answered ${response.status}: ${await response.text()}`);
  return { statusPath: new URL(response.headers.get('location')!, base).pathname, source };
}

describe('indiestack backup and restore of a busy server', () => {
  let cwd: string;
  let sources: SourceServer;
  let first: ServeProcess | undefined;
  let second: ServeProcess | undefined;

  beforeAll(async () => {
    cwd = temporaryDir('backup-source');
    const added = await runCli(['user', 'add', 'alice', '--me', 'https://alice.example/', '--password-stdin'], {
      cwd,
      input: 'backup test password\n',
    });
    expect(added.code).toBe(0);
    sources = await startSourceServer();
    first = await startServe(cwd, ENV);
  });

  afterAll(async () => {
    await killServe(first);
    await killServe(second);
    await sources.close();
    for (const dir of temporaryDirs) rmSync(dir, { recursive: true, force: true });
  });

  it('restores every token, entry, media file and webmention acknowledged before the backup began, and only whole media', async () => {
    const base = first!.base;
    const token = await issueToken(cwd);
    const tokens: Acknowledged<string>[] = [{ value: token, at: Date.now() }];
    const posts: Acknowledged<Post>[] = [];
    const uploads: Acknowledged<Upload>[] = [];
    const mentions: Acknowledged<Mention>[] = [];
    for (let n = 0; n < 3; n++) {
      const post = await createPost(base, token, `Before the backup ${n}`);
      posts.push({ value: post, at: Date.now() });
      uploads.push({ value: await upload(base, token), at: Date.now() });
      mentions.push({ value: await sendMention(base, sources, post.url, `before-${n}`), at: Date.now() });
    }
    // the first mentions are verified before the backup: they must come back verified
    const verified = await waitFor(async () => {
      const states = await Promise.all(
        mentions.map(
          async ({ value }) =>
            ((await (await fetch(`${base}${value.statusPath}`, { headers: { accept: 'application/json' } })).json()) as { status: string })
              .status,
        ),
      );
      return states.every((state) => state === 'verified');
    }, 20_000);
    expect(verified).toBe(true);

    // the load: posts, uploads, webmentions over HTTP and tokens from the CLI, until the backup is done
    let stop = false;
    let n = 0;
    const failures: unknown[] = [];
    const loop = async (work: () => Promise<void>) => {
      while (!stop) await work().catch((error: unknown) => failures.push(error));
    };
    const load = Promise.all([
      loop(async () => {
        const post = await createPost(base, token, `During the backup ${n++}`);
        posts.push({ value: post, at: Date.now() });
        mentions.push({ value: await sendMention(base, sources, post.url, `during-${n}`), at: Date.now() });
      }),
      loop(async () => void uploads.push({ value: await upload(base, token), at: Date.now() })),
      loop(async () => void uploads.push({ value: await upload(base, token), at: Date.now() })),
      loop(async () => void tokens.push({ value: await issueToken(cwd), at: Date.now() })),
    ]);
    // let the load get going first
    await waitFor(async () => uploads.length >= 6, 20_000);
    const backupDir = path.join(temporaryDir('backup-target'), 'backup');
    const began = Date.now();
    const backup = await runCli(['backup', backupDir], { cwd });
    const ended = Date.now();
    stop = true;
    await load;
    expect(failures).toEqual([]);
    expect(backup.stderr).toBe('');
    expect(backup.code).toBe(0);
    expect(backup.stdout).toMatch(/^backed up the database \(schema \S+\), \d+ media files, \d+ site files to /);
    // the server kept answering while it was backed up
    expect(
      uploads.filter(({ at }) => at > began && at < ended).length + posts.filter(({ at }) => at > began && at < ended).length,
    ).toBeGreaterThan(0);

    const restoredCwd = temporaryDir('backup-restored');
    const restored = await runCli(['restore', backupDir], { cwd: restoredCwd });
    expect(restored.stderr).toBe('');
    expect(restored.code).toBe(0);
    expect(restored.stdout).toMatch(/^restored \d+ files from /);
    await killServe(first);
    second = await startServe(restoredCwd, ENV);
    const restoredBase = second.base;

    const before = <T>(items: readonly Acknowledged<T>[]) => items.filter(({ at }) => at < began).map(({ value }) => value);
    for (const accepted of before(tokens)) {
      const response = await fetch(`${restoredBase}/indieweb/micropub/?q=config`, { headers: { authorization: `Bearer ${accepted}` } });
      expect(response.status).toBe(200);
    }
    for (const post of before(posts)) {
      const response = await fetch(`${restoredBase}/indieweb/micropub/?${new URLSearchParams({ q: 'source', url: post.url })}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(response.status).toBe(200);
      expect(((await response.json()) as { properties: { content: unknown[] } }).properties.content).toEqual([post.content]);
    }
    for (const media of before(uploads)) {
      const response = await fetch(`${restoredBase}${media.path}`);
      expect(response.status).toBe(200);
      expect(Buffer.from(await response.arrayBuffer()).equals(media.bytes)).toBe(true);
    }
    for (const [index, mention] of before(mentions).entries()) {
      const response = await fetch(`${restoredBase}${mention.statusPath}`, { headers: { accept: 'application/json' } });
      expect(response.status).toBe(200);
      const status = (await response.json()) as { status: string; source: string };
      expect(status.source).toBe(mention.source);
      if (index < 3) expect(status.status).toBe('verified');
    }
    // consistent: every media item the restored database knows has its file, uploads during the backup included
    const listed = await fetch(`${restoredBase}/indieweb/media/?q=source&limit=1000`, { headers: { authorization: `Bearer ${token}` } });
    expect(listed.status).toBe(200);
    const items = ((await listed.json()) as { items: { properties: { url: string[] } }[] }).items;
    expect(items.length).toBeGreaterThanOrEqual(before(uploads).length);
    for (const item of items) {
      const response = await fetch(`${restoredBase}${new URL(item.properties.url[0]!).pathname}`);
      expect(response.status).toBe(200);
    }
  }, 120_000);
});

describe('indiestack restore refuses', () => {
  let cwd: string;
  let backupDir: string;

  beforeAll(async () => {
    cwd = temporaryDir('restore-refusals');
    expect(
      (
        await runCli(['user', 'add', 'alice', '--me', 'https://alice.example/', '--password-stdin'], {
          cwd,
          input: 'backup test password\n',
        })
      ).code,
    ).toBe(0);
    mkdirSync(path.join(cwd, 'data', 'media', 'indieweb', 'media'), { recursive: true });
    writeFileSync(path.join(cwd, 'data', 'media', 'indieweb', 'media', 'abcdefghijklmnopqrstuv.png'), randomPng(100));
    backupDir = path.join(cwd, 'backup');
    const backup = await runCli(['backup', backupDir], { cwd });
    expect(backup.code).toBe(0);
  });

  /** A copy of the backup to spoil. */
  function copyOfBackup(): string {
    const copy = path.join(temporaryDir('spoiled'), 'backup');
    mkdirSync(copy);
    const copyTree = (from: string, to: string) => {
      for (const entry of readdirSync(from, { withFileTypes: true })) {
        if (entry.isDirectory()) {
          mkdirSync(path.join(to, entry.name));
          copyTree(path.join(from, entry.name), path.join(to, entry.name));
        } else writeFileSync(path.join(to, entry.name), readFileSync(path.join(from, entry.name)));
      }
    };
    copyTree(backupDir, copy);
    return copy;
  }

  async function restoreInto(source: string, dataDir?: string) {
    const target = dataDir ?? path.join(temporaryDir('restore'), 'data');
    return { target, result: await runCli(['restore', source, '--data-dir', target], { cwd }) };
  }

  it('exit 1 and changes nothing when the data directory is not empty', async () => {
    const target = path.join(temporaryDir('restore'), 'data');
    mkdirSync(target);
    writeFileSync(path.join(target, 'keep.txt'), 'mine');
    const { result } = await restoreInto(backupDir, target);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `indiestack: ${target} is not empty: restore only into an empty data directory (give a new one with --data-dir)\n`,
    );
    expect(readdirSync(target)).toEqual(['keep.txt']);
  });

  it('exit 1 when a file does not match its checksum, and writes nothing', async () => {
    const spoiled = copyOfBackup();
    const media = path.join(spoiled, 'media', 'indieweb', 'media', 'abcdefghijklmnopqrstuv.png');
    const bytes = readFileSync(media);
    bytes[bytes.length - 1] = bytes[bytes.length - 1]! ^ 0xff;
    writeFileSync(media, bytes);
    const { target, result } = await restoreInto(spoiled);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'indiestack: media/indieweb/media/abcdefghijklmnopqrstuv.png does not match its checksum in manifest.json: the backup is damaged\n',
    );
    expect(existsSync(target)).toBe(false);
  });

  it('exit 1 when the backup comes from a newer schema', async () => {
    const spoiled = copyOfBackup();
    const manifest = JSON.parse(readFileSync(path.join(spoiled, 'manifest.json'), 'utf8')) as { database: { migrations: string[] } };
    manifest.database.migrations.push('9999-from-the-future');
    writeFileSync(path.join(spoiled, 'manifest.json'), JSON.stringify(manifest));
    const { target, result } = await restoreInto(spoiled);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^indiestack: the backup's database has a newer schema than this indiestack knows \(migration 9999-from-the-future\); restore it with indiestack \S+ or newer\n$/,
    );
    expect(existsSync(target)).toBe(false);
  });

  it('exit 1 for a backup that did not finish (no manifest) or a manifest naming a path outside the backup', async () => {
    const unfinished = copyOfBackup();
    rmSync(path.join(unfinished, 'manifest.json'));
    const first = await restoreInto(unfinished);
    expect(first.result.code).toBe(1);
    expect(first.result.stderr).toContain('holds no manifest.json: not a backup, or one that did not finish');

    const escaping = copyOfBackup();
    const manifest = JSON.parse(readFileSync(path.join(escaping, 'manifest.json'), 'utf8')) as { files: { path: string }[] };
    manifest.files[0]!.path = 'media/../../../etc/passwd';
    writeFileSync(path.join(escaping, 'manifest.json'), JSON.stringify(manifest));
    const second = await restoreInto(escaping);
    expect(second.result.code).toBe(1);
    expect(second.result.stderr).toBe(
      'indiestack: manifest.json is not a valid indiestack backup manifest: a file path is not a plain path inside the backup\n',
    );
    expect(existsSync(second.target)).toBe(false);
  });

  interface ManifestText {
    sites: boolean;
    directories: string[];
    files: { path: string; bytes: number; sha256: string; mode: number }[];
  }
  const MEDIA_FILE = 'media/indieweb/media/abcdefghijklmnopqrstuv.png';
  const readManifest = (dir: string) => JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as ManifestText;
  const writeManifest = (dir: string, manifest: ManifestText) => writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(manifest));
  const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
  /** Lists `relative` in the manifest with the size and checksum of `bytes`, as a crafted backup would. */
  function listAs(dir: string, relative: string, bytes: Buffer, mode = 0o644): void {
    const manifest = readManifest(dir);
    manifest.files = manifest.files.filter((file) => file.path !== relative);
    manifest.files.push({ path: relative, bytes: bytes.length, sha256: sha256(bytes), mode });
    writeManifest(dir, manifest);
  }

  /** A refusal as the operator sees it: exit 1, one line on stderr, and no data directory written. */
  function expectRefused(outcome: { target: string; result: { code: number | null; stderr: string } }, line: string): void {
    expect(outcome.result.code).toBe(1);
    expect(outcome.result.stderr).toBe(`indiestack: ${line}\n`);
    expect(existsSync(outcome.target)).toBe(false);
  }

  describe('a crafted backup (issue 28 F16)', () => {
    it("a symbolic link to a file outside the backup, listed with that file's checksum: refused, never followed", async () => {
      const crafted = copyOfBackup();
      const outside = path.join(temporaryDir('outside'), 'secret.txt');
      writeFileSync(outside, 'a file of the operator that must not land in the media directory');
      rmSync(path.join(crafted, MEDIA_FILE));
      symlinkSync(outside, path.join(crafted, MEDIA_FILE));
      listAs(crafted, MEDIA_FILE, readFileSync(outside));
      expectRefused(
        await restoreInto(crafted),
        `${MEDIA_FILE} in the backup is a symbolic link, not a regular file: a restore reads regular files only, and never follows links`,
      );
    });

    it('a directory of the backup that is a symbolic link to a directory outside: refused', async () => {
      const crafted = copyOfBackup();
      const outside = temporaryDir('outside-dir');
      renameSync(path.join(crafted, 'media', 'indieweb'), path.join(outside, 'indieweb'));
      symlinkSync(path.join(outside, 'indieweb'), path.join(crafted, 'media', 'indieweb'));
      expectRefused(
        await restoreInto(crafted),
        'media/indieweb in the backup is a symbolic link, not a regular file: a restore reads regular files only, and never follows links',
      );
    });

    it("an executable .git/hooks/post-commit for the files handler's repository: refused, nothing written", async () => {
      const crafted = copyOfBackup();
      const hook = Buffer.from('#!/bin/sh\ntouch "$HOME/pwned"\n');
      mkdirSync(path.join(crafted, 'sites', '.git', 'hooks'), { recursive: true });
      writeFileSync(path.join(crafted, 'sites', '.git', 'hooks', 'post-commit'), hook, { mode: 0o755 });
      const manifest = readManifest(crafted);
      manifest.sites = true;
      manifest.directories.push('sites', 'sites/.git', 'sites/.git/hooks');
      writeManifest(crafted, manifest);
      listAs(crafted, 'sites/.git/hooks/post-commit', hook, 0o755);
      expectRefused(
        await restoreInto(crafted),
        'the backup holds a git hook (sites/.git/hooks/post-commit): hooks are never restored, since git would run them; take it out of the backup and manifest.json to restore the rest',
      );
      // a submodule's hooks, and the name in other case (a case-insensitive disk), too
      for (const hookPath of ['sites/.git/modules/theme/hooks/pre-commit', 'sites/.GIT/Hooks/post-commit']) {
        const other = copyOfBackup();
        mkdirSync(path.join(other, path.dirname(hookPath)), { recursive: true });
        writeFileSync(path.join(other, hookPath), hook, { mode: 0o755 });
        listAs(other, hookPath, hook, 0o755);
        const outcome = await restoreInto(other);
        expect(outcome.result.code).toBe(1);
        expect(outcome.result.stderr).toContain(`the backup holds a git hook (${hookPath})`);
        expect(existsSync(outcome.target)).toBe(false);
      }
    });

    it('a named pipe listed as a file: refused at once (never waits for a writer)', async () => {
      const crafted = copyOfBackup();
      rmSync(path.join(crafted, MEDIA_FILE));
      execFileSync('mkfifo', [path.join(crafted, MEDIA_FILE)]);
      listAs(crafted, MEDIA_FILE, Buffer.alloc(0));
      expectRefused(
        await restoreInto(crafted),
        `${MEDIA_FILE} in the backup is a named pipe, not a regular file: a restore reads regular files only, and never follows links`,
      );
    });

    it('a device listed as a file (made with mknod where allowed, else a link to /dev/null): refused', async () => {
      const crafted = copyOfBackup();
      const entry = path.join(crafted, MEDIA_FILE);
      rmSync(entry);
      let device = true;
      try {
        execFileSync('mknod', [entry, 'c', '1', '3'], { stdio: 'ignore' });
        device = statSync(entry).isCharacterDevice();
      } catch {
        device = false;
      }
      if (!device) {
        rmSync(entry, { force: true });
        symlinkSync('/dev/null', entry);
      }
      listAs(crafted, MEDIA_FILE, Buffer.alloc(0));
      expectRefused(
        await restoreInto(crafted),
        `${MEDIA_FILE} in the backup is ${device ? 'a device' : 'a symbolic link'}, not a regular file: a restore reads regular files only, and never follows links`,
      );
    });

    it("a path with '..' and a checksum mismatch: refused (as before)", async () => {
      const escaping = copyOfBackup();
      const manifest = readManifest(escaping);
      manifest.files[0]!.path = 'sites/../../outside';
      writeManifest(escaping, manifest);
      expectRefused(
        await restoreInto(escaping),
        'manifest.json is not a valid indiestack backup manifest: a file path is not a plain path inside the backup',
      );
      const damaged = copyOfBackup();
      writeFileSync(path.join(damaged, MEDIA_FILE), randomPng(100));
      expectRefused(await restoreInto(damaged), `${MEDIA_FILE} does not match its checksum in manifest.json: the backup is damaged`);
    });
  });

  it('backup leaves git hooks out (with a warning, the *.sample files without one); the backup restores', async () => {
    const hooks = path.join(cwd, 'data', 'sites', '.git', 'hooks');
    mkdirSync(hooks, { recursive: true });
    writeFileSync(path.join(hooks, 'post-commit'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    writeFileSync(path.join(hooks, 'pre-commit.sample'), '#!/bin/sh\n', { mode: 0o755 });
    writeFileSync(path.join(cwd, 'data', 'sites', '.git', 'HEAD'), 'ref: refs/heads/main\n');
    chmodSync(path.join(hooks, 'post-commit'), 0o755);
    try {
      const out = path.join(temporaryDir('hooks-backup'), 'backup');
      const backup = await runCli(['backup', out], { cwd });
      expect(backup.code).toBe(0);
      expect(backup.stderr).toBe(
        `indiestack: warning: left out 1 git hook file in ${path.join(cwd, 'data', 'sites')}: hooks are not backed up (a restore would refuse them)\n`,
      );
      const listed = readManifest(out).files.map((file) => file.path);
      expect(listed).toContain('sites/.git/HEAD');
      expect(listed.filter((name) => name.includes('hooks'))).toEqual([]);
      const { target, result } = await restoreInto(out);
      expect(result.code).toBe(0);
      expect(readdirSync(path.join(target, 'sites', '.git', 'hooks'))).toEqual([]);
    } finally {
      rmSync(path.join(cwd, 'data', 'sites'), { recursive: true, force: true });
    }
  });

  it('backup exit 1 into a non-empty directory and where there is no database', async () => {
    const into = await runCli(['backup', backupDir], { cwd });
    expect(into.code).toBe(1);
    expect(into.stderr).toBe(`indiestack: ${backupDir} is not empty: give a new directory for each backup\n`);
    const nowhere = temporaryDir('no-database');
    const empty = await runCli(['backup', 'out'], { cwd: nowhere });
    expect(empty.code).toBe(1);
    expect(empty.stderr).toMatch(/^indiestack: no database at \S+indiestack\.sqlite: run backup where `indiestack serve` runs/);
    expect(existsSync(path.join(nowhere, 'out'))).toBe(false);
    expect(existsSync(path.join(nowhere, 'data'))).toBe(false);
  });
});
