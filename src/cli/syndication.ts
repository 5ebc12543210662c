/**
 * `indiestack syndication …`: a user's syndication targets (add, list,
 * remove) and where an entry went (status, retry). `add` reads the access
 * token (Mastodon) or app password (Bluesky) from stdin, has the service
 * check it, and prints the new target's uid alone on stdout.
 * @see issue 33 "Contract"
 * @module
 */
import type { Command } from 'commander';
import { InvalidRequestError, NotFoundError } from '../core/errors.js';
import { withCore, type CommandCore } from './with-core.js';
import { isInteractive, promptHidden, readAll, type CliIo } from './io.js';

type Run = (work: () => Promise<void | number>) => Promise<void>;

async function readSecret(io: CliIo, what: string): Promise<string> {
  const text = isInteractive(io) ? await promptHidden(io, `${what}: `) : await readAll(io.stdin);
  const secret = text.replace(/\r?\n$/, '').trim();
  if (secret === '') throw new InvalidRequestError(`no ${what} given on stdin`);
  return secret;
}

/** The failures people read (wrong credentials, an unreachable instance, bad input) as one line, exit 1. */
async function asCommandError<T>(work: () => Promise<T>): Promise<T> {
  const [{ SyndicationError }, { TargetInputError }] = await Promise.all([
    import('../syndication/client.js'),
    import('../syndication/service.js'),
  ]);
  try {
    return await work();
  } catch (error) {
    if (error instanceof SyndicationError || error instanceof TargetInputError) throw new InvalidRequestError(error.message);
    throw error;
  }
}

async function userId(core: CommandCore, name: string): Promise<string> {
  const user = await core.users.findByName(name);
  if (user === null) throw new NotFoundError(`no user named "${name}"`);
  return user.id;
}

/** One line's field: tabs and line breaks would break the columns. */
const field = (text: string) => text.replace(/[\t\r\n]+/g, ' ');

export function registerSyndicationCommands(program: Command, io: CliIo, run: Run): void {
  const syndication = program.command('syndication').description('syndicate entries to Mastodon and Bluesky (POSSE): targets and status');

  syndication
    .command('add')
    .description(
      'add a target after the service accepted the credentials read from stdin (a Mastodon access token, a Bluesky app password); prints its uid',
    )
    .requiredOption('--user <name>', 'the account whose entries go there')
    .requiredOption('--service <service>', 'mastodon or bluesky')
    .requiredOption('--url <url>', 'the Mastodon instance, or the Bluesky PDS (e.g. https://bsky.social)')
    .option('--handle <handle>', 'the Bluesky handle (bluesky only)')
    .action((options: { user: string; service: string; url: string; handle?: string }) =>
      run(async () => {
        const service = options.service.trim().toLowerCase();
        if (service !== 'mastodon' && service !== 'bluesky')
          throw new InvalidRequestError(`--service must be mastodon or bluesky, not "${options.service}"`);
        if (service === 'bluesky' && options.handle === undefined) throw new InvalidRequestError('--service bluesky needs --handle');
        if (service === 'mastodon' && options.handle !== undefined) throw new InvalidRequestError('--handle is for bluesky only');
        const secret = await readSecret(io, service === 'mastodon' ? 'access token' : 'app password');
        const added = await withCore(io, async (core) => {
          const owner = await userId(core, options.user);
          const { service: targets } = await core.syndication();
          return asCommandError(() =>
            targets.addTarget({ userId: owner, service, url: options.url, handle: options.handle ?? null, secret }),
          );
        });
        io.stdout.write(`${added.uid}\n`);
        io.stderr.write(`added ${added.service} target ${added.name}\n`);
      }),
    );

  syndication
    .command('list')
    .description("a user's targets, one line each: UID<TAB>SERVICE<TAB>NAME")
    .requiredOption('--user <name>', 'the account')
    .action((options: { user: string }) =>
      run(async () => {
        const targets = await withCore(io, async (core) =>
          (await core.syndication()).service.listTargets(await userId(core, options.user)),
        );
        for (const target of targets) io.stdout.write(`${target.uid}\t${target.service}\t${field(target.name)}\n`);
      }),
    );

  syndication
    .command('remove')
    .description('remove a target (copies already made stay where they are)')
    .requiredOption('--user <name>', 'the account')
    .argument('<uid>', 'the target, as `syndication list` prints it')
    .action((uid: string, options: { user: string }) =>
      run(async () => {
        const removed = await withCore(io, async (core) =>
          (await core.syndication()).service.removeTarget(await userId(core, options.user), uid),
        );
        if (!removed) throw new NotFoundError(`${options.user} has no syndication target ${uid}`);
        io.stderr.write(`removed ${uid}\n`);
      }),
    );

  syndication
    .command('status')
    .description('where an entry went, one line per target: UID<TAB>STATE<TAB>URL_OR_ERROR (STATE: queued, sent, failed)')
    .argument('<entry-url>', "the entry's URL")
    .action((entryUrl: string) =>
      run(async () => {
        const lines = await withCore(io, async (core) => (await core.syndication()).service.status([entryUrl]));
        for (const line of lines) io.stdout.write(`${line.uid}\t${line.state}\t${field(line.detail)}\n`);
      }),
    );

  syndication
    .command('retry')
    .description("queue an entry's copies again (those that failed; or the one target named); a server's worker sends them")
    .argument('<entry-url>', "the entry's URL")
    .argument('[uid]', 'only this target')
    .action((entryUrl: string, uid: string | undefined) =>
      run(async () => {
        const queued = await withCore(io, async (core) => {
          const { service } = await core.syndication();
          const lines = (await service.status([entryUrl])).filter((line) =>
            uid === undefined ? line.state === 'failed' : line.uid === uid,
          );
          for (const line of lines) await service.retry(line.row.userId, line.row.id);
          return lines.length;
        });
        if (queued === 0)
          throw new NotFoundError(uid === undefined ? `nothing failed for ${entryUrl}` : `${entryUrl} was not syndicated to ${uid}`);
        io.stderr.write(`queued ${queued}\n`);
      }),
    );
}
