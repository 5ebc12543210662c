// `npm test`'s static checks, side by side: the type check and the format check each leave a core half idle
// (tsc is one thread, prettier waits on files), so together they take the time of the longer one. Each one's
// output is printed whole when it ends, never interleaved; the exit code is non-zero when either failed.
import { spawn } from 'node:child_process';

const CHECKS = ['typecheck', 'format:check'];

function run(script) {
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', script], { stdio: ['ignore', 'pipe', 'pipe'], shell: process.platform === 'win32' });
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    child.once('error', (error) => resolve({ script, code: 1, output: Buffer.from(`${error.message}\n`) }));
    child.once('close', (code) => resolve({ script, code: code ?? 1, output: Buffer.concat(output) }));
  });
}

const results = await Promise.all(CHECKS.map(run));
for (const { script, code, output } of results) {
  process.stderr.write(`> ${script}: ${code === 0 ? 'passed' : `failed (exit ${code})`}\n`);
  if (code !== 0 || output.length > 0) process.stderr.write(output);
}
process.exitCode = results.some((result) => result.code !== 0) ? 1 : 0;
