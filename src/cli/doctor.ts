import type { Command } from 'commander';
import { NotFoundError } from '../core/errors.js';
import type { CliIo } from './io.js';
import { withCore } from './with-core.js';

export function registerDoctorCommand(program: Command, io: CliIo, run: (work: () => Promise<void | number>) => Promise<void>): void {
  program
    .command('doctor')
    .description(
      'check the deployment from the outside, as a client would: base URL, Authorization header, profile links, clock, database, media, jobs',
    )
    .argument('[name]', 'the account whose profile URLs are checked (default: every account)')
    .option('--json', 'print the checks as JSON')
    .action((name: string | undefined, options: { json?: boolean }) =>
      run(async () => {
        const [{ formatCheck, hasFailure }, { runDoctor }, { linksCommandHint }, { outboundFor }] = await Promise.all([
          import('../operations/doctor/check.js'),
          import('../operations/doctor/doctor.js'),
          import('../operations/doctor/remote-checks.js'),
          import('../outbound/fetch.js'),
        ]);
        const checks = await withCore(io, async ({ config, database, users, stores, clock, mediaStorage, syndication }) => {
          const accounts = name === undefined ? (await users.list()).filter((user) => user.isActive) : [await users.findByName(name)];
          if (accounts[0] === null) throw new NotFoundError(`no user named "${name}"`);
          const outbound = outboundFor(config);
          try {
            return await runDoctor(
              {
                config,
                outbound,
                database,
                jobs: stores.jobs,
                storage: await mediaStorage(),
                now: () => clock.now(),
                // the targets of the accounts checked (every account's without a name)
                syndicationTargets: async () => {
                  const service = (await syndication()).service;
                  const checked = await Promise.all(accounts.map((user) => (user === null ? [] : service.doctorChecks(user.id))));
                  return checked.flat();
                },
              },
              accounts.flatMap((user) =>
                user === null
                  ? []
                  : [{ profileUrls: user.me, links: linksCommandHint(`indiestack links ${user.name} --base-url ${config.baseUrl}`) }],
              ),
            );
          } finally {
            await outbound.close();
          }
        });
        if (options.json === true) io.stdout.write(`${JSON.stringify({ ok: !hasFailure(checks), checks }, null, 2)}\n`);
        else for (const check of checks) io.stdout.write(`${formatCheck(check)}\n`);
        return hasFailure(checks) ? 1 : 0;
      }),
    );
}
