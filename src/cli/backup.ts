import path from 'node:path';
import type { Command } from 'commander';
import { systemClock } from '../core/clock.js';
import { configFrom } from './context.js';
import type { CliIo } from './io.js';
import { packageVersion } from './version.js';

export function registerBackupCommands(program: Command, io: CliIo, run: (work: () => Promise<void | number>) => Promise<void>): void {
  program
    .command('backup')
    .description('write a consistent backup (database, local media, files handler content) into DIR while the server runs')
    .argument('<dir>', 'a new or empty directory')
    .action((dir: string) =>
      run(async () => {
        const config = configFrom(io);
        const target = path.resolve(io.cwd, dir);
        const { createBackup } = await import('../operations/backup/backup.js');
        const summary = await createBackup({
          config,
          dir: target,
          now: () => systemClock.now(),
          version: packageVersion(),
          warn: (message) => io.stderr.write(`indiestack: warning: ${message}\n`),
        });
        const { database } = summary.manifest;
        const parts = [
          database.file === null
            ? 'no database (PostgreSQL: use pg_dump)'
            : `the database (schema ${database.migrations.at(-1) ?? 'empty'})`,
          summary.manifest.media ? `${summary.mediaFiles} media files` : 'no media (S3)',
          `${summary.siteFiles} site files`,
        ];
        io.stdout.write(`backed up ${parts.join(', ')} to ${target}\n`);
      }),
    );

  program
    .command('restore')
    .description('restore the backup in DIR into an empty data directory (--data-dir or INDIEWEB_DATA_DIR)')
    .argument('<dir>', 'a directory written by `indiestack backup`')
    .action((dir: string) =>
      run(async () => {
        const config = configFrom(io);
        const source = path.resolve(io.cwd, dir);
        const { restoreBackup } = await import('../operations/backup/restore.js');
        const summary = await restoreBackup({ config, dir: source });
        // a backup of an older version: its schema is brought up to date now, not at the first request
        if (summary.manifest.database.file !== null) {
          const { openDatabase } = await import('../storage/open.js');
          await (await openDatabase(config)).close();
        }
        io.stdout.write(
          `restored ${summary.files} files from ${source} (written by indiestack ${summary.manifest.indiestack} at ${summary.manifest.createdAt}) into ${config.dataDir}\n`,
        );
      }),
    );
}
