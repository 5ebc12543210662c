import type { Command } from 'commander';
import { InvalidRequestError } from '../core/errors.js';
import { withCore } from './with-core.js';
import { formatTable, isInteractive, promptHidden, readAll, type CliIo } from './io.js';
import { registerPasskeyCommands } from './passkeys.js';

async function readPassword(io: CliIo, fromStdin: boolean): Promise<string> {
  if (fromStdin) {
    const text = await readAll(io.stdin);
    // one trailing newline is the end of the input line, not part of the password
    return text.replace(/\r?\n$/, '');
  }
  if (!isInteractive(io)) throw new InvalidRequestError('no password given: pass --password-stdin or run in a terminal');
  const password = await promptHidden(io, 'Password: ');
  const { MIN_PASSWORD_LENGTH } = await import('../accounts/user-service.js');
  // said before the second prompt, not after both
  if ([...password].length < MIN_PASSWORD_LENGTH)
    throw new InvalidRequestError(`the password must have at least ${MIN_PASSWORD_LENGTH} characters`);
  const again = await promptHidden(io, 'Password (again): ');
  if (password !== again) throw new InvalidRequestError('the passwords do not match');
  return password;
}

export function registerUserCommands(program: Command, io: CliIo, run: (work: () => Promise<void | number>) => Promise<void>): void {
  const user = program.command('user').description('manage the accounts that sign in to this server');

  user
    .command('add')
    .description('create an account with one or more profile URLs (me)')
    .argument('<name>', 'user name')
    .requiredOption('--me <url...>', 'profile URL of the account (repeatable)')
    .option('--password-stdin', 'read the password from standard input instead of prompting')
    .action((name: string, options: { me: string[]; passwordStdin?: boolean }) =>
      run(async () => {
        const password = await readPassword(io, options.passwordStdin === true);
        const created = await withCore(io, ({ users }) => users.addUser({ name, me: options.me, password }), { create: true });
        io.stdout.write(`added user ${created.name} (${created.me.join(', ')})\n`);
      }),
    );

  user
    .command('list')
    .description('list the accounts')
    .action(() =>
      run(async () => {
        const all = await withCore(io, ({ users }) => users.list());
        io.stdout.write(
          formatTable(
            ['NAME', 'STATUS', 'PROFILE URLS'],
            all.map((u) => [u.name, u.isActive ? 'active' : 'disabled', u.me.join(' ')]),
          ),
        );
      }),
    );

  for (const [command, active] of [
    ['disable', false],
    ['enable', true],
  ] as const) {
    user
      .command(command)
      .description(
        active
          ? 'allow the account to sign in again and its tokens to work'
          : 'stop the account from signing in; its sessions and tokens end for good',
      )
      .argument('<name>', 'user name')
      .action((name: string) =>
        run(async () => {
          await withCore(io, async ({ users, tokens }) => {
            const record = await users.setActive(name, active);
            // disabling ends the account's sessions and every grant for good: enabling it again revives neither
            if (!active) await tokens.revokeGrants(record.id, {});
          });
          io.stdout.write(`${active ? 'enabled' : 'disabled'} user ${name}\n`);
        }),
      );
  }

  user
    .command('passwd')
    .description("change an account's password (ends its sessions)")
    .argument('<name>', 'user name')
    .option('--password-stdin', 'read the password from standard input instead of prompting')
    .action((name: string, options: { passwordStdin?: boolean }) =>
      run(async () => {
        const password = await readPassword(io, options.passwordStdin === true);
        await withCore(io, ({ users }) => users.setPassword(name, password));
        io.stdout.write(`changed the password of ${name}\n`);
      }),
    );

  registerPasskeyCommands(user, io, run);
}
