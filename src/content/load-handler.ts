import type { MicropubHandler, MicropubHandlerFactoryOptions } from '../contracts/micropub-handler.js';
import type { Config } from '../config/config.js';
import { loadExport } from '../config/load-callable.js';
import type { Clock } from '../core/clock.js';
import { ConfigError } from '../core/errors.js';
import type { EntriesRepository } from '../storage/repositories/entries.js';
import { createDatabaseHandler } from './handlers/database/handler.js';
import type { FilesHandlerLog } from './handlers/files/handler.js';
import { createMemoryHandlerWithPages, type MemoryEntryPages } from './handlers/memory.js';

const REQUIRED_METHODS = ['createEntry', 'getEntry', 'updateEntry', 'deleteEntry', 'undeleteEntry', 'getConfig'] as const;

export function isMicropubHandler(value: unknown): value is MicropubHandler {
  return (
    typeof value === 'object' &&
    value !== null &&
    REQUIRED_METHODS.every((name) => typeof (value as Record<string, unknown>)[name] === 'function')
  );
}

export interface ResolvedHandler {
  readonly handler: MicropubHandler;
  readonly inMemory: boolean;
  /** One of ours (memory, files): its media queries are answered from the media table. */
  readonly builtIn?: boolean;
  /** The in-memory handler's entries as the entry pages read them. */
  readonly entryPages?: MemoryEntryPages;
}

/** What the built-in `database` handler is made of; the app root has them. */
export interface DatabaseHandlerDeps {
  readonly entries: EntriesRepository;
  readonly clock: Clock;
}

/** Which kind of handler the settings (or plugin mode) choose: a built-in one, or the host's own. */
export function handlerKindOf(
  config: Pick<Config, 'micropubHandler'>,
  given: MicropubHandler | undefined,
): 'memory' | 'database' | 'files' | 'own' {
  if (given !== undefined) return 'own';
  const specifier = config.micropubHandler;
  if (specifier === null || specifier === 'memory') return 'memory';
  return specifier === 'database' || specifier === 'files' ? specifier : 'own';
}

/**
 * The configured content handler: the object passed in plugin mode, the
 * export named by `INDIEWEB_MICROPUB_HANDLER` (a handler object or a factory
 * returning one), the built-in `database` or `files` handler, or the
 * in-memory handler. A
 * setting that names no usable handler stops the start with a
 * {@link ConfigError}: publishing would not work. `log` receives the files
 * handler's failed commits and pushes.
 */
export async function resolveHandler(
  config: Config,
  given: MicropubHandler | undefined,
  cwd: string,
  log?: FilesHandlerLog,
  database?: DatabaseHandlerDeps,
): Promise<ResolvedHandler> {
  if (given !== undefined) return { handler: given, inMemory: false };
  const specifier = config.micropubHandler;
  if (specifier === null || specifier === 'memory') {
    const memory = createMemoryHandlerWithPages({ baseUrl: config.baseUrl, maxEntries: config.memoryHandlerMaxEntries });
    return { handler: memory.handler, inMemory: true, builtIn: true, entryPages: memory.pages };
  }
  if (specifier === 'database') {
    if (database === undefined) throw new ConfigError(['INDIEWEB_MICROPUB_HANDLER: "database" needs the database the server runs on']);
    return {
      handler: createDatabaseHandler({ baseUrl: config.baseUrl, entries: database.entries, clock: database.clock }),
      inMemory: false,
      builtIn: true,
    };
  }
  if (specifier === 'files') {
    // loaded only when chosen: the files handler brings the YAML and TOML parsers (issue 31: memory of every other server)
    const { createFilesHandlerFromConfig } = await import('./handlers/files/handler.js');
    return { handler: createFilesHandlerFromConfig(config, log), inMemory: false, builtIn: true };
  }
  let loaded: unknown;
  try {
    loaded = await loadExport(specifier, cwd);
  } catch (error) {
    throw new ConfigError([
      `INDIEWEB_MICROPUB_HANDLER: cannot load "${specifier}": ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
    ]);
  }
  const options: MicropubHandlerFactoryOptions = { baseUrl: config.baseUrl, dataDir: config.dataDir };
  const handler = typeof loaded === 'function' ? await (loaded as (o: MicropubHandlerFactoryOptions) => unknown)(options) : loaded;
  if (!isMicropubHandler(handler)) {
    throw new ConfigError([
      `INDIEWEB_MICROPUB_HANDLER: "${specifier}" is neither a handler nor a function returning one (needs ${REQUIRED_METHODS.join(', ')})`,
    ]);
  }
  return { handler, inMemory: false };
}
