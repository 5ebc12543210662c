#!/usr/bin/env node
// checked before anything loads, so an older Node gets this line instead of a syntax or native-module error
const MINIMUM = '22.19.0'; // "engines" in package.json (a test keeps them equal)
const [major, minor, patch] = process.versions.node.split('.').map(Number);
const [wantMajor, wantMinor, wantPatch] = MINIMUM.split('.').map(Number);
if (major < wantMajor || (major === wantMajor && (minor < wantMinor || (minor === wantMinor && patch < wantPatch)))) {
  process.stderr.write(
    `indiestack needs Node.js ${MINIMUM} or newer (24 recommended); this is v${process.versions.node}. In a clone of indiestack: . scripts/use-node.sh\n`,
  );
  process.exit(1);
}

// `serve` runs itself again, in this same process, with V8's young generation bounded (issue 31; cli/serve-flags.ts)
if (typeof process.execve === 'function') {
  const { serveRelaunchArgs, serveRelaunchEnv } = await import('../dist/cli/serve-flags.js');
  const args = serveRelaunchArgs(process.execPath, process.argv, process.execArgv, process.env.NODE_OPTIONS);
  if (args !== null) {
    try {
      process.execve(process.execPath, args, serveRelaunchEnv(process.env));
    } catch {
      // it could not run again (newer Nodes throw instead of aborting): the server runs with Node's default
    }
  }
}

// compiled code is cached on disk between runs (Node's own cache, under the system's temporary directory): a command starts faster
const { enableCompileCache } = await import('node:module');
enableCompileCache?.();

const { main } = await import('../dist/cli/main.js');

// a reader that stops early (`indiestack token list | head -1`) is not an error of ours: stop quietly
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

process.exitCode = await main(process.argv.slice(2));
