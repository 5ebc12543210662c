/**
 * `indiestack webmention import FILE` and `indiestack webmention export`:
 * moving from webmention.io (its `mentions.jf2` or `mentions.json` export) and
 * keeping your own copy (JF2 on stdout).
 * @module
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import { entryHostsOf } from '../core/entry-hosts.js';
import { InvalidRequestError } from '../core/errors.js';
import type { ExportFile } from '../webmention/transfer/read-export.js';
import { readAll, type CliIo } from './io.js';
import { withCore, type CommandCore } from './with-core.js';

type Run = (work: () => Promise<void | number>) => Promise<void>;

async function userIdOf(core: CommandCore, name: string | undefined): Promise<string | null> {
  if (name === undefined) return null;
  const user = await core.users.findByName(name);
  if (user === null) throw new InvalidRequestError(`no user named "${name}"`);
  return user.id;
}

/** The file read and checked, before the database is opened: a wrong file changes nothing. */
async function readExportFile(io: CliIo, file: string): Promise<ExportFile> {
  let text: string;
  try {
    text = file === '-' ? await readAll(io.stdin) : await readFile(path.resolve(io.cwd, file), 'utf8');
  } catch (error) {
    const code = (error as { code?: string }).code;
    throw new InvalidRequestError(`cannot read ${file}${code === undefined ? '' : ` (${code})`}`);
  }
  const { ExportFormatError, readExport } = await import('../webmention/transfer/read-export.js');
  try {
    return readExport(text);
  } catch (error) {
    if (error instanceof ExportFormatError)
      throw new InvalidRequestError(`${file} is not a webmention.io export, nothing imported: ${error.message}`);
    throw error;
  }
}

export function registerWebmentionTransferCommands(webmention: Command, io: CliIo, run: Run): void {
  webmention
    .command('import')
    .description("import a webmention.io export (mentions.jf2 or mentions.json, '-' for stdin) without fetching anything")
    .argument('<file>', 'the saved answer of https://webmention.io/api/mentions.jf2?token=… (or mentions.json)')
    .option('--user <name>', 'give every imported mention to this account (default: decided from each target, as for received mentions)')
    .option('--origin <name>', 'name of the service the file comes from, kept with each mention with its old id', 'webmention.io')
    .action((file: string, options: { user?: string; origin: string }) =>
      run(async () => {
        const exported = await readExportFile(io, file);
        const counts = await withCore(io, async (core) => {
          const [{ createWebmentionOwnership }, { importMentions }] = await Promise.all([
            import('../webmention/ownership.js'),
            import('../webmention/transfer/import.js'),
          ]);
          const fixedOwner = await userIdOf(core, options.user);
          let ownerOf: (target: string) => Promise<string | null> = async () => fixedOwner;
          if (fixedOwner === null) {
            // the same rule as for mentions received by the server: the entry's owner, a profile URL prefix, the only account
            const { handler } = (await core.content()).content;
            const ownership = createWebmentionOwnership({
              listUsers: async () => (await core.accounts.listUsers?.()) ?? [],
              entryHosts: (user) => entryHostsOf(core.config.baseUrl, handler, user),
              isEntryOf: async (url, user) => (await handler.getEntry(url, user)) !== null,
            });
            ownerOf = (target) => ownership.ownerOf(target);
          }
          return importMentions({
            transact: core.stores.transactWebmentions,
            clock: core.clock,
            ownerOf,
            mentions: exported.mentions,
            originName: options.origin,
          });
        });
        const skipped = [
          counts.alreadyHere > 0 ? `${counts.alreadyHere} already here` : '',
          counts.skippedPrivate > 0 ? `${counts.skippedPrivate} private left out` : '',
          counts.skippedUnverified > 0 ? `${counts.skippedUnverified} unverified left out` : '',
        ].filter((part) => part !== '');
        io.stdout.write(
          `imported ${counts.imported} of ${exported.mentions.length} mentions${skipped.length === 0 ? '' : ` (${skipped.join(', ')})`}\n`,
        );
      }),
    );

  webmention
    .command('export')
    .description('write the verified, approved mentions as JF2 (the shape of mentions.jf2) on stdout')
    .option('--user <name>', "only this account's mentions (default: every mention)")
    .action((options: { user?: string }) =>
      run(async () => {
        const feed = await withCore(io, async (core) => {
          const { exportMentions } = await import('../webmention/transfer/export.js');
          return exportMentions(core.stores.webmentions, await userIdOf(core, options.user));
        });
        io.stdout.write(`${JSON.stringify(feed, null, 2)}\n`);
      }),
    );
}
