import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPasskeysRepository, type PasskeysRepository } from '../../src/storage/repositories/passkeys.js';
import {
  createWebauthnChallengesRepository,
  type WebauthnChallengesRepository,
} from '../../src/storage/repositories/webauthn-challenges.js';
import { DIALECTS, openTestDatabase, type TestDatabase } from '../helpers/databases.js';

const NOW = '2026-03-01T12:00:00.000Z';

for (const dialect of DIALECTS) {
  describe(`passkey and challenge repositories (${dialect})`, () => {
    let database: TestDatabase;
    let passkeys: PasskeysRepository;
    let challenges: WebauthnChallengesRepository;

    beforeAll(async () => {
      database = await openTestDatabase(dialect);
      passkeys = createPasskeysRepository(database.db);
      challenges = createWebauthnChallengesRepository(database.db);
    });
    afterAll(async () => database?.dispose());

    const add = (id: string, counter: number) =>
      passkeys.insert({
        id,
        userId: 'u1',
        credentialId: `cred-${id}`,
        publicKey: 'cHVibGlj',
        counter,
        transports: ['internal', 'hybrid'],
        name: id,
        deviceType: 'singleDevice',
        backedUp: false,
        createdAt: NOW,
      });

    it('moves a counter only forward: the same or an older count is not recorded (a copy, or a race between instances)', async () => {
      await add('counting', 5);
      expect(await passkeys.recordUse('counting', 5, NOW)).toBe(false);
      expect(await passkeys.recordUse('counting', 4, NOW)).toBe(false);
      expect(await passkeys.recordUse('counting', 6, NOW)).toBe(true);
      expect(await passkeys.recordUse('counting', 6, NOW)).toBe(false);
      // a counter past PostgreSQL's integer range (it is an unsigned 32-bit number)
      expect(await passkeys.recordUse('counting', 4_000_000_000, NOW)).toBe(true);
      expect(await passkeys.findByCredentialId('cred-counting')).toMatchObject({
        counter: 4_000_000_000,
        lastUsedAt: NOW,
        transports: ['internal', 'hybrid'],
      });
    });

    it('accepts 0 every time from an authenticator that keeps no counter, never 0 once one was seen', async () => {
      await add('counterless', 0);
      expect(await passkeys.recordUse('counterless', 0, NOW)).toBe(true);
      expect(await passkeys.recordUse('counterless', 0, NOW)).toBe(true);
      expect(await passkeys.recordUse('counterless', 3, NOW)).toBe(true);
      expect(await passkeys.recordUse('counterless', 0, NOW)).toBe(false);
    });

    it('refuses a second passkey with the same credential id (unique violation)', async () => {
      await expect(
        passkeys.insert({
          id: 'other',
          userId: 'u2',
          credentialId: 'cred-counting',
          publicKey: 'x',
          counter: 0,
          transports: [],
          name: 'x',
          deviceType: 'singleDevice',
          backedUp: false,
          createdAt: NOW,
        }),
      ).rejects.toThrow();
    });

    it('gives a challenge once, only for its purpose and before it expires; expired ones are swept', async () => {
      const challenge = (id: string, expiresAt: string) => ({
        id,
        challenge: `c-${id}`,
        purpose: 'authentication' as const,
        userId: null,
        createdAt: NOW,
        expiresAt,
      });
      await challenges.insert(challenge('once', '2026-03-01T12:05:00.000Z'));
      const [first, second] = await Promise.all([
        challenges.take('once', 'authentication', NOW),
        challenges.take('once', 'authentication', NOW),
      ]);
      expect([first, second].filter((taken) => taken !== null)).toEqual([challenge('once', '2026-03-01T12:05:00.000Z')]);
      await challenges.insert(challenge('purpose', '2026-03-01T12:05:00.000Z'));
      expect(await challenges.take('purpose', 'registration', NOW)).toBeNull();
      expect(await challenges.take('purpose', 'authentication', NOW)).toBeNull();
      await challenges.insert(challenge('late', '2026-03-01T11:59:59.000Z'));
      expect(await challenges.take('late', 'authentication', NOW)).toBeNull();
      await challenges.insert(challenge('stale', '2026-03-01T11:00:00.000Z'));
      expect(await challenges.deleteExpired(NOW)).toBe(1);
    });
  });
}
