/**
 * The `indiestack` command. Every failure is one line on stderr and a
 * non-zero exit: 2 for invalid settings, 1 for anything else.
 * @module
 */
import { Command, CommanderError } from 'commander';
import type { ConfigOverrides } from '../config/config.js';
import { SETTINGS, unknownSettingNames } from '../config/settings.js';
import { isIndieWebError, ConfigError } from '../core/errors.js';
import { configFrom } from './context.js';
import { processIo, type CliIo } from './io.js';
import { registerTokenCommands } from './tokens.js';
import { registerUserCommands } from './users.js';
import { registerWebmentionCommands } from './webmentions.js';
import { registerWebmentionApiCommands } from './webmention-api.js';
import { registerWebmentionModerationCommands } from './webmention-moderation.js';
import { registerWebmentionTransferCommands } from './webmention-transfer.js';
import { registerSendWebmentionsCommand } from './send-webmentions.js';
import { registerProfileCommands } from './profiles.js';
import { didYouMean } from './suggest.js';
import { packageVersion } from './version.js';
import { registerBackupCommands } from './backup.js';
import { registerDoctorCommand } from './doctor.js';
import { registerSyndicationCommands } from './syndication.js';

export const EXIT_FAILURE = 1;

/** The server could not listen where it was told to; the message says why and what to change. */
class ListenError extends Error {}
export const EXIT_CONFIG = 2;

/** Whether the database could not be used (its module loads only now, on the way out of a failed command). */
async function isDatabaseUnavailable(error: unknown): Promise<boolean> {
  const { DatabaseUnavailableError } = await import('../storage/open.js');
  return error instanceof DatabaseUnavailableError;
}

