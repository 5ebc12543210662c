/**
 * The `profile` (and `email`) claims of IndieAuth answers: what a token
 * with the `profile` scope may learn about its user, from their h-card.
 * @module
 */
import type { HostUser } from '../contracts/accounts.js';
import { hasScope } from '../core/scope.js';
import type { ProfileService } from '../profile/service.js';

export type ProfileClaims = (user: HostUser, scope: string) => Promise<Record<string, string> | null>;

/** The `profile` object for a token with the `profile` scope (and `email` with the `email` scope); null without it. */
export function createProfileClaims(profiles: ProfileService): ProfileClaims {
  return async function profileFor(user: HostUser, scope: string): Promise<Record<string, string> | null> {
    if (!hasScope(scope, 'profile')) return null;
    const card = (await profiles.get(user)).hCard;
    const profile: Record<string, string> = {};
    const name = card.name?.[0];
    const url = card.url?.[0] ?? user.me[0];
    const photo = card.photo?.[0];
    if (name !== undefined) profile.name = name;
    if (url !== undefined) profile.url = url;
    if (photo !== undefined) profile.photo = photo;
    const email = card.email?.[0];
    if (hasScope(scope, 'email') && email !== undefined) profile.email = email.replace(/^mailto:/i, '');
    return profile;
  };
}
