import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createFilesHandler } from '../../src/content/handlers/files/handler.js';
import { describeMicropubHandlerContract } from '../../src/testing/micropub-contract.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'indiestack-files-contract-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Contract',
  GIT_AUTHOR_EMAIL: 'contract@example.com',
  GIT_COMMITTER_NAME: 'Contract',
  GIT_COMMITTER_EMAIL: 'contract@example.com',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
};

/** A fresh content directory per test, so every test starts from an empty site. */
function freshDir(): string {
  return mkdtempSync(path.join(root, 'site-'));
}

describeMicropubHandlerContract(
  'files handler (YAML)',
  () => createFilesHandler({ baseUrl: 'https://id.example', contentDir: freshDir(), git: 'off' }),
  { describe, it, expect },
);

describeMicropubHandlerContract(
  'files handler (TOML)',
  () => createFilesHandler({ baseUrl: 'https://id.example', contentDir: freshDir(), frontMatter: 'toml', git: 'off' }),
  { describe, it, expect },
);

describeMicropubHandlerContract(
  'files handler (git repository, one commit per operation)',
  () => {
    const contentDir = freshDir();
    execFileSync('git', ['init', '--quiet', '-b', 'main', contentDir], { env: GIT_ENV });
    return createFilesHandler({ baseUrl: 'https://id.example', contentDir, git: 'commit', gitEnv: GIT_ENV });
  },
  { describe, it, expect },
);

describeMicropubHandlerContract(
  'files handler (one shared site directory, flat templates)',
  () =>
    createFilesHandler({
      baseUrl: 'https://id.example',
      contentDir: freshDir(),
      userDir: '{id}',
      siteUrl: 'https://example.com/~{user}',
      defaultTemplates: { path: 'posts/{slug}/index.md', url: '{site}/{slug}/' },
      git: 'off',
    }),
  { describe, it, expect },
);
