/**
 * `indiestack webmention approve|reject|block|allow|rules|remove-rule`:
 * moderation from the command line (the operator's view: every account's
 * mentions, server-wide rules unless `--user` names an account).
 * @module
 */
import type { Command } from 'commander';
import { InvalidRequestError } from '../core/errors.js';
import type { ModerationService } from '../webmention/moderation-service.js';
import { withCore, type CommandCore } from './with-core.js';
import { formatTable, type CliIo } from './io.js';
import { trimEndOf } from '../core/text.js';

type Run = (work: () => Promise<void | number>) => Promise<void>;

const idOf = (value: string) => trimEndOf(value, '/').split('/').at(-1) ?? value;

/** The core's moderation service, the server's own: an approval queues the webhook the admin's would. */
function withModeration<T>(io: CliIo, work: (moderation: ModerationService, core: CommandCore) => Promise<T>): Promise<T> {
  return withCore(io, async (core) => work((await core.webmention()).moderation, core));
}

/** The account a `--user` names (null without one: server-wide). */
async function scopeOf(core: CommandCore, name: string | undefined): Promise<string | null> {
  if (name === undefined) return null;
  const user = await core.users.findByName(name);
  if (user === null) throw new InvalidRequestError(`no user named "${name}"`);
  return user.id;
}

export function registerWebmentionModerationCommands(webmention: Command, io: CliIo, run: Run): void {
  webmention
    .command('approve')
    .description('make a held (or rejected) webmention public once verified')
    .argument('<id>', 'webmention id (the last segment of its status URL)')
    .option('--allow-domain', "and always allow the source's domain for that account from now on")
    .action((id: string, options: { allowDomain?: boolean }) =>
      run(async () => {
        await withModeration(io, async (moderation) => moderation.approve(idOf(id), { allowDomain: options.allowDomain === true }));
        io.stdout.write(`approved ${idOf(id)}${options.allowDomain === true ? ' and allowed its domain' : ''}\n`);
      }),
    );

  webmention
    .command('reject')
    .description('keep a webmention out of the API for good (it stays stored)')
    .argument('<id>', 'webmention id (the last segment of its status URL)')
    .action((id: string) =>
      run(async () => {
        await withModeration(io, (moderation) => moderation.reject(idOf(id)));
        io.stdout.write(`rejected ${idOf(id)}\n`);
      }),
    );

  for (const action of ['block', 'allow'] as const) {
    webmention
      .command(action)
      .description(
        action === 'block'
          ? 'block a source domain (and its subdomains) or URL prefix: its mentions are recorded as spam without being fetched'
          : 'allow a source domain or URL prefix: its mentions are public once verified, without approval',
      )
      .argument('<domain-or-url>', 'a domain (spam.example) or a URL prefix (https://example.com/user/)')
      .option('--user <name>', "only for this account's mentions (default: every account's)")
      .action((value: string, options: { user?: string }) =>
        run(async () => {
          const rule = await withModeration(io, async (moderation, services) =>
            moderation.addRule(await scopeOf(services, options.user), action, value),
          );
          io.stdout.write(`${rule.id}  ${rule.action} ${rule.kind} ${rule.value}\n`);
        }),
      );
  }

  webmention
    .command('rules')
    .description('list the block and allow rules (server-wide, or of one account with --user)')
    .option('--user <name>', "this account's rules")
    .action((options: { user?: string }) =>
      run(async () => {
        const rules = await withModeration(io, async (moderation, services) => moderation.listRules(await scopeOf(services, options.user)));
        io.stdout.write(
          formatTable(
            ['ID', 'ACTION', 'KIND', 'VALUE', 'CREATED'],
            rules.map((rule) => [rule.id, rule.action, rule.kind, rule.value, rule.createdAt]),
          ),
        );
      }),
    );

  webmention
    .command('remove-rule')
    .description('remove a block or allow rule by the id `rules` shows')
    .argument('<id>', 'rule id')
    .option('--user <name>', "a rule of this account's")
    .action((id: string, options: { user?: string }) =>
      run(async () => {
        await withModeration(io, async (moderation, services) => moderation.removeRule(id, await scopeOf(services, options.user)));
        io.stdout.write(`removed rule ${id}\n`);
      }),
    );
}
