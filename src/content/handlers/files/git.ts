/**
 * Git for the files handler: one commit per operation when the site
 * directory is (inside) a git repository, and optionally a push. git runs
 * through `execFile` with argument arrays, never a shell. A failed commit or
 * push never undoes the file: the paths and the push stay pending and are
 * retried with the next operation. Commit messages name the operation, the
 * post type and the post (`Create note "Hello world"`).
 * @module
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import type { FilesGitMode } from '../../../config/config.js';
import type { MicropubProperties } from '../../../contracts/micropub-types.js';
import { isInside } from './site-directory.js';
import { firstString } from './templates.js';

/** The logger the handler reports to (a pino or Fastify logger fits). */
export interface FilesHandlerLog {
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/** Where a repository stands; see {@link GitPublisher.status}. */
export interface GitRepositoryStatus {
  /** Absolute path of the repository's working tree. */
  readonly repository: string;
  /** Files written but not yet committed (a commit failed); committed with the next operation. */
  readonly uncommitted: readonly string[];
  /** True when the last push failed; the next operation pushes again. */
  readonly pendingPush: boolean;
  readonly lastError: string | null;
}

export interface GitPublisherOptions {
  readonly mode: FilesGitMode;
  readonly remote: string;
  /** Only repositories whose working tree lies inside this directory are used (never the one indiestack itself lives in). */
  readonly boundary: string;
  /** The whole environment git runs with; unset means this process's environment. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly log?: FilesHandlerLog;
  /** Push timeout; a push waiting for a password fails after it and is retried. */
  readonly pushTimeoutMs?: number;
}

export interface GitPublisher {
  /** Commits `files` (absolute paths, written or removed) in the repository holding `siteDir`; returns false when git is not used there. */
  commit(siteDir: string, files: readonly string[], message: string): Promise<boolean>;
  /** Pushes every repository with commits to publish (call it outside the request's critical path). */
  push(): Promise<void>;
  status(): readonly GitRepositoryStatus[];
}

interface RepositoryState {
  readonly root: string;
  readonly uncommitted: Set<string>;
  identity: string[] | null;
  needsPush: boolean;
  pendingPush: boolean;
  lastError: string | null;
}

interface GitResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** A one-line commit subject: no control characters, at most 72 characters. */
export function commitSubject(text: string): string {
  const clean = text
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return clean.length > 72 ? `${clean.slice(0, 71)}…` : clean;
}

/** How much of a name or content the commit label is made from. */
const LABEL_SOURCE_CHARS = 2000;

/** What a commit message calls the entry: its name, the start of its content, the URL it responds to, or its slug. */
function labelOf(properties: MicropubProperties, slug: string): string {
  const content = properties.content?.[0];
  const fields = typeof content === 'object' && content !== null ? (content as Record<string, unknown>) : {};
  // the label needs 50 characters: only the start of the content is looked at, and tags are dropped with an
  // expression that cannot backtrack (`[^<>]`), so `<<<<…` costs one pass instead of quadratic time
  const contentText =
    typeof content === 'string'
      ? content
      : typeof fields.value === 'string'
        ? fields.value
        : typeof fields.html === 'string'
          ? fields.html.slice(0, LABEL_SOURCE_CHARS).replace(/<[^<>]*>/g, ' ')
          : '';
  const label =
    firstString(properties.name) ??
    firstString([contentText]) ??
    firstString(properties['like-of']) ??
    firstString(properties['repost-of']) ??
    firstString(properties['bookmark-of']) ??
    firstString(properties['in-reply-to']) ??
    slug;
  const oneLine = label.slice(0, LABEL_SOURCE_CHARS).replace(/\s+/g, ' ').trim();
  const chars = [...oneLine];
  if (chars.length <= 50) return oneLine;
  const cut = chars.slice(0, 49).join('');
  const space = cut.lastIndexOf(' ');
  return `${space > 30 ? cut.slice(0, space) : cut}…`;
}

/** The commit message of one operation on a post, e.g. `Create note "Hello world"`. */
export function commitMessage(verb: string, postType: string, properties: MicropubProperties, slug: string): string {
  return commitSubject(`${verb} ${postType} "${labelOf(properties, slug)}"`);
}

export function createGitPublisher(options: GitPublisherOptions): GitPublisher {
  const repositories = new Map<string, RepositoryState>();
  const pushTimeout = options.pushTimeoutMs ?? 60_000;

  function git(cwd: string, args: readonly string[], timeout = 30_000): Promise<GitResult> {
    return new Promise((resolve) => {
      execFile(
        'git',
        // paths are literal: a file name can never act as a glob or a pathspec magic word
        ['--literal-pathspecs', '-c', 'core.quotepath=off', ...args],
        { cwd, timeout, maxBuffer: 4 * 1024 * 1024, windowsHide: true, ...(options.env === undefined ? {} : { env: options.env }) },
        (error, stdout, stderr) => {
          const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
          resolve({ code, stdout: String(stdout), stderr: String(stderr) || (error?.message ?? '') });
        },
      );
    });
  }

  const firstLine = (result: GitResult) =>
    // security: a remote URL may carry credentials; they never reach a log
    (
      result.stderr
        .trim()
        .split('\n')
        .find((line) => line.trim() !== '') ?? `git exited with ${result.code}`
    ).replace(/\/\/[^/@\s]+@/g, '//***@');

  async function repositoryOf(siteDir: string): Promise<RepositoryState | null> {
    if (!existsSync(siteDir)) return null;
    const found = await git(siteDir, ['rev-parse', '--show-toplevel']);
    if (found.code !== 0) return null;
    const root = await realpath(found.stdout.trim());
    // security: a repository above the content directory (e.g. the one indiestack is cloned in) is never touched
    if (!isInside(root, await realpath(options.boundary).catch(() => options.boundary))) return null;
    let state = repositories.get(root);
    if (state === undefined) {
      // needsPush starts true: commits left unpushed before a restart go out with the first operation
      state = { root, uncommitted: new Set(), identity: null, needsPush: true, pendingPush: false, lastError: null };
      repositories.set(root, state);
    }
    if (state.identity === null) {
      const committer = await git(root, ['var', 'GIT_COMMITTER_IDENT']);
      const author = await git(root, ['var', 'GIT_AUTHOR_IDENT']);
      // a server often has no git identity; commit as indiestack rather than fail every time
      state.identity =
        committer.code === 0 && author.code === 0 ? [] : ['-c', 'user.name=indiestack', '-c', 'user.email=indiestack@localhost'];
    }
    return state;
  }

  async function commitIn(state: RepositoryState, message: string): Promise<void> {
    const candidates = [...state.uncommitted];
    const tracked = await git(state.root, ['ls-files', '-z', '--', ...candidates]);
    const known = new Set(tracked.stdout.split('\0').filter((line) => line !== ''));
    const paths = candidates.filter((relative) => known.has(relative) || existsSync(path.join(state.root, relative)));
    if (paths.length === 0) return;
    const added = await git(state.root, ['add', '-A', '--', ...paths]);
    if (added.code !== 0) throw new Error(`git add failed: ${firstLine(added)}`);
    const staged = await git(state.root, ['diff', '--cached', '--quiet', '--', ...paths]);
    if (staged.code === 0) {
      state.uncommitted.clear();
      return;
    }
    // --only: whatever else a person has staged in the same repository stays out of this commit
    const committed = await git(state.root, [...(state.identity ?? []), 'commit', '--quiet', '-m', message, '--only', '--', ...paths]);
    if (committed.code !== 0) throw new Error(`git commit failed: ${firstLine(committed)}`);
    state.uncommitted.clear();
    state.needsPush = true;
  }

  return {
    async commit(siteDir, files, message) {
      if (options.mode === 'off') return false;
      const state = await repositoryOf(siteDir);
      if (state === null) return false;
      for (const file of files) state.uncommitted.add(path.relative(state.root, file).split(path.sep).join('/'));
      try {
        await commitIn(state, message);
        if (state.lastError?.startsWith('git commit') || state.lastError?.startsWith('git add')) state.lastError = null;
      } catch (error) {
        state.lastError = error instanceof Error ? error.message : String(error);
        options.log?.error(
          { err: error, repository: state.root, files: [...state.uncommitted] },
          'files handler: commit failed; the files are written and will be committed with the next operation',
        );
      }
      return true;
    },

    async push() {
      if (options.mode !== 'push') return;
      for (const state of repositories.values()) {
        if (!state.needsPush && !state.pendingPush) continue;
        const pushed = await git(state.root, ['push', '--quiet', '--', options.remote, 'HEAD'], pushTimeout);
        if (pushed.code === 0) {
          state.needsPush = false;
          state.pendingPush = false;
          state.lastError = null;
        } else {
          state.pendingPush = true;
          state.lastError = `git push failed: ${firstLine(pushed)}`;
          options.log?.warn(
            { repository: state.root, remote: options.remote, reason: state.lastError },
            'files handler: push failed; it is retried with the next operation',
          );
        }
      }
    },

    status() {
      return [...repositories.values()].map((state) => ({
        repository: state.root,
        uncommitted: [...state.uncommitted],
        pendingPush: state.pendingPush,
        lastError: state.lastError,
      }));
    },
  };
}
