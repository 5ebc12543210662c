import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { HCardValidationError, InvalidRequestError, NotFoundError } from '../core/errors.js';
import { configFrom } from './context.js';
import type { CliIo } from './io.js';
import { withCore, type CommandCore } from './with-core.js';

/** The account a name gives, as the profile service takes it. */
async function accountNamed(core: CommandCore, name: string) {
  const user = await core.users.findByName(name);
  const account = user === null ? null : await core.accounts.findUser(user.id);
  if (account === null) throw new NotFoundError(`no user named "${name}"`);
  return account;
}

export function registerProfileCommands(program: Command, io: CliIo, run: (work: () => Promise<void | number>) => Promise<void>): void {
  program
    .command('links')
    .description('print the <link> tags to paste into the <head> of your homepage')
    .argument('<name>', 'user name')
    .action((name: string) =>
      run(async () => {
        await withCore(io, async ({ users }) => {
          if ((await users.findByName(name)) === null) throw new NotFoundError(`no user named "${name}"`);
        });
        const { linkTags } = await import('../profile/template-helpers.js');
        // the base URL of --base-url or INDIEWEB_BASE_URL: the one `serve` must be given too
        const { baseUrl } = configFrom(io);
        if (!('INDIEWEB_BASE_URL' in io.env) && io.overrides?.baseUrl === undefined) {
          io.stderr.write(
            `indiestack: warning: no base URL given, these links point at ${baseUrl}; pass the public one with --base-url (or INDIEWEB_BASE_URL), as for serve\n`,
          );
        }
        io.stdout.write(`${linkTags(baseUrl)}\n`);
      }),
    );

  const profile = program.command('profile').description("show or replace an account's h-card profile");

  profile
    .command('show')
    .description('print the h-card as JSON')
    .argument('<name>', 'user name')
    .action((name: string) =>
      run(async () => {
        const card = await withCore(io, async (core) => (await core.profiles.get(await accountNamed(core, name))).hCard);
        io.stdout.write(`${JSON.stringify(card, null, 2)}\n`);
      }),
    );

  profile
    .command('set')
    .description('replace the h-card with the JSON in FILE (- for standard input)')
    .argument('<name>', 'user name')
    .requiredOption('--json <file>', 'file holding the h-card JSON object')
    .action((name: string, options: { json: string }) =>
      run(async () => {
        let text: string;
        try {
          text = options.json === '-' ? await readStdin(io) : await readFile(options.json, 'utf8');
        } catch (error) {
          throw new InvalidRequestError(
            `cannot read ${options.json}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
          );
        }
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          throw new InvalidRequestError(`${options.json} is not valid JSON`);
        }
        await withCore(io, async (core) => {
          const account = await accountNamed(core, name);
          try {
            await core.profiles.update(account, parsed);
          } catch (error) {
            // one line: every problem, joined
            if (error instanceof HCardValidationError) throw new InvalidRequestError(`invalid h-card: ${error.message}`);
            throw error;
          }
        });
        io.stdout.write(`saved the profile of ${name}\n`);
      }),
    );
}

async function readStdin(io: CliIo): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of io.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}
