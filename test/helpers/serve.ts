/**
 * A real `indiestack serve` process on a free loopback port, for tests that
 * need what only a process has: signals, exit codes, several instances.
 */
import { once } from 'node:events';
import type { ChildProcess } from 'node:child_process';
import { startCli } from './cli.js';
import { freePort } from './net.js';

export interface ServeProcess {
  readonly child: ChildProcess;
  readonly port: number;
  readonly base: string;
  /** Everything the process wrote to stderr so far (its log at the level the env sets). */
  readonly log: string[];
}

/** Polls `check` every 200 ms until it says true or `ms` pass; errors count as false. */
export async function waitFor(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return true;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return false;
}

/** Starts `serve` in `cwd` and waits until /healthz answers 200. */
export async function startServe(cwd: string, env: Record<string, string> = {}, port?: number): Promise<ServeProcess> {
  const chosen = port ?? (await freePort());
  const base = `http://127.0.0.1:${chosen}`;
  const child = startCli(['serve', '--port', String(chosen)], { cwd, env: { INDIEWEB_LOG_LEVEL: 'error', ...env } });
  const log: string[] = [];
  child.stdout?.resume();
  child.stderr?.on('data', (chunk: Buffer) => log.push(chunk.toString('utf8')));
  // a process that has exited answers nothing, whatever else may listen on its port
  const up = await waitFor(async () => child.exitCode === null && (await fetch(`${base}/healthz`)).ok, 20_000);
  if (!up) {
    child.kill('SIGKILL');
    throw new Error(`indiestack serve did not start: ${log.join('')}`);
  }
  return { child, port: chosen, base, log };
}

/** Kills the process if it still runs. */
export async function killServe(serve: ServeProcess | undefined): Promise<void> {
  if (serve === undefined || serve.child.exitCode !== null || serve.child.signalCode !== null) return;
  serve.child.kill('SIGKILL');
  await once(serve.child, 'exit');
}
