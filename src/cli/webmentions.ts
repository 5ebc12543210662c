import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { InvalidRequestError } from '../core/errors.js';
import { WEBMENTION_STATUSES, type WebmentionStatus } from './webmention-statuses.js';
import { withCore } from './with-core.js';
import { formatTable, type CliIo } from './io.js';
import { trimEndOf } from '../core/text.js';

function statusOption(value: string): WebmentionStatus {
  if (!(WEBMENTION_STATUSES as readonly string[]).includes(value))
    throw new InvalidArgumentError(`must be one of ${WEBMENTION_STATUSES.join(', ')}`);
  return value as WebmentionStatus;
}

/** The id of a webmention: its own, or the last path segment of its status URL. */
function idOf(value: string): string {
  return trimEndOf(value, '/').split('/').at(-1) ?? value;
}

/** Registers `webmention list|reprocess|spam`; returns the `webmention` command for the others to add to. */
export function registerWebmentionCommands(
  program: Command,
  io: CliIo,
  run: (work: () => Promise<void | number>) => Promise<void>,
): Command {
  const webmention = program.command('webmention').description('moderate received webmentions');

  webmention
    .command('list')
    .description('list received webmentions, newest first')
    .option('--status <status>', `only this status (${WEBMENTION_STATUSES.join(', ')})`, statusOption)
    .option('--reasons', 'add a REASON column: why a mention failed (on by default with --status failed)')
    .option('--held', 'only mentions waiting for approval (see INDIEWEB_WEBMENTION_MODERATION)')
    .action((options: { status?: WebmentionStatus; reasons?: boolean; held?: boolean }) =>
      run(async () => {
        const { items } = await withCore(io, ({ stores }) =>
          stores.webmentions.list({
            ...(options.status === undefined ? {} : { status: options.status }),
            ...(options.held === true ? { approval: 'held' as const } : {}),
          }),
        );
        const columns = ['ID', 'STATUS', 'TYPE', 'SOURCE', 'TARGET', 'UPDATED'];
        const cells = (w: (typeof items)[number]) => [w.id, w.status, w.type ?? '-', w.source, w.target, w.updatedAt];
        // the reason comes last, so the columns scripts read keep their places
        const withReasons = options.reasons === true || options.status === 'failed';
        const reasonOf = (w: (typeof items)[number]) => (w.status === 'failed' && w.error !== null ? w.error : '-');
        io.stdout.write(
          withReasons
            ? formatTable(
                [...columns, 'REASON'],
                items.map((w) => [...cells(w), reasonOf(w)]),
              )
            : formatTable(columns, items.map(cells)),
        );
      }),
    );

  webmention
    .command('reprocess')
    .description('fetch and verify again now: one webmention, or every failed one')
    .argument('[id]', 'webmention id (the last segment of its status URL)')
    .option('--all-failed', 'every webmention whose status is failed')
    .action((id: string | undefined, options: { allFailed?: boolean }) =>
      run(async () => {
        if ((id === undefined) === (options.allFailed !== true)) throw new InvalidRequestError('give either an id or --all-failed');
        let failures = 0;
        // the service's own processing (the core's): its failure reasons, its webhooks after processing
        await withCore(io, async (core) => {
          const feature = await core.webmention();
          const records =
            id === undefined ? (await feature.service.list({ status: 'failed' })).items : [await feature.service.get(idOf(id))];
          for (const record of records) {
            const outcome = await feature.service.reprocess(record.id);
            if (outcome.status === 'failed') failures += 1;
            io.stdout.write(`${record.id}  ${outcome.status}${outcome.status === 'failed' ? `: ${outcome.reason}` : ''}\n`);
          }
        });
        return id !== undefined && failures > 0 ? 1 : 0;
      }),
    );

  webmention
    .command('spam')
    .description('mark a webmention as spam (it is no longer shown)')
    .argument('<id>', 'webmention id (the last segment of its status URL)')
    .action((id: string) =>
      run(async () => {
        await withCore(io, async (core) => (await core.webmention()).service.markSpam(idOf(id)));
        io.stdout.write(`marked ${idOf(id)} as spam\n`);
      }),
    );
  return webmention;
}
