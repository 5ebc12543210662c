/**
 * HTML and microformats of pages we did not write are parsed here, off the
 * event loop (issue 28, class 1): webmention sources, client pages, cited
 * pages, webmention endpoint discovery, the doctor's reading of a homepage.
 * A worker-thread pool (piscina) runs the parse; each task has a time
 * budget and the worker a memory limit, and a task over either is stopped
 * (piscina terminates its worker) and fails with {@link ParseFailure} — a
 * clear failure of that one job or request, never a stall of the server.
 * The queue is bounded too: past it a task fails at once as `busy`.
 *
 * The pool belongs to the process, like libuv's thread pool: every plugin
 * instance and CLI command shares it; it starts on the first task, and its
 * idle workers end after 30 s and never keep the process alive, so neither
 * the server nor the CLI has to close it. {@link closeParsePool} stops it at
 * once (tests, or a host that wants its threads back).
 * @module
 */
import os from 'node:os';
import { Piscina } from 'piscina';
import { createSemaphore } from '../core/semaphore.js';
import type { ParseOutcome, ParseTask } from './worker.js';

/** The bounds every parse runs within. */
export const PARSE_LIMITS = Object.freeze({
  /**
   * Milliseconds one page may take, from the start of its parse. A legitimate page at the 1 MiB fetch cap
   * with 50,000 elements reads in about 0.8–1.4 s on a busy 2-core machine; 2 s failed such pages whenever the
   * machine was loaded, so the budget leaves room for that and still ends a hostile page in seconds.
   */
  budgetMs: 5_000,
  /** Heap of one worker, MiB: a page whose tree would need more fails (the worker is replaced). */
  heapMb: 256,
  /** Workers at most: one per core, at least one, at most four. */
  threads: Math.max(1, Math.min(4, os.availableParallelism())),
  /** Tasks waiting at most; past it a parse fails at once as `busy`. */
  queue: 256,
});

export type ParseFailureKind = 'over-budget' | 'busy' | 'crashed' | 'refused';

/** A parse that did not give an answer: over its time or memory budget, the pool busy, or the page refused by the parser's own bounds. */
export class ParseFailure extends Error {
  override readonly name = 'ParseFailure';
  readonly kind: ParseFailureKind;
  /** For `refused`: the name of the error the page raised (e.g. SourceTooComplexError). */
  readonly causeName: string | null;
  constructor(kind: ParseFailureKind, message: string, causeName: string | null = null) {
    super(message);
    this.kind = kind;
    this.causeName = causeName;
  }
}

/**
 * Running from TypeScript source (the test runner), the worker loads `.ts`
 * modules: Node strips their types, and this resolve hook maps the `.js`
 * specifiers the source uses to the `.ts` file beside them.
 */
const TS_RESOLVE_HOOK = `export async function resolve(specifier, context, next) {
  try { return await next(specifier, context); } catch (error) {
    const local = specifier.endsWith('.js') && (specifier.startsWith('.') || specifier.startsWith('file:'));
    if (error && error.code === 'ERR_MODULE_NOT_FOUND' && local) return next(specifier.slice(0, -3) + '.ts', context);
    throw error;
  }
}`;
const dataUrl = (source: string) => `data:text/javascript,${encodeURIComponent(source)}`;
const FROM_SOURCE = import.meta.url.endsWith('.ts');
const SOURCE_EXEC_ARGV = [
  '--disable-warning=ExperimentalWarning',
  '--import',
  dataUrl(`import { register } from 'node:module'; register(${JSON.stringify(dataUrl(TS_RESOLVE_HOOK))});`),
];

let pool: Piscina | null = null;

/*
 * Tasks wait their turn here, not in piscina's queue, so that a task's time
 * budget starts when a worker takes it: a page waiting behind slow ones is
 * not failed for their time.
 */
const turns = createSemaphore(PARSE_LIMITS.threads);

function thePool(): Piscina {
  pool ??= new Piscina({
    filename: new URL(FROM_SOURCE ? './worker.ts' : './worker.js', import.meta.url).href,
    minThreads: 0,
    maxThreads: PARSE_LIMITS.threads,
    idleTimeout: 30_000,
    resourceLimits: { maxOldGenerationSizeMb: PARSE_LIMITS.heapMb },
    // from source: our hook and nothing of the runner's own flags; built: the worker needs no flags
    execArgv: FROM_SOURCE ? SOURCE_EXEC_ARGV : [],
  });
  return pool;
}

/**
 * Calls `name` of the module at `module` (a file URL of ours, e.g.
 * `new URL('./parse.js', import.meta.url)`) with `args` in a worker, within
 * {@link PARSE_LIMITS}. Arguments and result are structured-cloned. An
 * error the function throws comes back as a `refused` {@link ParseFailure}
 * carrying its name and message.
 */
export async function parseOffThread<T>(
  module: URL,
  name: string,
  args: readonly unknown[],
  options: { budgetMs?: number } = {},
): Promise<T> {
  const task: ParseTask = { module: module.href, name, args };
  const budget = options.budgetMs ?? PARSE_LIMITS.budgetMs;
  if (turns.waiting >= PARSE_LIMITS.queue) throw new ParseFailure('busy', 'the server is reading too many pages at once; try again later');
  const outcome = await turns.run(async () => {
    try {
      // the budget starts now, when a worker is free for this page
      return (await thePool().run(task, { signal: AbortSignal.timeout(budget) })) as ParseOutcome;
    } catch (error) {
      const reason = (error instanceof Error ? `${error.name} ${error.message}` : String(error)).toLowerCase();
      if (reason.includes('abort') || reason.includes('timeout'))
        throw new ParseFailure('over-budget', `the page took longer than ${budget} ms to read`);
      // out of memory (ERR_WORKER_OUT_OF_MEMORY) or a worker that died
      throw new ParseFailure('crashed', 'the page could not be read within the memory a page may use');
    }
  });
  if (!outcome.ok) throw new ParseFailure('refused', outcome.message, outcome.name);
  return outcome.value as T;
}

/** Stops the workers (tasks in flight fail); the next task starts a new pool. */
export async function closeParsePool(): Promise<void> {
  const closing = pool;
  pool = null;
  if (closing !== null) await closing.destroy();
}

/** What the pool is doing; for the metrics and tests. */
export function parsePoolStats(): { threads: number; queued: number } {
  return { threads: pool === null ? 0 : pool.threads.length, queued: turns.waiting };
}