/** Runs the CLI with `argv` (without node and script) and resolves to the exit code. */
export async function main(argv: readonly string[], given: CliIo = processIo): Promise<number> {
  let exitCode = 0;
  // the global flags (--data-dir, --base-url) are known once the command line is parsed: every command reads them through io
  let overrides: ConfigOverrides = {};
  const io: CliIo = {
    stdin: given.stdin,
    stdout: given.stdout,
    stderr: given.stderr,
    env: given.env,
    get cwd() {
      return given.cwd;
    },
    get overrides() {
      return { ...given.overrides, ...overrides };
    },
  };
  const fail = (code: number, lines: readonly string[]) => {
    // one line each, whatever the message quotes: control characters are shown escaped
    for (const line of lines)
      io.stderr.write(`indiestack: ${line.replace(/[\u0000-\u001f\u007f]/g, (char) => JSON.stringify(char).slice(1, -1))}\n`);
    exitCode = code;
  };
  const run = async (work: () => Promise<void | number>) => {
    try {
      const code = await work();
      if (typeof code === 'number') exitCode = code;
    } catch (error) {
      if (error instanceof ConfigError) fail(EXIT_CONFIG, error.problems);
      else if (isIndieWebError(error) || error instanceof ListenError || (await isDatabaseUnavailable(error)))
        fail(EXIT_FAILURE, [(error as Error).message]);
      else fail(EXIT_FAILURE, [`unexpected error: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`]);
    }
  };

  const program = new Command('indiestack')
    .description('The IndieWeb back end for a personal website: IndieAuth, Micropub, media, Webmention, h-card.')
    .version(packageVersion())
    .exitOverride()
    .showSuggestionAfterError()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    })
    .option('--data-dir <dir>', 'directory of the SQLite file, the secret and local media (INDIEWEB_DATA_DIR)')
    .option('--base-url <url>', 'public base URL (INDIEWEB_BASE_URL)')
    .configureHelp({ showGlobalOptions: true })
    .hook('preAction', (_program, command) => {
      const globals = command.optsWithGlobals<{ dataDir?: string; baseUrl?: string }>();
      overrides = {
        ...(globals.dataDir === undefined ? {} : { dataDir: globals.dataDir }),
        ...(globals.baseUrl === undefined ? {} : { baseUrl: globals.baseUrl }),
      };
      // a misspelled setting would otherwise be ignored without a word
      const known = SETTINGS.map((setting) => setting.name);
      for (const name of unknownSettingNames(io.env))
        io.stderr.write(`indiestack: warning: unknown setting ${name} ignored${didYouMean(name, known)}\n`);
    });

  program
    .command('serve')
    .description(
      'run the server (migrates the database first); posts are kept in memory and lost on stop unless INDIEWEB_MICROPUB_HANDLER=database (or files, or ./your-handler.js#export)',
    )
    .option('--host <address>', 'address to listen on (INDIEWEB_HOST)')
    .option('--port <number>', 'port to listen on (INDIEWEB_PORT)')
    .action((options: { host?: string; port?: string }) =>
      run(async () => {
        const config = configFrom(io, options);
        // the standalone server answers at the root of its host: a base URL with a path would advertise endpoints it never serves
        const basePath = new URL(config.baseUrl).pathname;
        if (basePath !== '/' && basePath !== '') {
          const named = io.overrides?.baseUrl !== undefined ? '--base-url' : 'INDIEWEB_BASE_URL';
          throw new ConfigError([
            `${named}: "${config.baseUrl}" has a path; \`serve\` answers at the root of its host (/indieweb/…), so give it the host's root URL, or mount indiestack under a prefix in your own Fastify app (docs/plugin-mode.md)`,
          ]);
        }
        // the server (Fastify and every feature) loads only for serve, so other commands start fast
        const { createServer } = await import('../app/server.js');
        const { app } = await createServer({ config });
        const closed = new Promise<void>((resolve) => app.addHook('onClose', async () => resolve()));
        // SIGTERM/SIGINT: stop accepting, let requests in flight finish for up to INDIEWEB_SHUTDOWN_TIMEOUT seconds,
        // then close what is left; the worker hands its jobs back and the database closes with the app
        let stopping = false;
        const stop = () => {
          if (stopping) {
            app.log.warn('second signal: closing every connection now');
            app.server.closeAllConnections();
            return;
          }
          stopping = true;
          app.log.info({ timeoutSeconds: config.server.shutdownTimeout }, 'shutting down');
          setTimeout(() => app.server.closeAllConnections(), config.server.shutdownTimeout * 1000).unref();
          void app.close();
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
        try {
          await app.listen({ host: config.host, port: config.port });
        } catch (error) {
          await app.close();
          const code = (error as { code?: string }).code;
          if (code === 'EADDRINUSE')
            throw new ListenError(
              `port ${config.port} on ${config.host} is already in use: stop what holds it, or pick another with --port (INDIEWEB_PORT)`,
            );
          if (code === 'EACCES')
            throw new ListenError(
              `not allowed to listen on port ${config.port}: ports below 1024 need privileges; pick another with --port (INDIEWEB_PORT)`,
            );
          if (code === 'EADDRNOTAVAIL')
            throw new ListenError(`${config.host} is not an address of this machine: pick another with --host (INDIEWEB_HOST)`);
          throw error;
        }
        app.log.info({ baseUrl: config.baseUrl }, 'indiestack is serving');
        // `npx indiestack serve &` then `kill $!` ends npm, which does not pass the signal on, and the server would keep
        // the port: started by npm, we stop as on SIGTERM when our parent goes away
        if (io.env.npm_command !== undefined) {
          const parent = process.ppid;
          const watch = setInterval(() => {
            if (process.ppid === parent) return;
            clearInterval(watch);
            app.log.warn('the npm process that started indiestack has gone: shutting down');
            stop();
          }, 500);
          watch.unref();
        }
        await closed;
      }),
    );

  program
    .command('migrate')
    .description('bring the database schema to the latest version')
    .action(() =>
      run(async () => {
        const config = configFrom(io);
        const { openDatabase } = await import('../storage/open.js');
        const database = await openDatabase(config);
        await database.close();
        io.stdout.write(`database is up to date (${database.dialect})\n`);
      }),
    );

  registerUserCommands(program, io, run);
  registerTokenCommands(program, io, run);
  const webmentionCommand = registerWebmentionCommands(program, io, run);
  registerWebmentionApiCommands(webmentionCommand, io, run);
  registerWebmentionModerationCommands(webmentionCommand, io, run);
  registerWebmentionTransferCommands(webmentionCommand, io, run);
  registerSendWebmentionsCommand(program, io, run);
  registerProfileCommands(program, io, run);
  registerBackupCommands(program, io, run);
  registerDoctorCommand(program, io, run);
  registerSyndicationCommands(program, io, run);

  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    throw error;
  }
  return exitCode;
}
