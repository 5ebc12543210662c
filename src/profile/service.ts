import type { HostUser } from '../contracts/accounts.js';
import type { Clock } from '../core/clock.js';
import type { HCard, ProfileRecord, ProfilesRepository } from '../storage/repositories/profiles.js';
import { derivedFields, validateHCard } from './h-card.js';

export type ProfileService = ReturnType<typeof createProfileService>;

export function createProfileService(deps: { profiles: ProfilesRepository; clock: Clock }) {
  const { profiles, clock } = deps;
  return {
    /** The stored profile, or one made from the account (its name and first profile URL) until it is edited. */
    async get(user: HostUser): Promise<ProfileRecord> {
      const stored = await profiles.find(user.id);
      if (stored !== null) return stored;
      const hCard: HCard = { name: [user.name], ...(user.me[0] === undefined ? {} : { url: [user.me[0]] }) };
      return { userId: user.id, ...derivedFields(hCard), hCard, updatedAt: clock.now().toISOString() };
    },

    /** Validates the whole h-card (every problem at once) and stores it with name, photo_url and url in sync. */
    async update(user: HostUser, input: unknown): Promise<ProfileRecord> {
      const hCard = validateHCard(input);
      const record: ProfileRecord = { userId: user.id, ...derivedFields(hCard), hCard, updatedAt: clock.now().toISOString() };
      await profiles.put(record);
      return record;
    },
  };
}
