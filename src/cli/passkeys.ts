/**
 * `indiestack user passkeys NAME`, `user remove-passkey NAME ID` and
 * `user passwordless NAME on|off`: an operator's view of an account's
 * passkeys, and the way back in for someone who lost theirs.
 * @module
 */
import type { Command } from 'commander';
import { InvalidRequestError, NotFoundError } from '../core/errors.js';
import { formatTable, type CliIo } from './io.js';
import { withCore, type CommandCore } from './with-core.js';

/** The core's passkey service (the built-in accounts: always there in a command). */
async function passkeyServiceOf(core: CommandCore) {
  const service = await core.passkeys();
  if (service === null) throw new Error('no built-in accounts');
  return service;
}

async function requireUser(core: CommandCore, name: string) {
  const user = await core.users.findByName(name);
  if (user === null) throw new NotFoundError(`no user named "${name}"`);
  return user;
}

export function registerPasskeyCommands(user: Command, io: CliIo, run: (work: () => Promise<void | number>) => Promise<void>): void {
  user
    .command('passkeys')
    .description("list an account's passkeys and whether its password signs in")
    .argument('<name>', 'user name')
    .action((name: string) =>
      run(async () => {
        const { passwordless, passkeys } = await withCore(io, async (core) => {
          const record = await requireUser(core, name);
          return { passwordless: record.passwordless, passkeys: await (await passkeyServiceOf(core)).list(record.id) };
        });
        io.stdout.write(
          formatTable(
            ['ID', 'NAME', 'ADDED', 'LAST USED', 'SYNCED'],
            passkeys.map((passkey) => [
              passkey.id,
              passkey.name,
              passkey.createdAt,
              passkey.lastUsedAt ?? 'never',
              passkey.backedUp ? 'yes' : 'no',
            ]),
          ),
        );
        io.stderr.write(
          `${name}: ${passkeys.length} passkey${passkeys.length === 1 ? '' : 's'}; password sign-in ${passwordless ? 'off (passkeys only)' : 'on'}\n`,
        );
      }),
    );

  user
    .command('remove-passkey')
    .description('remove one passkey of an account (refused for the last one while password sign-in is off)')
    .argument('<name>', 'user name')
    .argument('<id>', 'passkey ID, as `user passkeys` lists it')
    .action((name: string, id: string) =>
      run(async () => {
        await withCore(io, async (core) => {
          const record = await requireUser(core, name);
          if (!(await (await passkeyServiceOf(core)).remove(record.id, id)))
            throw new NotFoundError(`user ${name} has no passkey with ID "${id}"`);
        });
        io.stdout.write(`removed passkey ${id} of ${name}\n`);
      }),
    );

  user
    .command('passwordless')
    .description('on: only passkeys sign the account in (refused without one); off: its password signs in again')
    .argument('<name>', 'user name')
    .argument('<mode>', 'on or off')
    .action((name: string, mode: string) =>
      run(async () => {
        if (mode !== 'on' && mode !== 'off') throw new InvalidRequestError(`"${mode}" is neither on nor off`);
        await withCore(io, async (core) =>
          (await passkeyServiceOf(core)).setPasswordless((await requireUser(core, name)).id, mode === 'on'),
        );
        io.stdout.write(`password sign-in of ${name} is ${mode === 'on' ? 'off: only passkeys sign in' : 'on'}\n`);
      }),
    );
}
