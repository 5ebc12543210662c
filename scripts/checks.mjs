// `npm test`'s static checks, side by side with the test run: the type check and the format check each leave a
// core half idle (tsc is one thread, prettier waits on files), and so does vitest while its workers start and wait
// on sockets, databases and browsers, so together they take little more than the test run alone. The tests' output
// streams as it comes; each check's output is printed whole once the tests have ended, never interleaved. The exit
// code is non-zero when a check or the tests failed.
//
//   node scripts/checks.mjs                 the checks alone
//   node scripts/checks.mjs -- vitest run   the checks and the command beside them
import { spawn } from 'node:child_process';

const CHECKS = ['typecheck', 'format:check'];
const dashes = process.argv.indexOf('--');
const beside = dashes === -1 ? [] : process.argv.slice(dashes + 1);

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

/** The command given after `--`, its output straight to this terminal; resolves to its exit code. */
function runBeside(command) {
  return new Promise((resolve) => {
    const child = spawn('npx', ['--no-install', ...command], { stdio: 'inherit', shell: process.platform === 'win32' });
    child.once('error', (error) => {
      process.stderr.write(`${command.join(' ')}: ${error.message}\n`);
      resolve(1);
    });
    child.once('close', (code, signal) => resolve(code ?? (signal === null ? 1 : 128)));
  });
}

const [results, besideCode] = await Promise.all([Promise.all(CHECKS.map(run)), beside.length > 0 ? runBeside(beside) : 0]);
for (const { script, code, output } of results) {
  process.stderr.write(`> ${script}: ${code === 0 ? 'passed' : `failed (exit ${code})`}\n`);
  if (code !== 0 || output.length > 0) process.stderr.write(output);
}
process.exitCode = results.some((result) => result.code !== 0) || besideCode !== 0 ? 1 : 0;
