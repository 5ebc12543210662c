/**
 * The log of a command's core: a failure the core only logs (a handler that
 * cannot be loaded, a webhook that cannot be queued) is one line on stderr,
 * as the command's own errors are; what a server logs at info or warn is
 * not a command's business. No logging library loads for it.
 * @module
 */
import type { FastifyBaseLogger } from 'fastify';
import type { CliIo } from './io.js';

/** The message and, when the first argument carries one, its error's message: pino's `(object, message)` or `(message)`. */
function lineOf(args: readonly unknown[]): string {
  const [first, second] = args;
  if (typeof first === 'string') return first;
  const message = typeof second === 'string' ? second : 'failed';
  const err = (first as { err?: unknown } | null)?.err;
  return err instanceof Error ? `${message}: ${err.message.split('\n')[0] ?? ''}` : message;
}

export function commandLog(io: Pick<CliIo, 'stderr'>): FastifyBaseLogger {
  const write = (...args: unknown[]) => {
    io.stderr.write(`indiestack: ${lineOf(args)}\n`);
  };
  const quiet = () => {};
  const log = {
    level: 'error',
    fatal: write,
    error: write,
    warn: quiet,
    info: quiet,
    debug: quiet,
    trace: quiet,
    silent: quiet,
    child: () => log,
  };
  // the methods the core calls, with pino's signatures; nothing reads the rest of pino's interface
  return log as unknown as FastifyBaseLogger;
}
