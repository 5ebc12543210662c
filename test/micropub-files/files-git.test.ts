import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { HostUser } from '../../src/contracts/accounts.js';
import { createManualClock } from '../../src/core/clock.js';
import { createFilesHandler, type FilesHandlerOptions } from '../../src/content/handlers/files/handler.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'indiestack-files-git-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const ALICE: HostUser = { id: 'user-alice', name: 'alice', me: ['https://alice.example/'], isActive: true };
/** A hermetic git: no global or system configuration, a fixed identity. */
const GIT_ENV = {
  PATH: process.env.PATH,
  HOME: root,
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'Alice Author',
  GIT_AUTHOR_EMAIL: 'alice@alice.example',
  GIT_COMMITTER_NAME: 'indiestack test',
  GIT_COMMITTER_EMAIL: 'test@indiestack.test',
};

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Alice's site directory as a fresh git repository, and a handler on its content directory. */
function setup(options: Partial<FilesHandlerOptions> = {}) {
  const contentDir = mkdtempSync(path.join(root, 'sites-'));
  const site = path.join(contentDir, 'alice');
  mkdirSync(site);
  git(site, 'init', '--quiet', '-b', 'main');
  const log = { warn: vi.fn(), error: vi.fn() };
  const handler = createFilesHandler({
    baseUrl: 'https://id.example',
    contentDir,
    git: 'commit',
    gitEnv: GIT_ENV,
    clock: createManualClock('2025-03-04T05:06:07Z'),
    log,
    ...options,
  });
  return { handler, site, contentDir, log };
}

const subjects = (repository: string) => git(repository, 'log', '--format=%s').trim().split('\n');

