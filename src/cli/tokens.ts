import { InvalidArgumentError, Option, type Command } from 'commander';
import { MAX_LIFETIME_S } from '../config/config.js';
import { InvalidRequestError, NotFoundError } from '../core/errors.js';
import { profileUrlKey } from '../core/url.js';
import { scopeNames } from '../core/scope.js';
import { withCore } from './with-core.js';
import { didYouMean } from './suggest.js';
import { formatTable, type CliIo } from './io.js';

/** Scopes the endpoints and common IndieWeb clients use; others are stored but warned about. */
const KNOWN_SCOPES = new Set([
  'profile',
  'email',
  'create',
  'update',
  'delete',
  'undelete',
  'media',
  'draft',
  'read',
  'follow',
  'mute',
  'block',
  'channels',
  'post',
  'deploy',
]);

function positiveInteger(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) <= 0 || Number(value) > MAX_LIFETIME_S) {
    throw new InvalidArgumentError(`must be a whole number of seconds from 1 to ${MAX_LIFETIME_S}`);
  }
  return Number(value);
}

export function registerTokenCommands(program: Command, io: CliIo, run: (work: () => Promise<void | number>) => Promise<void>): void {
  const token = program.command('token').description('manage access tokens');

  token
    .command('issue')
    .description(
      'issue an access token: the token alone on stdout, what was issued on stderr (expires after INDIEWEB_TOKEN_EXPIRES_IN, 24 h by default, unless --no-expiry)',
    )
    .requiredOption('--user <name>', 'owner of the token')
    .requiredOption('--client-id <url>', 'client the token is for')
    .requiredOption('--scope <scopes>', 'space-separated scopes, e.g. "create update media"')
    .option('--me <url>', "profile URL the token claims (one of the user's; default: the first)")
    .addOption(
      new Option('--expires-in <seconds>', 'lifetime (default: INDIEWEB_TOKEN_EXPIRES_IN)').argParser(positiveInteger).conflicts('expiry'),
    )
    .option('--no-expiry', 'issue a token that never expires')
    .action((options: { user: string; clientId: string; scope: string; me?: string; expiresIn?: number; expiry: boolean }) =>
      run(async () => {
        if (options.scope.includes(','))
          throw new InvalidRequestError(
            `--scope takes space-separated names, not a comma-separated list: --scope "${options.scope
              .split(',')
              .map((name) => name.trim())
              .filter((name) => name !== '')
              .join(' ')}"`,
          );
        for (const name of scopeNames(options.scope)) {
          if (!KNOWN_SCOPES.has(name))
            io.stderr.write(
              `indiestack: warning: "${name}" is not a scope indiestack knows${didYouMean(name, KNOWN_SCOPES)}; it is stored as given\n`,
            );
        }
        const issued = await withCore(io, async ({ users, tokens, config }) => {
          const owner = await users.findByName(options.user);
          if (owner === null) throw new NotFoundError(`no user named "${options.user}"`);
          let me = owner.me[0] ?? '';
          if (options.me !== undefined) {
            const key = profileUrlKey(options.me);
            const match = owner.me.find((url) => profileUrlKey(url) === key);
            if (key === null || match === undefined) throw new InvalidRequestError(`"${options.me}" is not a profile URL of ${owner.name}`);
            me = match;
          }
          const expiresIn = options.expiry ? (options.expiresIn ?? config.tokenExpiresIn) : null;
          return tokens.issue({ userId: owner.id, clientId: options.clientId, me, scope: options.scope, expiresIn });
        });
        const { record } = issued;
        // the token alone on stdout (TOKEN=$(indiestack token issue …)); what it is goes to stderr
        io.stderr.write(
          `issued token ${record.id} for ${options.user} (client ${record.clientId}, scope "${record.scope}", ${record.expiresAt === null ? 'no expiry' : `expires ${record.expiresAt}`})\n`,
        );
        io.stdout.write(`${issued.token}\n`);
      }),
    );

  token
    .command('list')
    .description('list access tokens, or with --grants the live grants (never the tokens themselves)')
    .option('--user <name>', 'only the tokens of this user')
    .option('--grants', 'one line per grant (an authorization: its access and refresh tokens), only those still alive')
    .action((options: { user?: string; grants?: boolean }) =>
      run(async () => {
        const { rows, grants, names } = await withCore(io, async ({ users, tokens }) => {
          const all = await users.list();
          let userId: string | undefined;
          if (options.user !== undefined) {
            const owner = all.find((u) => u.name === options.user);
            if (owner === undefined) throw new NotFoundError(`no user named "${options.user}"`);
            userId = owner.id;
          }
          const filter = userId === undefined ? {} : { userId };
          return {
            rows: options.grants === true ? [] : await tokens.list(filter),
            grants: options.grants === true ? await tokens.listGrants(filter) : [],
            names: new Map(all.map((u) => [u.id, u.name])),
          };
        });
        if (options.grants === true) {
          io.stdout.write(
            formatTable(
              ['GRANT', 'USER', 'CLIENT', 'SCOPE', 'ISSUED', 'EXPIRES', 'LAST USED', 'REFRESH'],
              grants.map((g) => [
                g.grantId,
                names.get(g.userId) ?? g.userId,
                g.clientId,
                g.scope,
                g.createdAt,
                g.expiresAt ?? 'never',
                g.lastUsedAt ?? '-',
                g.refreshable ? 'yes' : 'no',
              ]),
            ),
          );
          return;
        }
        const now = new Date().toISOString();
        const status = (t: (typeof rows)[number]) =>
          t.revokedAt !== null ? 'revoked' : t.expiresAt !== null && t.expiresAt <= now ? 'expired' : 'valid';
        io.stdout.write(
          formatTable(
            ['ID', 'USER', 'CLIENT', 'SCOPE', 'ISSUED', 'EXPIRES', 'LAST USED', 'STATUS'],
            rows.map((t) => [
              t.id,
              names.get(t.userId) ?? t.userId,
              t.clientId,
              t.scope,
              t.createdAt,
              t.expiresAt ?? 'never',
              t.lastUsedAt ?? '-',
              status(t),
            ]),
          ),
        );
      }),
    );

  token
    .command('revoke')
    .description("revoke a token by its id, or a grant by its id (see token list): the token's whole grant goes, refresh tokens included")
    .argument('<id>', 'token id or grant id')
    .action((id: string) =>
      run(async () => {
        await withCore(io, ({ tokens }) => tokens.revoke(id));
        io.stdout.write(`revoked token ${id}\n`);
      }),
    );
}
