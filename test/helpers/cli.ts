import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The built `indiestack` bin, as users run it (`npm test` builds first). */
export const BIN = fileURLToPath(new URL('../../bin/indiestack.js', import.meta.url));

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** The environment without any INDIEWEB_ setting of the machine running the tests. */
export function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !name.startsWith('INDIEWEB_')) env[name] = value;
  }
  return { ...env, ...extra };
}

export function startCli(args: readonly string[], options: { cwd: string; env?: Record<string, string> }): ChildProcess {
  return spawn(process.execPath, [BIN, ...args], { cwd: options.cwd, env: cleanEnv(options.env), stdio: ['pipe', 'pipe', 'pipe'] });
}

export function runCli(
  args: readonly string[],
  options: { cwd: string; env?: Record<string, string>; input?: string },
): Promise<CliResult> {
  const child = startCli(args, options);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  child.stdin?.end(options.input ?? '');
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The last non-empty line of a text. */
export function lastLine(text: string): string {
  return text.trimEnd().split('\n').at(-1) ?? '';
}
