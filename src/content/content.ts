/**
 * The content handler as the features see it: the configured handler (the
 * built-in ones answer media queries from the media table) and the optional
 * URL policy every submitted URL passes before it reaches the handler.
 * @module
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config/config.js';
import { loadCallable, type LoadedCallable } from '../config/load-callable.js';
import type { MicropubHandler } from '../contracts/micropub-handler.js';
import type { UrlPolicy } from '../contracts/policies.js';
import type { MemoryEntryPages } from './handlers/memory.js';
import { handlerKindOf, resolveHandler, type DatabaseHandlerDeps } from './load-handler.js';
import { createUrlPolicyCheck, type UrlPolicyCheck } from './url-policy.js';

/** The media hooks a built-in handler gains (the media feature implements them over its table). */
export type MediaHooks = Required<Pick<MicropubHandler, 'listMedia' | 'getMedia' | 'deleteMedia'>>;

export interface Content {
  readonly handler: MicropubHandler;
  /** Which handler it is: a built-in one, or the host's own (a module or, in plugin mode, an object). */
  readonly kind: 'memory' | 'database' | 'files' | 'own';
  readonly urlPolicy: UrlPolicyCheck;
  /** The in-memory handler's entries for the entry pages; absent for every other handler (the database handler's are in `stores.entries`). */
  readonly entryPages?: MemoryEntryPages;
}

/** The handler with the media hooks added, keeping its own methods bound to it. */
function withMediaHooks(handler: MicropubHandler, hooks: MediaHooks): MicropubHandler {
  return {
    createEntry: (entry, user) => handler.createEntry(entry, user),
    getEntry: (url, user) => handler.getEntry(url, user),
    updateEntry: (url, operations, user) => handler.updateEntry(url, operations, user),
    deleteEntry: (url, user) => handler.deleteEntry(url, user),
    undeleteEntry: (url, user) => handler.undeleteEntry(url, user),
    getConfig: (user) => handler.getConfig(user),
    ...(handler.listEntries === undefined ? {} : { listEntries: (user, page) => handler.listEntries!(user, page) }),
    ...(handler.entryHosts === undefined ? {} : { entryHosts: (user) => handler.entryHosts!(user) }),
    ...hooks,
  };
}

/**
 * Resolves the handler (see {@link resolveHandler}) and loads the URL policy.
 * A policy that cannot be loaded is logged once; requests that need it then
 * answer 500.
 */
export async function loadContent(deps: {
  config: Config;
  /** Plugin mode: the host's handler, overriding `config.micropubHandler`. */
  handler: MicropubHandler | undefined;
  /** Plugin mode: the host's policy, overriding `config.micropubUrlPolicy`. */
  urlPolicy: UrlPolicy | undefined;
  /** What the built-in handlers answer media queries with. */
  mediaHooks: MediaHooks;
  /** What the built-in `database` handler stores entries with. */
  database?: DatabaseHandlerDeps;
  log: FastifyBaseLogger;
}): Promise<Content> {
  const { config, log } = deps;
  const resolved = await resolveHandler(config, deps.handler, process.cwd(), log, deps.database);
  if (resolved.inMemory)
    log.warn('micropub: using the in-memory handler; entries are lost on restart (INDIEWEB_MICROPUB_HANDLER=database keeps them)');
  // the built-in handlers answer media queries from the media table
  const handler = resolved.builtIn === true ? withMediaHooks(resolved.handler, deps.mediaHooks) : resolved.handler;
  let urlPolicy: LoadedCallable<UrlPolicy> | null = deps.urlPolicy === undefined ? null : { ok: true, fn: deps.urlPolicy };
  if (urlPolicy === null && config.micropubUrlPolicy !== null) {
    urlPolicy = await loadCallable<UrlPolicy>(config.micropubUrlPolicy, process.cwd());
    if (!urlPolicy.ok)
      log.error(
        { err: urlPolicy.error, specifier: config.micropubUrlPolicy },
        'micropub URL policy cannot be loaded; requests that need it answer 500',
      );
  }
  return {
    handler,
    kind: handlerKindOf(config, deps.handler),
    urlPolicy: createUrlPolicyCheck(urlPolicy),
    ...(resolved.entryPages === undefined ? {} : { entryPages: resolved.entryPages }),
  };
}
