/**
 * Which templates the entry pages use: the plugin option's, else the module
 * `INDIEWEB_ENTRY_TEMPLATES` names, else the built-in ones. A module that
 * cannot be loaded, or exports something that is no templates object, is
 * logged once as an error and the built-in templates serve instead, so a
 * broken template never takes the endpoints down with it.
 * @module
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config/config.js';
import { loadExport } from '../config/load-callable.js';
import { BUILT_IN_TEMPLATES, resolveEntryTemplates, type EntryTemplates } from './templates.js';

/** The plugin option: `true` turns the pages on; an object may also replace templates. */
export type EntryPagesOption = boolean | { readonly templates?: Partial<EntryTemplates> };

export async function loadEntryTemplates(
  option: EntryPagesOption | undefined,
  config: Pick<Config, 'entryTemplates'>,
  log: FastifyBaseLogger,
  cwd = process.cwd(),
): Promise<EntryTemplates> {
  if (option === undefined || option === false) return BUILT_IN_TEMPLATES;
  // a host's own object: a mistake in it is the host's code, reported at registration
  if (typeof option === 'object' && option.templates !== undefined) return resolveEntryTemplates(option.templates);
  if (config.entryTemplates === null) return BUILT_IN_TEMPLATES;
  try {
    return resolveEntryTemplates(await loadExport(config.entryTemplates, cwd));
  } catch (error) {
    log.error(
      { err: error, specifier: config.entryTemplates },
      'entry templates could not be loaded: the built-in templates serve instead',
    );
    return BUILT_IN_TEMPLATES;
  }
}
