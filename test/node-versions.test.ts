import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, cleanEnv } from './helpers/cli.js';

// semver is npm's own range reader (here through fastify), so ranges are read exactly as `npm install` reads them
const semver = createRequire(import.meta.url)('semver') as {
  satisfies(version: string, range: string): boolean;
  minVersion(range: string): { version: string } | null;
};

const root = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { version?: string; engines?: unknown; os?: string[]; optional?: boolean }>;
};
const script = readFileSync(path.join(root, 'scripts/use-node.sh'), 'utf8');
const minimum = semver.minVersion(pkg.engines.node)?.version ?? '';
/** The first Node 24 release of the LTS line. */
const NODE_24_LTS = '24.11.0';

/** A Node that reports itself as `version`, for the version checks (everything else is the real Node running the tests). */
function olderNode(version: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'indiestack-old-node-'));
  const preload = `data:text/javascript,Object.defineProperty(process.versions,"node",{value:"${version}"})`;
  writeFileSync(path.join(dir, 'node'), `#!/bin/sh\nexec "${process.execPath}" --import '${preload}' "$@"\n`);
  chmodSync(path.join(dir, 'node'), 0o755);
  temporary.push(dir);
  return dir;
}

const temporary: string[] = [];
afterEach(() => {
  for (const dir of temporary.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function run(command: string, args: readonly string[], options: { cwd?: string; env?: Record<string, string> } = {}) {
  const child = spawn(command, args, { cwd: options.cwd ?? root, env: cleanEnv(options.env), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('supported Node.js versions', () => {
  it('package.json, scripts/use-node.sh and the bin name one minimum, on the 22 line, and the running Node meets it', () => {
    expect(minimum).toMatch(/^22\.\d+\.\d+$/);
    expect(semver.satisfies(NODE_24_LTS, pkg.engines.node)).toBe(true);
    expect(script).toContain(`INDIESTACK_NODE_MINIMUM='${minimum}'`);
    expect(readFileSync(BIN, 'utf8')).toContain(`const MINIMUM = '${minimum}';`);
    expect(semver.satisfies(process.versions.node, pkg.engines.node)).toBe(true);
  });

  it('every package in the lockfile accepts the oldest supported Node 22 and Node 24 (no engine warning on install)', () => {
    const refusing: string[] = [];
    for (const [where, entry] of Object.entries(lock.packages)) {
      // an optional package for other systems (sharp's @img/sharp-win32-ia32) is never installed here
      const os = entry.os;
      if (entry.optional === true && os !== undefined && !os.includes(process.platform)) continue;
      const engines = entry.engines as { node?: unknown } | undefined;
      if (typeof engines?.node !== 'string') continue;
      for (const version of [minimum, NODE_24_LTS]) {
        if (!semver.satisfies(version, engines.node))
          refusing.push(`${where || 'indiestack'}@${entry.version ?? ''} wants node ${engines.node}, not ${version}`);
      }
    }
    expect(refusing).toEqual([]);
  });

  it('the bin refuses an older Node with one line naming the versions and the way out, before loading anything', async () => {
    const old = olderNode('20.19.0');
    const result = await run(path.join(old, 'node'), [BIN, 'user', 'list'], { cwd: old });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toEqual([
      `indiestack needs Node.js ${minimum} or newer (24 recommended); this is v20.19.0. In a clone of indiestack: . scripts/use-node.sh`,
    ]);
    // nothing ran: no ./data was created in the working directory
    expect(readdirSync(old)).toEqual(['node']);
  });

  it('use-node.sh keeps a supported Node on PATH and changes nothing else', async () => {
    const here = path.dirname(process.execPath);
    const result = await run(
      'bash',
      ['-c', '. scripts/use-node.sh && echo "node=$(command -v node) nodedir=${npm_config_nodedir-unset}"'],
      {
        env: { PATH: `${here}:${process.env.PATH ?? ''}` },
      },
    );
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe(`node=${process.execPath} nodedir=${process.env.npm_config_nodedir ?? 'unset'}`);
    expect(result.stderr).toContain(`use-node: using ${process.execPath} v${process.versions.node}`);
  });

  it('use-node.sh fetches Node 24 for a Node that is too old, and says so without closing the shell when it cannot', async () => {
    const old = olderNode('20.19.0');
    // an npm that cannot reach the registry
    writeFileSync(path.join(old, 'npm'), '#!/bin/sh\necho "npm error network unreachable" >&2\nexit 1\n');
    chmodSync(path.join(old, 'npm'), 0o755);
    const checkout = mkdtempSync(path.join(tmpdir(), 'indiestack-clone-'));
    temporary.push(checkout);
    writeFileSync(path.join(checkout, 'package.json'), '{}');
    mkdirSync(path.join(checkout, 'scripts'));
    writeFileSync(path.join(checkout, 'scripts/use-node.sh'), script);
    const result = await run('bash', ['-c', '. scripts/use-node.sh; echo "status $? and the shell goes on"'], {
      cwd: checkout,
      env: { PATH: `${old}:${process.env.PATH ?? ''}` },
    });
    expect(result.stdout.trim()).toBe('status 1 and the shell goes on');
    expect(result.stderr).toContain(`use-node: v20.19.0 on PATH; indiestack needs ${minimum} or newer: fetching Node 24`);
    expect(result.stderr).toMatch(/use-node: could not install node-\w+-\w+@24; install Node\.js 24 from https:\/\/nodejs\.org\//);
  });

  it('use-node.sh outside the root of a clone refuses with a return status, not an exit', async () => {
    const elsewhere = mkdtempSync(path.join(tmpdir(), 'indiestack-elsewhere-'));
    temporary.push(elsewhere);
    const result = await run('bash', ['-c', `. '${path.join(root, 'scripts/use-node.sh')}'; echo "status $?"`], { cwd: elsewhere });
    expect(result.stdout.trim()).toBe('status 1');
    expect(result.stderr).toContain('use-node: run it from the root of the indiestack clone');
  });
});
