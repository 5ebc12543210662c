/**
 * The V8 settings `indiestack serve` runs with (issue 31). Node sizes V8's
 * young generation from the machine's memory: on the bench machine (23.5 GiB)
 * it grew to 2 × 64 MiB under a create load, more than half of the server's
 * peak memory, though the requests in flight hold well under a megabyte. A
 * young generation of 2 × 8 MiB measured the same throughput.
 *
 * V8 takes these (and glibc {@link SERVE_ENV}) only when the process starts, so `bin/indiestack.js` runs
 * itself again with them, in the same process (`process.execve`: same pid,
 * same stdin/stdout, nothing else has started yet), when the command is
 * `serve` and neither the command line nor `NODE_OPTIONS` sets the young
 * generation's size already — that is how to choose another one. Where
 * `process.execve` does not exist (Windows) the server runs with Node's
 * default. Imports nothing: the bin loads it before anything else.
 * @module
 */

/** What `serve` adds to Node's command line. */
export const SERVE_V8_FLAGS: readonly string[] = Object.freeze(['--max-semi-space-size=8']);

/**
 * What `serve` adds to the environment, unless it is set already: glibc gives
 * every thread that allocates an arena of its own (up to 8 per core); V8's and
 * libuv's threads held about 14 MiB in theirs under the create load, 2 arenas
 * measured the same throughput. Other C libraries ignore it.
 */
export const SERVE_ENV: Readonly<Record<string, string>> = Object.freeze({ MALLOC_ARENA_MAX: '2' });

/** The environment to run `serve` again with: `env` with {@link SERVE_ENV} under it. */
export function serveRelaunchEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...SERVE_ENV, ...env };
}

/** Flags that set the young generation's size: given by the operator, they are kept and nothing is added. */
const OWN_SIZE = /^--(max-semi-space-size|min-semi-space-size|max-heap-size|semi-space-growth-factor)(=|$)/;

/** Global options of the CLI that take a value as the next argument (cli/main.ts). */
const VALUE_OPTIONS = new Set(['--data-dir', '--base-url']);

/** The command of a command line (the arguments after node and the script): its first argument that is not an option. */
export function commandOf(args: readonly string[]): string | undefined {
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    if (arg === '--') return args[index + 1];
    if (VALUE_OPTIONS.has(arg)) index++;
    else if (!arg.startsWith('-')) return arg;
  }
  return undefined;
}

/**
 * The arguments (execPath first) to run this process again with for `serve`,
 * or null when it should run as it is.
 * @param argv `process.argv`
 * @param execArgv `process.execArgv`
 * @param nodeOptions `process.env.NODE_OPTIONS`
 */
export function serveRelaunchArgs(
  execPath: string,
  argv: readonly string[],
  execArgv: readonly string[],
  nodeOptions: string | undefined,
): string[] | null {
  if (commandOf(argv.slice(2)) !== 'serve') return null;
  const given = [...execArgv, ...(nodeOptions ?? '').split(/\s+/)];
  if (given.some((flag) => OWN_SIZE.test(flag))) return null;
  return [execPath, ...SERVE_V8_FLAGS, ...execArgv, ...argv.slice(1)];
}
