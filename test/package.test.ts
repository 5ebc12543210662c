import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Every module a built file reaches through static imports, following only relative ones. */
function importGraph(entry: string): { files: Set<string>; external: Set<string> } {
  const files = new Set<string>();
  const external = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    const source = readFileSync(file, 'utf8');
    for (const match of source.matchAll(
      /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g,
    )) {
      const specifier = match[1] ?? match[2] ?? '';
      if (specifier.startsWith('.')) visit(path.resolve(path.dirname(file), specifier));
      else external.add(specifier);
    }
  };
  visit(entry);
  return { files, external };
}

describe('the built package', () => {
  it('resolves its subpath exports by name', async () => {
    const main = await import('indiestack');
    const contracts = await import('indiestack/contracts');
    const testing = await import('indiestack/testing');
    expect(typeof main.indieweb).toBe('function');
    expect(typeof main.createServer).toBe('function');
    expect(typeof contracts.HandlerValueError).toBe('function');
    expect(typeof testing.createManualClock).toBe('function');
    expect(typeof testing.describeMicropubHandlerContract).toBe('function');
    expect(typeof testing.createMemoryHandler).toBe('function');
    expect(typeof testing.applyUpdate).toBe('function');
    expect(testing.BUILT_IN_POST_TYPES.map((postType) => postType.type)).toContain('note');
  });

  it('indiestack/contracts pulls in neither Fastify nor Kysely nor anything else', () => {
    const { files, external } = importGraph(path.join(root, 'dist/contracts/index.js'));
    expect([...external]).toEqual([]);
    for (const file of files) expect(path.relative(path.join(root, 'dist/contracts'), file)).not.toMatch(/^\.\./);
  });

  it('recognises a HandlerValueError from another copy of the package by its brand', async () => {
    const built = await import('indiestack/contracts');
    const source = await import('../src/contracts/handler-errors.js');
    expect(built.isHandlerValueError(new source.HandlerValueError('x'))).toBe(true);
    expect(built.isHandlerValueError(new Error('x'))).toBe(false);
  });

  it('ships a bin that runs after a build', () => {
    const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
      bin: Record<string, string>;
      scripts: Record<string, string>;
    };
    expect(pkg.bin.indiestack).toBe('./bin/indiestack.js');
    // prepare builds dist/ unless it is already newer than its sources (scripts/prepare.mjs)
    expect(pkg.scripts.prepare).toBe('node scripts/prepare.mjs');
    expect(readFileSync(path.join(root, 'scripts', 'prepare.mjs'), 'utf8')).toContain("spawnSync('npm', ['run', 'build']");
    expect(readFileSync(path.join(root, pkg.bin.indiestack ?? ''), 'utf8').startsWith('#!/usr/bin/env node')).toBe(true);
  });
});

describe('a clone that npm install has built (issue 30 item 1)', () => {
  it('prepare does not build dist/ again while it is newer than its sources, so the first `npx indiestack` starts at once', async () => {
    const { spawnSync } = await import('node:child_process');
    const { statSync } = await import('node:fs');
    const marker = path.join(root, 'dist', '.built');
    const before = statSync(marker).mtimeMs;
    const run = spawnSync(process.execPath, [path.join(root, 'scripts', 'prepare.mjs')], { cwd: root, encoding: 'utf8' });
    expect(run.status).toBe(0);
    expect(run.stderr.trim()).toBe('indiestack: dist/ is up to date');
    expect(statSync(marker).mtimeMs).toBe(before);
  });

  it("`npm start` (the README's run command) runs the clone's own bin: npm names the command at once, then the server answers", async () => {
    const { spawn } = await import('node:child_process');
    const { mkdtempSync, rmSync } = await import('node:fs');
    const os = await import('node:os');
    const { freePort } = await import('./helpers/net.js');
    const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    // not `npx indiestack serve`: npm 11 installs a project's own bin into its npx cache (and runs prepare) first
    expect(pkg.scripts.start).toBe('node bin/indiestack.js serve');
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'indiestack-start-'));
    const port = await freePort();
    const child = spawn('npm', ['start', '--', '--port', String(port)], {
      cwd: root,
      env: { ...process.env, INDIEWEB_DATA_DIR: dataDir, INDIEWEB_LOG_LEVEL: 'info' },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let output = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
      await new Promise<void>((resolve, reject) => {
        const check = setInterval(() => {
          if (output.includes('indiestack is serving')) resolve();
          else if (child.exitCode !== null) reject(new Error(`npm start exited: ${output}`));
          else return;
          clearInterval(check);
        }, 50);
      });
      // the first thing a user sees is npm naming what it runs, before the application has loaded
      expect(output.trimStart().split('\n')[0]).toMatch(/^> indiestack@[^ ]+ start$/);
      expect(output).toContain('> node bin/indiestack.js serve');
      const health = await fetch(`http://127.0.0.1:${port}/healthz`);
      expect(health.status).toBe(200);
    } finally {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
      await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)));
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('the lockfile is what npm writes on a fresh install (better-sqlite3 has an install script), so the clone stays clean', () => {
    const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { hasInstallScript?: boolean }>;
    };
    expect(lock.packages['node_modules/better-sqlite3']?.hasInstallScript).toBe(true);
  });
});