describe('files handler: git', () => {
  it('makes one commit per operation, with a message naming the operation and the post', async () => {
    const { handler, site } = setup();
    const created = await handler.createEntry(
      {
        type: ['h-entry'],
        properties: { content: ['Hello world, this is a note that goes on for quite a while longer'], 'mp-slug': ['hello'] },
      },
      ALICE,
    );
    await handler.updateEntry(created.url, { add: { category: ['greetings'] } }, ALICE);
    await handler.deleteEntry(created.url, ALICE);
    await handler.undeleteEntry(created.url, ALICE);
    await handler.createEntry({ type: ['h-entry'], properties: { name: ['On "quotes"\nand lines'] } }, ALICE);
    expect(subjects(site)).toEqual([
      'Create article "On "quotes" and lines"',
      'Undelete note "Hello world, this is a note that goes on for…"',
      'Delete note "Hello world, this is a note that goes on for…"',
      'Update note "Hello world, this is a note that goes on for…"',
      'Create note "Hello world, this is a note that goes on for…"',
    ]);
    expect(git(site, 'show', '--name-status', '--format=', 'HEAD~2').trim()).toBe('D\tcontent/notes/2025/03/hello.md');
    expect(git(site, 'ls-files').trim().split('\n')).toEqual([
      'content/articles/2025/03/on-quotes-and-lines.md',
      'content/notes/2025/03/hello.md',
    ]);
    expect(git(site, 'status', '--porcelain')).toBe('');
    expect(git(site, 'log', '-1', '--format=%an <%ae>')).toBe('Alice Author <alice@alice.example>\n');
  });

  it('labels a commit from 1 MB of `<<<…` HTML content in linear time (issue 23 #5: the tag stripper was quadratic)', async () => {
    const { handler, site } = setup();
    const hostile = `${'<'.repeat(1024 * 1024)}b>tail`;
    const started = performance.now();
    await handler.createEntry({ type: ['h-entry'], properties: { content: [{ html: hostile }], 'mp-slug': ['angles'] } }, ALICE);
    // quadratic stripping took about ten minutes on this input; linear takes milliseconds
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(subjects(site)[0]).toMatch(/^Create note "/);
  });

  it('leaves whatever else is staged in the repository out of its commits', async () => {
    const { handler, site } = setup();
    writeFileSync(path.join(site, 'notes.txt'), 'work in progress');
    git(site, 'add', 'notes.txt');
    await handler.createEntry({ type: ['h-entry'], properties: { content: ['x'], 'mp-slug': ['x'] } }, ALICE);
    expect(git(site, 'show', '--name-only', '--format=', 'HEAD').trim()).toBe('content/notes/2025/03/x.md');
    expect(git(site, 'status', '--porcelain')).toBe('A  notes.txt\n');
  });

  it('never touches a repository that lies above the content directory', async () => {
    const outer = mkdtempSync(path.join(root, 'outer-'));
    git(outer, 'init', '--quiet', '-b', 'main');
    const contentDir = path.join(outer, 'sites');
    const handler = createFilesHandler({ baseUrl: 'https://id.example', contentDir, git: 'commit', gitEnv: GIT_ENV });
    await handler.createEntry({ type: ['h-entry'], properties: { content: ['x'] } }, ALICE);
    expect(() => git(outer, 'rev-parse', 'HEAD')).toThrow();
    expect(handler.gitStatus()).toEqual([]);
  });

  it('does nothing with git when the site is not a repository, or when git is off', async () => {
    const plain = createFilesHandler({
      baseUrl: 'https://id.example',
      contentDir: mkdtempSync(path.join(root, 'plain-')),
      git: 'commit',
      gitEnv: GIT_ENV,
    });
    await plain.createEntry({ type: ['h-entry'], properties: { content: ['x'] } }, ALICE);
    expect(plain.gitStatus()).toEqual([]);
    const { handler, site } = setup({ git: 'off' });
    await handler.createEntry({ type: ['h-entry'], properties: { content: ['x'] } }, ALICE);
    expect(() => git(site, 'rev-parse', 'HEAD')).toThrow();
  });

  it('keeps the file when a commit fails and commits it with the next operation', async () => {
    const { handler, site, log } = setup();
    const hook = path.join(site, '.git/hooks/pre-commit');
    writeFileSync(hook, '#!/bin/sh\nexit 1\n');
    chmodSync(hook, 0o755);
    const first = await handler.createEntry({ type: ['h-entry'], properties: { content: ['first'], 'mp-slug': ['first'] } }, ALICE);
    expect(existsSync(path.join(site, 'content/notes/2025/03/first.md'))).toBe(true);
    expect(handler.gitStatus()[0]).toMatchObject({
      uncommitted: ['content/notes/2025/03/first.md'],
      lastError: expect.stringMatching(/^git commit failed/),
    });
    expect(log.error).toHaveBeenCalledOnce();
    rmSync(hook);
    await handler.createEntry({ type: ['h-entry'], properties: { content: ['second'], 'mp-slug': ['second'] } }, ALICE);
    expect(git(site, 'show', '--name-only', '--format=%s', 'HEAD').trim().split('\n')).toEqual([
      'Create note "second"',
      '',
      'content/notes/2025/03/first.md',
      'content/notes/2025/03/second.md',
    ]);
    expect(handler.gitStatus()[0]).toMatchObject({ uncommitted: [], lastError: null });
    expect((await handler.getEntry(first.url, ALICE))?.properties.content).toEqual(['first']);
  });

  it('commits as "indiestack" when git has no identity at all', async () => {
    const bare = { PATH: process.env.PATH, HOME: root, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', EMAIL: '' };
    const { handler, site } = setup({ gitEnv: bare });
    await handler.createEntry({ type: ['h-entry'], properties: { content: ['x'] } }, ALICE);
    expect(subjects(site)).toHaveLength(1);
  });
});

describe('files handler: git push', () => {
  it('pushes each commit to the remote', async () => {
    const remote = mkdtempSync(path.join(root, 'remote-'));
    git(remote, 'init', '--quiet', '--bare', '-b', 'main');
    const { handler, site } = setup({ git: 'push' });
    git(site, 'remote', 'add', 'origin', remote);
    await handler.createEntry({ type: ['h-entry'], properties: { content: ['pushed'], 'mp-slug': ['pushed'] } }, ALICE);
    await handler.idle();
    expect(subjects(remote)).toEqual(['Create note "pushed"']);
    expect(handler.gitStatus()[0]).toMatchObject({ pendingPush: false, lastError: null });
  });

  it('reports a failed push, keeps file and commit, and pushes everything with the next operation', async () => {
    const remote = mkdtempSync(path.join(root, 'remote-'));
    git(remote, 'init', '--quiet', '--bare', '-b', 'main');
    const { handler, site, log } = setup({ git: 'push', gitRemote: 'backup' });
    git(site, 'remote', 'add', 'backup', path.join(root, 'does-not-exist'));
    const first = await handler.createEntry({ type: ['h-entry'], properties: { content: ['first'], 'mp-slug': ['first'] } }, ALICE);
    await handler.idle();
    expect(existsSync(path.join(site, 'content/notes/2025/03/first.md'))).toBe(true);
    expect(subjects(site)).toEqual(['Create note "first"']);
    expect(handler.gitStatus()[0]).toMatchObject({
      pendingPush: true,
      lastError: expect.stringMatching(/^git push failed: .*does-not-exist/),
    });
    expect(log.warn).toHaveBeenCalledWith(expect.objectContaining({ remote: 'backup' }), expect.stringContaining('push failed'));

    git(site, 'remote', 'set-url', 'backup', remote);
    await handler.updateEntry(first.url, { replace: { content: ['second'] } }, ALICE);
    await handler.idle();
    expect(subjects(remote)).toEqual(['Update note "second"', 'Create note "first"']);
    expect(handler.gitStatus()[0]).toMatchObject({ pendingPush: false, lastError: null });
  });

  it('a remote given as a path works without a named remote', async () => {
    const remote = mkdtempSync(path.join(root, 'remote-'));
    git(remote, 'init', '--quiet', '--bare', '-b', 'main');
    const { handler } = setup({ git: 'push', gitRemote: remote });
    await handler.createEntry({ type: ['h-entry'], properties: { content: ['direct'], 'mp-slug': ['direct'] } }, ALICE);
    await handler.idle();
    expect(subjects(remote)).toEqual(['Create note "direct"']);
  });
});
