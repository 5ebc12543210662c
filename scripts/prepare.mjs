// `prepare` (npm install, npm ci, and npx when it sets up this clone as a package): build dist/ with tsc, unless
// it is already newer than everything it is built from. npx installs the clone into its cache on the first
// `npx indiestack …` and runs this again; without the check that meant a second whole build in silence.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

function newest(dir) {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(full) : statSync(full).mtimeMs);
  }
  return latest;
}

function builtAt() {
  try {
    return statSync(path.join(root, 'dist', '.built')).mtimeMs;
  } catch {
    return 0;
  }
}

const sources = Math.max(
  newest(path.join(root, 'src')),
  ...['package.json', 'tsconfig.json', 'tsconfig.build.json'].map((name) => statSync(path.join(root, name)).mtimeMs),
);
if (builtAt() > sources) {
  console.error('indiestack: dist/ is up to date');
} else {
  const build = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit', shell: true });
  process.exit(build.status ?? 1);
}
