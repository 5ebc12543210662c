import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase } from '../../src/storage/connect.js';
import { createPasskeysRepository } from '../../src/storage/repositories/passkeys.js';
import { createUsersRepository } from '../../src/storage/repositories/users.js';
import { runCli } from '../helpers/cli.js';
import { DIALECTS, freshLocation } from '../helpers/databases.js';

for (const dialect of DIALECTS) {
  describe(`indiestack user passkeys / remove-passkey / passwordless on ${dialect}`, () => {
    let cwd: string;
    let env: Record<string, string>;
    let fresh: Awaited<ReturnType<typeof freshLocation>>;
    const cli = (args: string[], input?: string) => runCli(args, { cwd, env, ...(input === undefined ? {} : { input }) });
    const withDb = async <T>(work: (db: ReturnType<typeof createDatabase>) => Promise<T>): Promise<T> => {
      const handle = createDatabase(fresh.location);
      try {
        return await work(handle);
      } finally {
        await handle.close();
      }
    };
    const passkeysOfAlice = () =>
      withDb(async (h) => createPasskeysRepository(h.db).listByUser((await createUsersRepository(h.db).findByName('alice'))!.id));

    beforeAll(async () => {
      cwd = mkdtempSync(path.join(os.tmpdir(), 'indiestack-passkeys-cli-'));
      fresh = await freshLocation(dialect);
      env = { INDIEWEB_DATABASE_URL: fresh.url };
      expect((await cli(['user', 'add', 'alice', '--me', 'https://alice.example/', '--password-stdin'], 'a long password\n')).code).toBe(0);
      expect((await cli(['user', 'add', 'bob', '--me', 'https://bob.example/', '--password-stdin'], 'a long password\n')).code).toBe(0);
      // registered as the browser would have: the public half only
      await withDb(async (h) => {
        const alice = (await createUsersRepository(h.db).findByName('alice'))!;
        const passkeys = createPasskeysRepository(h.db);
        for (const [id, name, createdAt] of [
          ['pk1', 'Laptop', '2026-01-01T10:00:00.000Z'],
          ['pk2', 'Phone', '2026-01-02T10:00:00.000Z'],
        ] as const) {
          await passkeys.insert({
            id,
            userId: alice.id,
            credentialId: `cred-${id}`,
            publicKey: 'cHVibGlj',
            counter: 3,
            transports: ['internal'],
            name,
            deviceType: 'multiDevice',
            backedUp: name === 'Phone',
            createdAt,
          });
        }
      });
    });
    afterAll(async () => {
      await fresh.drop();
      rmSync(cwd, { recursive: true, force: true });
    });

    it('lists the passkeys as a table on stdout, the summary on stderr', async () => {
      const result = await cli(['user', 'passkeys', 'alice']);
      expect(result.code).toBe(0);
      expect(result.stdout.split('\n')).toEqual([
        'ID   NAME    ADDED                     LAST USED  SYNCED',
        'pk1  Laptop  2026-01-01T10:00:00.000Z  never      no',
        'pk2  Phone   2026-01-02T10:00:00.000Z  never      yes',
        '',
      ]);
      expect(result.stderr).toBe('alice: 2 passkeys; password sign-in on\n');
    });

    it('refuses passkey-only sign-in for an account without a passkey', async () => {
      const result = await cli(['user', 'passwordless', 'bob', 'on']);
      expect(result).toMatchObject({ code: 1, stdout: '' });
      expect(result.stderr).toBe(
        'indiestack: Register a passkey first: without one, an account that refuses its password has no way to sign in.\n',
      );
      expect(await withDb(async (h) => (await createUsersRepository(h.db).findByName('bob'))!.passwordless)).toBe(false);
    });

    it('removes passkeys but never the last way in, until password sign-in is on again', async () => {
      expect(await cli(['user', 'passwordless', 'alice', 'on'])).toMatchObject({
        code: 0,
        stdout: 'password sign-in of alice is off: only passkeys sign in\n',
        stderr: '',
      });
      expect(await cli(['user', 'remove-passkey', 'alice', 'pk1'])).toMatchObject({
        code: 0,
        stdout: 'removed passkey pk1 of alice\n',
        stderr: '',
      });
      const last = await cli(['user', 'remove-passkey', 'alice', 'pk2']);
      expect(last).toMatchObject({ code: 1, stdout: '' });
      expect(last.stderr).toMatch(/^indiestack: This is the last passkey of an account that signs in with passkeys only/);
      expect((await passkeysOfAlice()).map((passkey) => passkey.id)).toEqual(['pk2']);
      expect((await cli(['user', 'passkeys', 'alice'])).stderr).toBe('alice: 1 passkey; password sign-in off (passkeys only)\n');

      expect(await cli(['user', 'passwordless', 'alice', 'off'])).toMatchObject({ code: 0, stdout: 'password sign-in of alice is on\n' });
      expect(await cli(['user', 'remove-passkey', 'alice', 'pk2'])).toMatchObject({ code: 0, stdout: 'removed passkey pk2 of alice\n' });
      expect(await passkeysOfAlice()).toEqual([]);
    });

    it.each([
      [['user', 'passkeys', 'nobody'], 'indiestack: no user named "nobody"\n'],
      [['user', 'remove-passkey', 'alice', 'pk-unknown'], 'indiestack: user alice has no passkey with ID "pk-unknown"\n'],
      [['user', 'passwordless', 'alice', 'maybe'], 'indiestack: "maybe" is neither on nor off\n'],
    ])('exit 1 with one line on stderr for %j', async (args, message) => {
      expect(await cli(args)).toMatchObject({ code: 1, stdout: '', stderr: message });
    });
  });
}
