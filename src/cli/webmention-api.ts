/**
 * `indiestack webmention token`: the read token of the webmention.io-compatible
 * API, alone on stdout.
 * @module
 */
import type { Command } from 'commander';
import { InvalidRequestError } from '../core/errors.js';
import { withCore } from './with-core.js';
import type { CliIo } from './io.js';

type Run = (work: () => Promise<void | number>) => Promise<void>;

export function registerWebmentionApiCommands(webmention: Command, io: CliIo, run: Run): void {
  webmention
    .command('token')
    .description("print the account's read token of the webmention API (made on first use); --rotate makes a new one")
    .requiredOption('--user <name>', 'account name')
    .option('--rotate', 'make a new token; the old one stops working at once')
    .action((options: { user: string; rotate?: boolean }) =>
      run(async () => {
        const token = await withCore(io, async (core) => {
          const user = await core.users.findByName(options.user);
          if (user === null) throw new InvalidRequestError(`no user named "${options.user}"`);
          // the token is derived from the server secret: the CLI needs the same INDIEWEB_SECRET (or data directory) as serve
          const tokens = (await core.webmention()).readTokens;
          if (options.rotate === true) {
            const made = await tokens.rotate(user.id);
            io.stderr.write(`indiestack: new webmention API token for ${user.name}; the old one no longer works\n`);
            return made;
          }
          const current = await tokens.current(user.id);
          if (current.state === 'stale') {
            throw new InvalidRequestError(
              "the token was made under another server secret (INDIEWEB_SECRET or --data-dir differ from serve's?); run with the same settings as serve, or --rotate for a new one",
            );
          }
          if (current.state === 'ok') return current.token;
          const made = await tokens.rotate(user.id);
          io.stderr.write(`indiestack: made a webmention API token for ${user.name}\n`);
          return made;
        });
        io.stdout.write(`${token}\n`);
      }),
    );
}
